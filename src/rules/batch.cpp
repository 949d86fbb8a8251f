// SPDX-License-Identifier: MIT
// BATCH: rings that submit few SQEs per io_uring_enter() call.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

void rule_batch(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    // An SQPOLL ring's kernel thread submits without io_uring_enter().
    if (ring.sqpoll()) continue;
    const uint64_t calls = ring.counters.enter_submit_calls;
    const uint64_t sqes = ring.counters.submissions;
    if (!at_least(calls, ThresholdId::BatchMinEnterCalls) ||
        !at_least(sqes, ThresholdId::BatchMinSqes))
      continue;
    const double seconds = static_cast<double>(snapshot.wall_ns) / 1e9;
    const double rate = seconds > 0 ? static_cast<double>(calls) / seconds : 0.0;
    if (seconds > 0 && rate < thr(ThresholdId::BatchMinEnterRate)) continue;

    const double avg = ring.avg_batch();
    if (avg >= thr(ThresholdId::BatchInfoBelow)) continue;
    const bool warn = avg < thr(ThresholdId::BatchWarnBelow);

    std::string message = fmt::format(
        "{} submits {:.2f} SQEs per io_uring_enter() call on average ({} SQEs over {} "
        "submitting calls): ",
        ring_label(ring), avg, format_count(sqes), format_count(calls));
    message += warn ? "close to one syscall per request, the cost io_uring's shared rings "
                      "exist to avoid."
                    : "many calls carry a single SQE, so part of the syscall cost that "
                      "batching removes is still paid per request.";
    Finding finding{
        .tag = kTagBatch,
        .severity = warn ? Severity::Warn : Severity::Info,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion =
            "Queue several SQEs before submitting: call io_uring_submit() once per batch "
            "rather than after every io_uring_get_sqe(), or io_uring_submit_and_wait() to "
            "submit and wait in one call. At very high request rates, IORING_SETUP_SQPOLL "
            "removes submit syscalls altogether.",
        .evidence = {real_evidence("avg_batch", avg), count_evidence("enter_submit_calls", calls),
                     count_evidence("sqes", sqes)},
    };
    if (seconds > 0) finding.evidence.push_back(real_evidence("enter_submit_per_s", rate));
    out.push_back(std::move(finding));
  }
}

}  // namespace uringscope::rules
