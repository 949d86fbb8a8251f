// SPDX-License-Identifier: MIT
// REAP-LAG: CQEs that sat ready in the CQ ring long after the kernel posted them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

void rule_reap_lag(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (!snapshot.boundary_measured) return;
  const auto limit_ns = static_cast<uint64_t>(thr(ThresholdId::ReapLagP99) * kNsPerMs);
  const auto min_watched = static_cast<uint64_t>(thr(ThresholdId::ReapLagMinWatched));
  for (const Ring& ring : snapshot.rings) {
    const RingBoundary& b = ring.boundary;
    const Histogram& lag = b.reap_lag;
    const uint64_t p99 = lag.quantile_ns(0.99);
    // Judged on the lower bounds: a look that came late (a loaded machine, a timer run
    // late) widens the upper bound without the CQE having waited any longer.
    const uint64_t certain_p99 = b.reap_lag_min.quantile_ns(0.99);
    if (lag.count() < min_watched || certain_p99 < limit_ns) continue;
    std::vector<Evidence> evidence;
    add_lag_evidence(evidence, "", lag);
    evidence.push_back(count_evidence("at_least_p99_ns", certain_p99));
    evidence.insert(evidence.end(), {real_evidence("cq_depth_avg", b.cq_depth_avg()),
                                     count_evidence("cq_depth_max", b.cq_depth_max),
                                     text_evidence("source", "ring_index"),
                                     count_evidence("resolution_avg_ns", b.reap_gap_mean_ns()),
                                     count_evidence("resolution_max_ns", b.reap_gap_max_ns),
                                     count_evidence("threshold_ns", limit_ns)});
    // The exact source beside it, where liburing's uprobes timed some of the same CQEs.
    if (b.lu_reap_lag.count()) add_lag_evidence(evidence, "uprobes_", b.lu_reap_lag);
    out.push_back(Finding{
        .tag = kTagReapLag,
        .severity = Severity::Warn,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = fmt::format(
            "{}: completions waited in the CQ ring before the program reaped them: p99 {} "
            "(at least {}), p50 {}, max {} over {} CQEs watched (CQ depth avg {}, max {}). "
            "The kernel had finished those requests; the program saw them that much later.",
            ring_label(ring), format_duration(p99), format_duration(certain_p99),
            format_duration(lag.quantile_ns(0.5)), format_duration(lag.max_ns),
            format_count(lag.count()),
            format_fixed(b.cq_depth_avg(), 1), format_count(b.cq_depth_max)),
        .suggestion =
            "Reap as soon as CQEs are ready. The usual causes: a loop that does other work "
            "(or blocks in a handler) before it comes back to the CQ; waiting for many CQEs "
            "at once (a large wait_nr in io_uring_wait_cqe_nr() or min_complete in "
            "io_uring_enter()) while some are ready; one thread reaping for several rings. "
            "Peek the CQ at the top of every loop iteration and hand slow work to another "
            "thread.",
        .evidence = std::move(evidence),
    });
  }
}

}  // namespace uringscope::rules
