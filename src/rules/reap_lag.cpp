// SPDX-License-Identifier: MIT
// REAP-LAG: CQEs that sat ready in the CQ ring long after the kernel posted them.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

namespace {

// Samples at or above `ns`, those of the bucket holding it taken as spread evenly over
// the bucket, as the quantiles take them.
uint64_t count_at_least(const Histogram& h, uint64_t ns) {
  double n = 0;
  for (std::size_t i = 0; i < h.buckets.size(); ++i) {
    if (!h.buckets[i]) continue;
    const uint64_t lower = bucket_lower_ns(i), upper = bucket_upper_ns(i);
    if (lower >= ns) {
      n += static_cast<double>(h.buckets[i]);
    } else if (upper > ns) {
      n += static_cast<double>(h.buckets[i]) * static_cast<double>(upper - ns) /
           static_cast<double>(upper - lower);
    }
  }
  return static_cast<uint64_t>(n + 0.5);
}

// What REAP-LAG reads of a ring: the waits that certainly passed the threshold, among the
// CQEs reaped (their lower bounds) and those never reaped (their age at the teardown).
struct ReapWaits {
  uint64_t cqes = 0;    // reaped and timed, plus never reaped
  uint64_t past = 0;    // ... certainly waiting longer than the threshold
  uint64_t longest = 0; // the longest certain wait
};

ReapWaits reap_waits(const RingBoundary& b, uint64_t limit_ns) {
  ReapWaits w;
  w.cqes = b.reap_lag_min.count() + b.reap_never;
  w.past = count_at_least(b.reap_lag_min, limit_ns);
  // The oldest never-reaped CQE is the only age known of them; the rest are younger.
  if (b.reap_never_max_ns >= limit_ns) ++w.past;
  w.longest = std::max(b.reap_lag_min.max_ns, b.reap_never_max_ns);
  // The bucket's even spread may round the one CQE past it away; the maximum is exact.
  if (w.longest >= limit_ns) w.past = std::max<uint64_t>(w.past, 1);
  return w;
}

// How long and how many: a pattern (a share of the CQEs, with a floor), or one wait so
// long a user sees the program stall.
Severity reap_severity(const ReapWaits& w, uint64_t limit_ns) {
  const bool many = at_least(w.past, ThresholdId::ReapLagWarnMin) &&
                    pct_of(w.past, w.cqes) >= thr(ThresholdId::ReapLagWarnSharePct);
  const bool long_one = static_cast<double>(w.longest) >=
                        static_cast<double>(limit_ns) * thr(ThresholdId::ReapLagWarnFactor);
  return many || long_one ? Severity::Warn : Severity::Info;
}

std::string never_reaped_text(const RingBoundary& b) {
  if (!b.reap_never) return "";
  return fmt::format("; {} CQEs were never reaped, the oldest {} old when the ring was torn down",
                     format_count(b.reap_never), format_duration(b.reap_never_max_ns));
}

}  // namespace

void rule_reap_lag(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (!snapshot.boundary_measured) return;
  const auto limit_ns = static_cast<uint64_t>(thr(ThresholdId::ReapLag) * kNsPerMs);
  for (const Ring& ring : snapshot.rings) {
    const RingBoundary& b = ring.boundary;
    // Judged on the lower bounds: a look that came late (a loaded machine, a timer run
    // late) widens the upper bound without the CQE having waited any longer.
    const ReapWaits waits = reap_waits(b, limit_ns);
    if (waits.longest < limit_ns) continue;
    const Histogram& lag = b.reap_lag;
    const uint64_t certain_p99 = b.reap_lag_min.quantile_ns(0.99);
    std::vector<Evidence> evidence;
    add_lag_evidence(evidence, "", lag);
    evidence.insert(evidence.end(),
                    {count_evidence("at_least_p99_ns", certain_p99),
                     count_evidence("at_least_max_ns", b.reap_lag_min.max_ns),
                     count_evidence("past_threshold", waits.past),
                     count_evidence("never_reaped", b.reap_never),
                     count_evidence("never_reaped_oldest_ns", b.reap_never_max_ns),
                     real_evidence("cq_depth_avg", b.cq_depth_avg()),
                     count_evidence("cq_depth_max", b.cq_depth_max),
                     text_evidence("source", "ring_index"),
                     count_evidence("resolution_avg_ns", b.reap_gap_mean_ns()),
                     count_evidence("resolution_max_ns", b.reap_gap_max_ns),
                     count_evidence("threshold_ns", limit_ns)});
    // The exact source beside it, where liburing's uprobes timed some of the same CQEs.
    if (b.lu_reap_lag.count()) add_lag_evidence(evidence, "uprobes_", b.lu_reap_lag);
    out.push_back(Finding{
        .tag = kTagReapLag,
        .severity = reap_severity(waits, limit_ns),
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = fmt::format(
            "{}: {} of {} CQEs waited in the CQ ring longer than {} before the program "
            "reaped them, the longest at least {}: p99 {} (at least {}), p50 {}, max {} "
            "(CQ depth avg {}, max {}){}. The kernel had finished those requests; the "
            "program saw them that much later.",
            ring_label(ring), format_count(waits.past), format_count(waits.cqes),
            format_duration(limit_ns), format_duration(waits.longest),
            format_duration(lag.quantile_ns(0.99)), format_duration(certain_p99),
            format_duration(lag.quantile_ns(0.5)), format_duration(lag.max_ns),
            format_fixed(b.cq_depth_avg(), 1), format_count(b.cq_depth_max),
            never_reaped_text(b)),
        .suggestion =
            "Reap as soon as CQEs are ready. The usual causes: a loop that does other work "
            "(or blocks in a handler) before it comes back to the CQ; waiting for many CQEs "
            "at once (a large wait_nr in io_uring_wait_cqe_nr() or min_complete in "
            "io_uring_enter()) while some are ready; one thread reaping for several rings; "
            "a program that exits or closes its ring with completions it never looked at. "
            "Peek the CQ at the top of every loop iteration and hand slow work to another "
            "thread.",
        .evidence = std::move(evidence),
    });
  }
}

}  // namespace uringscope::rules
