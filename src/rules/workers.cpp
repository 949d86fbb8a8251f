// SPDX-License-Identifier: MIT
// WORKERS: processes that ran more io-wq worker threads than the machine warrants.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

// io-wq workers belong to a process (its rings share them), so the finding is per pid:
// it names the process's lowest-numbered ring, or no ring when none of its rings was
// seen, and the ops that fed io-wq on all of its rings.
void rule_workers(const Snapshot& snapshot, std::vector<Finding>& out) {
  const double limit =
      std::max(thr(ThresholdId::WorkersMin), thr(ThresholdId::WorkersPerCpu) * snapshot.ncpus);
  for (const ProcessWorkers& workers : snapshot.workers) {
    if (static_cast<double>(workers.distinct) < limit) continue;

    const Ring* first = nullptr;
    std::map<uint32_t, uint64_t> punted_by_op;
    uint64_t punted = 0;
    for (const Ring& ring : snapshot.rings) {
      if (ring.pid != workers.pid) continue;
      if (!first) first = &ring;
      for (const OpStats& op : ring.ops) {
        if (op.punted == 0) continue;
        punted_by_op[op.opcode] += op.punted;
        punted += op.punted;
      }
    }
    const std::string fed_by = op_count_list({punted_by_op.begin(), punted_by_op.end()}, 4);

    const std::string who = first && !first->comm.empty()
                                ? fmt::format("pid {} ({})", workers.pid, first->comm)
                                : fmt::format("pid {}", workers.pid);
    const std::string limit_why =
        snapshot.ncpus ? fmt::format("max({}, {} x {} CPUs)", thr(ThresholdId::WorkersMin),
                                     thr(ThresholdId::WorkersPerCpu), snapshot.ncpus)
                       : std::string("the floor; CPU count unknown");
    std::string message = fmt::format(
        "{} ran {} distinct io-wq worker threads (iou-wrk) in the window, at or over the "
        "limit of {} ({}): blocking work is flooding io-wq.",
        who, format_count(workers.distinct), static_cast<uint64_t>(limit), limit_why);
    message += fed_by.empty()
                   ? " No request of its rings was seen punted in the window: the work was "
                     "queued before it, or on rings the tool did not see."
                   : fmt::format(" Requests punted on its rings: {}.", fed_by);

    const std::string cap = snapshot.ncpus ? std::to_string(snapshot.ncpus) : std::string("N");
    out.push_back(Finding{
        .tag = kTagWorkers,
        .severity = Severity::Warn,
        .ring = first ? std::optional<uint32_t>(first->id) : std::nullopt,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion = fmt::format(
            "Stop blocking ops from flooding io-wq: file I/O with O_DIRECT completes without a "
            "worker, IOSQE_ASYNC belongs only on requests that would block anyway, and "
            "hundreds of fsync/openat/buffered writes queued at once each take a worker. Cap "
            "the pool with io_uring_register_iowq_max_workers() "
            "(IORING_REGISTER_IOWQ_MAX_WORKERS), e.g. unsigned max[2] = {{{0}, {0}}} for "
            "bounded (file) and unbounded (socket, pipe) workers.",
            cap),
        .evidence = {count_evidence("workers", workers.distinct),
                     count_evidence("limit", static_cast<uint64_t>(limit)),
                     count_evidence("ncpus", snapshot.ncpus), count_evidence("pid", workers.pid),
                     count_evidence("punted", punted), text_evidence("fed_by", fed_by)},
    });
  }
}

}  // namespace uringscope::rules
