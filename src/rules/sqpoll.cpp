// SPDX-License-Identifier: MIT
// SQPOLL: SQPOLL threads that sleep through bursts, or never sleep at all.
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

namespace {

// The numbers both checks read.
struct SqpollWindow {
  uint64_t ns = 0;         // the part of the window the ring existed in
  double seconds = 0;
  double offcpu_pct = 0;   // the thread's off-CPU share of it
  double per_wakeup = 0;   // SQEs submitted per wakeup enter call
};

// A share of the ring's life, not of the window: a ring created a second into a short
// run has a thread that could not sleep before it existed.
SqpollWindow sqpoll_window(const Snapshot& snapshot, const Ring& ring) {
  const Counters& c = ring.counters;
  SqpollWindow w;
  w.ns = ring.observed_ns && ring.observed_ns < snapshot.wall_ns ? ring.observed_ns : snapshot.wall_ns;
  w.seconds = static_cast<double>(w.ns) / kNsPerS;
  w.offcpu_pct = pct_of(c.sqpoll_offcpu_ns, w.ns);
  if (c.sqpoll_wakeups)
    w.per_wakeup = static_cast<double>(c.submissions) / static_cast<double>(c.sqpoll_wakeups);
  return w;
}

// Asleep most of the time and woken for small bursts: SQPOLL costs a thread and
// still a syscall (plus a wakeup) per burst.
// Small bursts are named at a steady rate (WARN); a wake-up for nearly every submission at
// any rate, INFO below that rate, where the cost is small in absolute terms.
std::optional<Severity> woken_for_small_bursts(const Counters& c, const SqpollWindow& w) {
  if (w.offcpu_pct < thr(ThresholdId::SqpollOffcpuMinPct) ||
      !at_least(c.sqpoll_wakeups, ThresholdId::SqpollMinWakeups) || w.seconds <= 0 ||
      w.per_wakeup >= thr(ThresholdId::SqpollWakeupBatchBelow))
    return std::nullopt;
  const bool steady =
      static_cast<double>(c.sqpoll_wakeups) / w.seconds >= thr(ThresholdId::SqpollMinWakeupRate);
  if (steady) return Severity::Warn;
  if (w.per_wakeup <= thr(ThresholdId::SqpollWakeupEveryBelow)) return Severity::Info;
  return std::nullopt;
}

Finding small_bursts_finding(const Snapshot& snapshot, const Ring& ring, const SqpollWindow& w,
                             Severity severity) {
  const Counters& c = ring.counters;
  return Finding{
      .tag = kTagSqpoll,
      .severity = severity,
      .ring = ring.id,
      .opcode = std::nullopt,
      .message = fmt::format(
          "{}: the SQPOLL thread (tid {}) was off-CPU for {} of the {} the ring was watched "
          "and the program had to wake it {} times ({:.1f} a second), {:.1f} SQEs per wakeup: "
          "each burst paid an io_uring_enter() and a thread wakeup, the syscall SQPOLL is "
          "meant to remove.",
          ring_label(ring), ring.sq_tid, format_percent(w.offcpu_pct), format_duration(w.ns),
          format_count(c.sqpoll_wakeups), static_cast<double>(c.sqpoll_wakeups) / w.seconds,
          w.per_wakeup),
      .suggestion =
          "Raise sq_thread_idle (io_uring_params.sq_thread_idle, in milliseconds) above "
          "the usual gap between bursts so the thread is still polling when the next one "
          "comes, or drop IORING_SETUP_SQPOLL for bursty, low-rate traffic: a plain ring "
          "that submits each burst with one io_uring_submit() costs no more and keeps no "
          "kernel thread.",
      .evidence = {real_evidence("offcpu_pct", w.offcpu_pct),
                   count_evidence("sqpoll_offcpu_ns", c.sqpoll_offcpu_ns),
                   count_evidence("wall_ns", snapshot.wall_ns),
                   count_evidence("observed_ns", w.ns),
                   count_evidence("sqpoll_wakeups", c.sqpoll_wakeups),
                   real_evidence("sqes_per_wakeup", w.per_wakeup),
                   count_evidence("submissions", c.submissions),
                   count_evidence("sqpoll_sleeps", c.sqpoll_sleeps),
                   count_evidence("sqpoll_preempts", c.sqpoll_preempts)},
  };
}

// Never idle over a window long enough for it to have gone idle: a CPU spent by
// design. INFO, since that is what some programs buy SQPOLL for. A thread asleep
// through the whole window (-p on an idle program) shows no sleep either.
bool never_slept(const Ring& ring, const SqpollWindow& w) {
  return ring.counters.sqpoll_sleeps == 0 && ring.sqpoll_thread_seen_running() &&
         w.seconds >= thr(ThresholdId::SqpollBusyMinWindow);
}

Finding never_slept_finding(const Snapshot& snapshot, const Ring& ring, const SqpollWindow& w) {
  const Counters& c = ring.counters;
  return Finding{
      .tag = kTagSqpoll,
      .severity = Severity::Info,
      .ring = ring.id,
      .opcode = std::nullopt,
      .message = fmt::format(
          "{}: the SQPOLL thread (tid {}) never went to sleep in the {} window: it polled "
          "the SQ the whole time, keeping one CPU busy ({} submitted SQEs, off-CPU {} "
          "only through {} preemptions).",
          ring_label(ring), ring.sq_tid, format_duration(snapshot.wall_ns),
          format_count(c.submissions), format_percent(w.offcpu_pct),
          format_count(c.sqpoll_preempts)),
      .suggestion =
          "That is SQPOLL's trade: a CPU for no submit syscalls. If the program does not "
          "need it, lower sq_thread_idle so the thread sleeps in the pauses, or drop "
          "IORING_SETUP_SQPOLL; to keep it, pin the thread with IORING_SETUP_SQ_AFF and "
          "sq_thread_cpu on a core the application does not use.",
      .evidence = {count_evidence("sqpoll_sleeps", c.sqpoll_sleeps),
                   count_evidence("sqpoll_preempts", c.sqpoll_preempts),
                   count_evidence("sqpoll_offcpu_ns", c.sqpoll_offcpu_ns),
                   count_evidence("wall_ns", snapshot.wall_ns),
                   count_evidence("submissions", c.submissions)},
  };
}

// What the thread's sleeps cost the SQEs (SQ-WAIT has the finding): with the boundary on.
void add_sq_wait_evidence(Finding& f, const Snapshot& snapshot, const Ring& ring) {
  const Histogram& wait = ring.boundary.sq_wait;
  if (!snapshot.boundary_measured || wait.count() == 0) return;
  add_lag_evidence(f.evidence, "sq_wait_", wait);
}

}  // namespace

// Rings whose SQPOLL thread the tool never saw (sq_tid == 0) carry no thread numbers: a
// zero there is missing data, not a thread that never slept. Both checks need the
// window's length.
void rule_sqpoll(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (snapshot.wall_ns == 0) return;
  for (const Ring& ring : snapshot.rings) {
    if (!ring.sqpoll() || ring.sq_tid == 0) continue;
    const SqpollWindow w = sqpoll_window(snapshot, ring);
    if (const auto severity = woken_for_small_bursts(ring.counters, w)) {
      out.push_back(small_bursts_finding(snapshot, ring, w, *severity));
    } else if (never_slept(ring, w)) {
      out.push_back(never_slept_finding(snapshot, ring, w));
    } else {
      continue;
    }
    add_sq_wait_evidence(out.back(), snapshot, ring);
  }
}

}  // namespace uringscope::rules
