// SPDX-License-Identifier: MIT
// DEFER-TW: DEFER_TASKRUN rings whose deferred completions ran late or never.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

namespace {

// What the ring's deferred task work did: never ran, or ran late (and maybe still waits).
std::string defer_tw_message(const Ring& ring, bool never_ran, bool pending_long) {
  const Counters& c = ring.counters;
  std::string message;
  if (never_ran) {
    message = fmt::format(
        "{} (DEFER_TASKRUN): {} completions were queued as task work but the ring's local "
        "task work never ran in the window",
        ring_label(ring), format_count(c.task_adds));
    if (c.local_task_work_pending_ns)
      message += fmt::format(", the oldest waiting for {} at the end",
                             format_duration(c.local_task_work_pending_ns));
  } else {
    message = fmt::format(
        "{} (DEFER_TASKRUN): completions queued as task work waited up to {} before the "
        "submitting thread ran them",
        ring_label(ring), format_duration(c.local_task_work_max_lag_ns));
    if (pending_long)
      message += fmt::format(", and work queued {} before the end was still waiting",
                             format_duration(c.local_task_work_pending_ns));
  }
  message +=
      ": they reach the CQ only when that thread enters io_uring_enter() to wait for "
      "completions, so a program that only watches the CQ ring does not see them.";
  return message;
}

}  // namespace

// With IORING_SETUP_DEFER_TASKRUN a completion is queued as local task work and posted
// only when the submitting thread enters the kernel to wait for completions. Work that
// never runs, or waits long, means that thread is not entering.
void rule_defer_tw(const Snapshot& snapshot, std::vector<Finding>& out) {
  // Without the local-work tracepoint every run would look like one that never happened.
  // A snapshot without feature rows (hand-built, an old baseline) counts it as on.
  if (!feature_on(snapshot.kernel.features, FeatureId::LocalWork, IfAbsent::On)) return;
  const double lag_ns = thr(ThresholdId::DeferTwMaxLag) * kNsPerMs;
  for (const Ring& ring : snapshot.rings) {
    if (!(ring.setup_flags & kSetupDeferTaskrun)) continue;
    const Counters& c = ring.counters;
    if (c.task_adds == 0) continue;
    const bool pending_long = static_cast<double>(c.local_task_work_pending_ns) >= lag_ns;
    // Never ran: unless the work was queued just before the window ended (pending, but
    // not yet for long), which is no sign of anything.
    const bool never_ran =
        c.local_task_work_runs == 0 && (c.local_task_work_pending_ns == 0 || pending_long);
    const bool lagged =
        c.local_task_work_runs > 0 &&
        (static_cast<double>(c.local_task_work_max_lag_ns) >= lag_ns || pending_long);
    if (!never_ran && !lagged) continue;

    std::string message = defer_tw_message(ring, never_ran, pending_long);
    out.push_back(Finding{
        .tag = kTagDeferTw,
        .severity = Severity::Warn,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion =
            "Wait for completions from the submitting thread by entering the kernel: "
            "io_uring_submit_and_wait(), io_uring_wait_cqe() / io_uring_wait_cqes(), or "
            "io_uring_get_events() when the thread must not block. Reading the CQ ring "
            "directly (io_uring_cq_ready(), io_uring_for_each_cqe()) never runs the deferred "
            "work. If the thread must spend long stretches elsewhere, drop "
            "IORING_SETUP_DEFER_TASKRUN.",
        .evidence = {count_evidence("task_adds", c.task_adds),
                     count_evidence("local_task_work_runs", c.local_task_work_runs),
                     count_evidence("local_task_work_max_lag_ns", c.local_task_work_max_lag_ns),
                     count_evidence("local_task_work_pending_ns", c.local_task_work_pending_ns),
                     count_evidence("lag_threshold_ns", static_cast<uint64_t>(lag_ns))},
    });
  }
}

}  // namespace uringscope::rules
