// SPDX-License-Identifier: MIT
// Snapshot -> exposition text, OpenMetrics 1.0 or the Prometheus 0.0.4 text format. Pure:
// no I/O, no clock, so the unit tests check it against the spec rules directly.
//
// A snapshot is cumulative from the start of the window, so every count is a counter
// that starts at 0 and only grows for as long as uringscope runs. Series are labelled by
// the ring's report id (stable for the ring's life), pid and comm, or ring="other" for
// the rings summed together (ring_series.h), plus op where the
// number is per opcode. Numbers that are sums of per-op series (a ring's submissions,
// punts, errors, ...) are not repeated per ring: sum(...) by (ring) gives them, and one
// number exposed twice is one number that can disagree with itself.
#include <algorithm>
#include <string>
#include <vector>

#include "metrics/exposition.h"
#include "metrics/boundary_metrics.h"
#include "metrics/file_metrics.h"
#include "metrics/ring_series.h"
#include "metrics/exposition_writer.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"
#include "util/errno_name.h"

namespace uringscope {
namespace {

using exposition::Family;
using exposition::Labels;
using exposition::seconds_from_ns;
using exposition::Type;
using exposition::Writer;

Labels ring_labels(const Ring& ring) {
  if (ring.fold != FoldScope::Ring) return {{"ring", "other"}, {"pid", ""}, {"comm", ""}};
  return {{"ring", std::to_string(ring.id)},
          {"pid", std::to_string(ring.pid)},
          {"comm", ring.comm}};
}

Labels op_labels(const Ring& ring, const OpStats& op) {
  Labels l = ring_labels(ring);
  l.emplace_back("op", opcode_name(op.opcode));
  return l;
}

std::string join_flags(uint32_t flags) {
  std::string out;
  for (const std::string& name : setup_flag_names(flags)) {
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

// A counter series appears at its first non-zero value, and a counter never goes back to
// zero, so it never disappears again: a READ ring has no zero-copy or multishot series.
// The few a user divides by (submitted, completed, errors) and enter_calls are there from
// the start. Gauges and histograms are always there.
enum class Presence { Always, OnceNonZero };

void counter_value(Writer& w, const Labels& labels, uint64_t n, Presence presence) {
  if (n || presence == Presence::Always) w.value(labels, n);
}
void counter_seconds(Writer& w, const Labels& labels, uint64_t ns, Presence presence) {
  if (ns || presence == Presence::Always) w.value(labels, seconds_from_ns(ns));
}

// One family per OpStats counter of kOpCounterFields, over every (ring, op), except
// `punted`, which is exported split by reason. A nanosecond sum is exported in seconds.
struct OpCounter {
  Family family;
  uint64_t OpStats::*member;
  bool nanoseconds = false;
  Presence presence = Presence::OnceNonZero;
};

constexpr OpCounter kOpCounters[] = {
    {{"uringscope_requests_submitted", Type::Counter, "",
      "Requests (SQEs) submitted, seen at the io_uring submit tracepoint."},
     &OpStats::submitted, false, Presence::Always},
    {{"uringscope_requests_completed", Type::Counter, "",
      "CQEs posted: one per request, plus multishot intermediates, overflowed CQEs and "
      "completions of requests submitted before attach."},
     &OpStats::completed, false, Presence::Always},
    {{"uringscope_untracked_completions", Type::Counter, "",
      "CQEs of requests whose submission was not seen (submitted before attach): counted, "
      "without latency."},
     &OpStats::untracked},
    {{"uringscope_request_errors", Type::Counter, "",
      "CQEs with res < 0, -EAGAIN excluded."},
     &OpStats::errors, false, Presence::Always},
    {{"uringscope_requests_failed", Type::Counter, "",
      "Requests the kernel rejected before issue (io_uring_req_failed: a bad SQE)."},
     &OpStats::failed},
    {{"uringscope_multishot_cqes", Type::Counter, "",
      "CQEs posted with IORING_CQE_F_MORE (multishot intermediates)."},
     &OpStats::multishot_cqes},
    {{"uringscope_requests_poll_armed", Type::Counter, "",
      "Requests whose nonblocking attempt could not complete, so the kernel armed "
      "internal poll and retried on readiness."},
     &OpStats::poll_armed},
    {{"uringscope_requests_poll_armed_regular_file", Type::Counter, "",
      "Poll-armed requests on regular files (their retry goes to io-wq)."},
     &OpStats::poll_armed_regular},
    {{"uringscope_requests_cancelled_at_exit", Type::Counter, "",
      "-ECANCELED CQEs posted while the ring's owner was exiting."},
     &OpStats::cancelled_at_exit},
    {{"uringscope_zero_copy_results", Type::Counter, "",
      "Result CQEs (with IORING_CQE_F_MORE) of zero-copy sends; the send ends at its "
      "notification."},
     &OpStats::zc_results},
    {{"uringscope_zero_copy_result_seconds", Type::Counter, "seconds",
      "Sum of the times from submit to the result CQE of zero-copy sends."},
     &OpStats::zc_result_sum_ns, true},
    {{"uringscope_zero_copy_notifications", Type::Counter, "",
      "IORING_CQE_F_NOTIF CQEs: the kernel is done with a zero-copy send's buffer."},
     &OpStats::zc_notifications},
    {{"uringscope_bytes", Type::Counter, "bytes",
      "Bytes moved: the sum of the positive results of reads, writes, sends, receives "
      "(vectored, fixed, zero-copy and multishot forms), splice and tee."},
     &OpStats::bytes},
};

// Every counter of the table has a family, and only those do: a counter added to
// kOpCounterFields without one stops the build here.
static_assert([] {
  for (const OpCounterField& field : kOpCounterFields) {
    if (field.member == &OpStats::punted) continue;
    bool found = false;
    for (const OpCounter& oc : kOpCounters) found |= oc.member == field.member;
    if (!found) return false;
  }
  return std::size(kOpCounters) + 1 == kOpCounterFields.size();
}(), "an OpStats counter has no metrics family (or a family has no counter)");

// One family per ring counter that has no per-op breakdown.
struct RingCounter {
  Family family;
  uint64_t Counters::*member;
  bool ns_to_seconds = false;
  Presence presence = Presence::OnceNonZero;  // a gauge is always there
};

const RingCounter kRingCounters[] = {
    {{"uringscope_enter_calls", Type::Counter, "", "io_uring_enter() calls on the ring."},
     &Counters::enter_calls, false, Presence::Always},
    {{"uringscope_enter_submit_calls", Type::Counter, "",
      "io_uring_enter() calls that asked to submit (to_submit > 0)."},
     &Counters::enter_submit_calls},
    {{"uringscope_enter_to_submit_sqes", Type::Counter, "",
      "Sum of to_submit over io_uring_enter() calls: SQEs the callers asked to submit."},
     &Counters::to_submit_sum},
    {{"uringscope_cq_overflows", Type::Counter, "",
      "CQEs that did not fit in the CQ ring and went to the overflow list."},
     &Counters::cq_overflows},
    {{"uringscope_inflight_table_drops", Type::Counter, "",
      "Tracked requests evicted from uringscope's in-flight table (their latency is lost)."},
     &Counters::inflight_map_drops},
    {{"uringscope_short_writes", Type::Counter, "",
      "Nonblocking buffered writes that wrote only part of the data."},
     &Counters::short_writes},
    {{"uringscope_task_work_adds", Type::Counter, "", "Completions queued as task work."},
     &Counters::task_adds},
    {{"uringscope_task_work_runs", Type::Counter, "", "Task-work passes that ran items."},
     &Counters::task_work_runs},
    {{"uringscope_task_work_items", Type::Counter, "", "Task-work items run."},
     &Counters::task_work_items},
    {{"uringscope_local_task_work_runs", Type::Counter, "",
      "DEFER_TASKRUN local task-work passes that ran items."},
     &Counters::local_task_work_runs},
    {{"uringscope_local_task_work_items", Type::Counter, "",
      "DEFER_TASKRUN local task-work items run."},
     &Counters::local_task_work_items},
    {{"uringscope_local_task_work_max_lag_seconds", Type::Gauge, "seconds",
      "Longest wait of DEFER_TASKRUN local work from queueing to running, so far."},
     &Counters::local_task_work_max_lag_ns, true},
    {{"uringscope_local_task_work_pending_seconds", Type::Gauge, "seconds",
      "Age of DEFER_TASKRUN local work still waiting to run."},
     &Counters::local_task_work_pending_ns, true},
    {{"uringscope_sqpoll_offcpu_seconds", Type::Counter, "seconds",
      "Time the ring's SQPOLL thread spent switched out."},
     &Counters::sqpoll_offcpu_ns, true},
    {{"uringscope_sqpoll_sleeps", Type::Counter, "",
      "Times the SQPOLL thread switched out voluntarily (went idle)."},
     &Counters::sqpoll_sleeps},
    {{"uringscope_sqpoll_preempts", Type::Counter, "",
      "Times the SQPOLL thread was preempted."},
     &Counters::sqpoll_preempts},
    {{"uringscope_sqpoll_wakeups", Type::Counter, "",
      "io_uring_enter() calls with IORING_ENTER_SQ_WAKEUP."},
     &Counters::sqpoll_wakeups},
    {{"uringscope_leaks_suspected", Type::Gauge, "",
      "Requests in flight past the leak age that were not waiting on any event."},
     &Counters::leaks_suspected},
    {{"uringscope_leaks_pending", Type::Gauge, "",
      "Requests in flight past the leak age that were waiting on an event."},
     &Counters::leaks_pending},
    {{"uringscope_aux_cqes_by_request", Type::Counter, "",
      "CQEs posted without a request pointer, matched through io_req_post_cqe's request."},
     &Counters::aux_cqes_by_request},
};


void render_globals(Writer& w, const Snapshot& snap) {
  w.begin({"uringscope_build", Type::Info, "", "uringscope's version."});
  w.value({{"version", snap.tool_version}}, 1);

  w.begin({"uringscope_kernel", Type::Info, "",
           "The traced kernel's release and uringscope's support tier on it."});
  w.value({{"release", snap.kernel.release}, {"tier", std::string(tier_name(snap.kernel.tier))}}, 1);

  w.begin({"uringscope_feature_enabled", Type::Gauge, "",
           "1 when the tracing feature works on this kernel, 0 when it is off (see "
           "uringscope --version for why)."});
  for (const FeatureState& f : snap.kernel.features) w.value({{"feature", f.name}}, f.enabled ? 1 : 0);

  w.begin({"uringscope_window_seconds", Type::Gauge, "seconds",
           "Length of the observation window so far."});
  w.value({}, seconds_from_ns(snap.wall_ns));

  w.begin({"uringscope_rings", Type::Gauge, "",
           "io_uring rings seen in the window, with series of their own or not."});
  w.value({}, rings_seen(snap));

  w.begin({"uringscope_tool_losses", Type::Counter, "",
           "Events uringscope could not record exactly because a table inside the kernel "
           "was full or a value was out of range; each degrades what the other numbers mean."});
  for (const ToolField& loss : kToolFields) w.value({{"kind", std::string(loss.name)}}, snap.tool.*loss.member);

  w.begin({"uringscope_leak_age_threshold_seconds", Type::Gauge, "seconds",
           "In flight longer than this counts as a suspected or pending leak (--leak-age)."});
  w.value({}, seconds_from_ns(snap.leak.threshold_ns));

  w.begin({"uringscope_leak_oldest_seconds", Type::Gauge, "seconds",
           "Age of the oldest request in flight past the leak age, 0 when none."});
  w.value({}, seconds_from_ns(snap.leak.oldest_ns));

  w.begin({"uringscope_iowq_workers", Type::Gauge, "",
           "Distinct io-wq worker threads (iou-wrk) of the process seen running."});
  std::vector<ProcessWorkers> workers = snap.workers;
  std::sort(workers.begin(), workers.end(),
            [](const ProcessWorkers& a, const ProcessWorkers& b) { return a.pid < b.pid; });
  // Two records of one pid would be one series twice: keep the first.
  workers.erase(std::unique(workers.begin(), workers.end(),
                            [](const ProcessWorkers& a, const ProcessWorkers& b) { return a.pid == b.pid; }),
                workers.end());
  for (const ProcessWorkers& pw : workers) w.value({{"pid", std::to_string(pw.pid)}}, pw.distinct);
}

void render_rings(Writer& w, const std::vector<RingView>& views) {
  w.begin({"uringscope_ring", Type::Info, "",
           "One per ring: its fd (empty when unknown), SQ/CQ sizes, setup flags and how "
           "uringscope found it."});
  for (const RingView& v : views) {
    const Ring* ring = v.ring;
    if (ring->fold != FoldScope::Ring) continue;  // "other" is no one ring
    Labels l = ring_labels(*ring);
    l.emplace_back("fd", ring->fd >= 0 ? std::to_string(ring->fd) : "");
    l.emplace_back("sq_entries", std::to_string(ring->sq_entries));
    l.emplace_back("cq_entries", std::to_string(ring->cq_entries));
    l.emplace_back("flags", join_flags(ring->setup_flags));
    l.emplace_back("source", std::string(ring_source_name(ring->source)));
    w.value(l, 1);
  }

  for (const RingCounter& rc : kRingCounters) {
    w.begin(rc.family);
    const Presence presence = rc.family.type == Type::Counter ? rc.presence : Presence::Always;
    for (const RingView& v : views) {
      const uint64_t n = v.ring->counters.*rc.member;
      if (rc.ns_to_seconds) {
        counter_seconds(w, ring_labels(*v.ring), n, presence);
      } else {
        counter_value(w, ring_labels(*v.ring), n, presence);
      }
    }
  }

  // A ring's completions minus its ops' completions: CQEs that carried neither a known
  // request nor an opcode, which no op series can count.
  w.begin({"uringscope_unattributed_completions", Type::Counter, "",
           "CQEs of the ring that carried neither a known request nor an opcode, so no op "
           "series counts them."});
  for (const RingView& v : views) {
    const Ring* ring = v.ring;
    uint64_t by_ops = 0;
    for (const OpStats& op : v.ops) by_ops += op.completed;
    const uint64_t all = ring->counters.completions;
    counter_value(w, ring_labels(*ring), all > by_ops ? all - by_ops : 0, Presence::OnceNonZero);
  }
}

void render_ops(Writer& w, const std::vector<RingView>& views) {
  for (const OpCounter& oc : kOpCounters) {
    w.begin(oc.family);
    for (const RingView& v : views) {
      for (const OpStats& op : v.ops) {
        if (oc.nanoseconds)
          counter_seconds(w, op_labels(*v.ring, op), op.*oc.member, oc.presence);
        else
          counter_value(w, op_labels(*v.ring, op), op.*oc.member, oc.presence);
      }
    }
  }

  // Split by reason only: the reasons add up to the op's punts, and sum without (reason)
  // gives them back.
  w.begin({"uringscope_requests_punted", Type::Counter, "",
           "Requests handed to io-wq worker threads, by why: forced (IOSQE_ASYNC), hashed "
           "(buffered writes, serialized per inode), regular_file (typically a page-cache "
           "miss), eagain (the nonblocking attempt returned -EAGAIN and no poll was possible)."});
  for (const RingView& v : views) {
    const Ring* ring = v.ring;
    for (const OpStats& op : v.ops) {
      for (const PuntReasonField& reason : kPuntReasonFields) {
        Labels l = op_labels(*ring, op);
        l.emplace_back("reason", std::string(reason.name));
        counter_value(w, l, op.punt_reasons.*reason.member, Presence::OnceNonZero);
      }
    }
  }

  w.begin({"uringscope_request_errors_by_errno", Type::Counter, "",
           "Error CQEs by errno name (the errors of an op add up to "
           "uringscope_request_errors unless uringscope's errno table filled up)."});
  for (const RingView& v : views) {
    const Ring* ring = v.ring;
    for (const OpStats& op : v.ops) {
      std::vector<ErrnoCount> errnos = op.errnos;
      std::sort(errnos.begin(), errnos.end(),
                [](const ErrnoCount& a, const ErrnoCount& b) { return a.err < b.err; });
      for (std::size_t i = 0; i < errnos.size(); ++i) {
        if (i && errnos[i].err == errnos[i - 1].err) continue;  // one series per errno
        Labels l = op_labels(*ring, op);
        l.emplace_back("errno", errno_name(errnos[i].err));
        w.value(l, errnos[i].count);
      }
    }
  }

  w.begin({"uringscope_request_latency_seconds", Type::Histogram, "seconds",
           "Time from submission to the final CQE, tracked requests only. Buckets are the "
           "kernel's log2 nanosecond buckets: le is 2^(i+1) ns, 256 ns to 68.7 s."});
  for (const RingView& v : views) {
    const Ring* ring = v.ring;
    for (const OpStats& op : v.ops) w.histogram(op_labels(*ring, op), op.latency);
  }
}

}  // namespace

std::string_view content_type(ExpositionFormat format) {
  return format == ExpositionFormat::OpenMetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

std::string latency_bucket_le(std::size_t i) { return seconds_from_ns(bucket_upper_ns(i)); }

std::string render_exposition(const Snapshot& snap, ExpositionFormat format) {
  // Ascending ring id and opcode, so series come out in one order every scrape.
  const std::vector<RingView> rings = ring_views(snap);

  std::string out;
  out.reserve(4096 + rings.size() * 8192);
  Writer w(format, out);
  render_globals(w, snap);
  render_rings(w, rings);
  render_ops(w, rings);
  std::vector<FileSeriesRing> files;
  for (const RingView& v : rings) files.push_back({ring_labels(*v.ring), &v.ring->files});
  render_file_metrics(w, files);
  if (snap.boundary_measured) {
    BoundarySeries series;
    for (const RingView& v : rings) series.push_back({ring_labels(*v.ring), &v.ring->boundary, v.ring->sqpoll()});
    render_boundary_metrics(w, series);
  }
  if (format == ExpositionFormat::OpenMetrics) out += "# EOF\n";
  return out;
}

}  // namespace uringscope
