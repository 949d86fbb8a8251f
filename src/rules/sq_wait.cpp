// SPDX-License-Identifier: MIT
// SQ-WAIT: SQEs that sat in an SQPOLL ring's SQ long before its thread took them.
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

namespace {

// Why the thread was not there: asleep (and how often the program woke it) or kept off
// its CPU.
std::string thread_state(const Ring& ring) {
  const Counters& c = ring.counters;
  return fmt::format(
      "the SQPOLL thread (tid {}) went to sleep {} times and was preempted {} times; the "
      "program woke it {} times with IORING_ENTER_SQ_WAKEUP",
      ring.sq_tid, format_count(c.sqpoll_sleeps), format_count(c.sqpoll_preempts),
      format_count(c.sqpoll_wakeups));
}

}  // namespace

void rule_sq_wait(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (!snapshot.boundary_measured) return;
  const auto limit_ns = static_cast<uint64_t>(thr(ThresholdId::SqWaitP99) * kNsPerMs);
  for (const Ring& ring : snapshot.rings) {
    const RingBoundary& b = ring.boundary;
    const Histogram& wait = b.sq_wait;
    const uint64_t p99 = wait.quantile_ns(0.99);
    if (!ring.sqpoll() || !at_least(wait.count(), ThresholdId::SqWaitMinWatched) || p99 < limit_ns)
      continue;
    const Counters& c = ring.counters;
    std::vector<Evidence> evidence;
    add_lag_evidence(evidence, "", wait);
    evidence.insert(evidence.end(), {text_evidence("source", "ring_index"),
                                     count_evidence("resolution_avg_ns", b.sq_res_mean_ns()),
                                     count_evidence("resolution_max_ns", b.sq_res_max_ns),
                                     count_evidence("sqpoll_sleeps", c.sqpoll_sleeps),
                                     count_evidence("sqpoll_preempts", c.sqpoll_preempts),
                                     count_evidence("sqpoll_wakeups", c.sqpoll_wakeups),
                                     count_evidence("sqpoll_offcpu_ns", c.sqpoll_offcpu_ns),
                                     count_evidence("threshold_ns", limit_ns)});
    out.push_back(Finding{
        .tag = kTagSqWait,
        .severity = Severity::Warn,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = fmt::format(
            "{}: SQEs waited in the SQ ring before the SQPOLL thread took them: p99 {}, "
            "p50 {}, max {} over {} SQEs watched, each at least that long ({}). The program "
            "had submitted them; the kernel had not started them.",
            ring_label(ring), format_duration(p99), format_duration(wait.quantile_ns(0.5)),
            format_duration(wait.max_ns), format_count(wait.count()), thread_state(ring)),
        .suggestion =
            "An SQPOLL thread takes SQEs only while it runs: after sq_thread_idle ms "
            "without work it sleeps and sets IORING_SQ_NEED_WAKEUP in the SQ ring's flags, "
            "and SQEs written after that wait until the program calls io_uring_enter() "
            "with IORING_ENTER_SQ_WAKEUP. Check the flag after every tail update "
            "(io_uring_submit() does; a ring driven by hand must too), raise sq_thread_idle "
            "above the gaps between bursts, and keep the thread's CPU free "
            "(IORING_SETUP_SQ_AFF with sq_thread_cpu, the program pinned elsewhere).",
        .evidence = std::move(evidence),
    });
  }
}

}  // namespace uringscope::rules
