// SPDX-License-Identifier: MIT
// The counters block of a ring (everything the submission block and the op table do not
// show) and the note on untracked completions.
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "util/format.h"
#include "report/report.h"
#include "report/text_layout.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

// The counters table of one ring: a row for each counter shown, with the marker when a
// finding about the ring carries the row's tag.
class CounterRows {
 public:
  CounterRows(const Ring& ring, const std::vector<Finding>& findings, std::string_view indent)
      : ring_(ring), findings_(findings),
        table_({Align::Left, Align::Right, Align::Left}, std::string(indent) + "  ") {}

  bool concerns(std::string_view tag) const {
    return finding_concerns(findings_, {tag}, ring_.id, std::nullopt);
  }
  void add(bool shown, std::string label, std::string value, std::string detail = {},
           bool marked = false) {
    if (shown) table_.add_row({std::move(label), std::move(value), std::move(detail)}, marker_if(marked));
  }
  const TextTable& table() const { return table_; }

 private:
  const Ring& ring_;
  const std::vector<Finding>& findings_;
  TextTable table_;
};

std::string items(uint64_t n) { return format_count(n) + (n == 1 ? " item" : " items"); }

void add_completion_rows(CounterRows& rows, const Counters& c) {
  rows.add(c.cq_overflows, "CQ overflows", format_count(c.cq_overflows), {},
           rows.concerns(kTagOverflow));
  rows.add(c.multishot_cqes, "multishot CQEs", format_count(c.multishot_cqes));
  rows.add(c.untracked_completions, "untracked completions", format_count(c.untracked_completions));
  rows.add(c.inflight_map_drops, "in-flight table drops", format_count(c.inflight_map_drops));
  rows.add(c.failed_requests, "requests rejected before issue", format_count(c.failed_requests));
  rows.add(c.poll_armed || c.poll_armed_regular, "waited on poll, then retried",
           format_count(c.poll_armed),
           c.poll_armed_regular ? format_count(c.poll_armed_regular) + " on regular files" : "");
  rows.add(c.short_writes, "short writes", format_count(c.short_writes), {},
           rows.concerns(kTagShortWrite));
}

void add_task_work_rows(CounterRows& rows, const Counters& c) {
  rows.add(c.task_adds, "task work queued", format_count(c.task_adds));
  rows.add(c.task_work_runs || c.task_work_items, "task work runs", format_count(c.task_work_runs),
           items(c.task_work_items));
  rows.add(c.local_task_work_runs || c.local_task_work_items, "local task work runs",
           format_count(c.local_task_work_runs), items(c.local_task_work_items));
  // DEFER-TW is about lag, or about local work that never ran (then there is no lag,
  // only work still pending), so it marks whichever of the two lines is there.
  const bool defer_tw = rows.concerns(kTagDeferTw);
  rows.add(c.local_task_work_max_lag_ns, "local task work max lag",
           format_duration(c.local_task_work_max_lag_ns), {}, defer_tw);
  rows.add(c.local_task_work_pending_ns, "local task work pending at end (age)",
           format_duration(c.local_task_work_pending_ns), {},
           defer_tw && c.local_task_work_max_lag_ns == 0);
}

void add_owner_rows(CounterRows& rows, const Ring& ring) {
  const Counters& c = ring.counters;
  rows.add(c.cancelled_at_exit, "CQEs cancelled at owner exit", format_count(c.cancelled_at_exit));
  // The owner's workers serve all of its rings, so every ring of one process shows the
  // same number; the label says whose they are.
  rows.add(c.workers_distinct,
           ring.pid ? fmt::format("io-wq workers (pid {}, all rings)", ring.pid)
                    : std::string("io-wq workers (owner, all rings)"),
           format_count(c.workers_distinct), {}, rows.concerns(kTagWorkers));
  // Same rule as DEFER-TW: LEAK marks the suspected line, or the pending one alone.
  const bool leak = rows.concerns(kTagLeak);
  rows.add(c.leaks_suspected, "leaks suspected (stuck)", format_count(c.leaks_suspected), {}, leak);
  rows.add(c.leaks_pending, "leaks pending (waiting on an event)", format_count(c.leaks_pending),
           {}, leak && c.leaks_suspected == 0);
}

// An SQPOLL thread that never went off-CPU is news too (it burns a core), so the
// off-CPU line stays at zero once the thread was seen or a finding is about it.
void add_sqpoll_rows(CounterRows& rows, const Ring& ring, uint64_t window_ns) {
  const Counters& c = ring.counters;
  const bool sqpoll_finding = rows.concerns(kTagSqpoll);
  if (!ring.sqpoll() || !(ring.sq_tid || c.sqpoll_offcpu_ns || c.sqpoll_sleeps ||
                          c.sqpoll_preempts || c.sqpoll_wakeups || sqpoll_finding))
    return;
  std::string thread = ring.sq_tid ? fmt::format("SQPOLL thread (tid {})", ring.sq_tid)
                                   : std::string("SQPOLL thread");
  // "0ns off-CPU" for a thread asleep throughout would say the opposite of the truth.
  std::string value = format_duration(c.sqpoll_offcpu_ns);
  std::string share;
  if (!ring.sqpoll_thread_seen_running()) {
    value = "-";
    share = "not seen on a CPU in the window (asleep throughout)";
  } else if (window_ns > 0) {
    share = format_percent(100.0 * static_cast<double>(c.sqpoll_offcpu_ns) /
                           static_cast<double>(window_ns)) +
            " of the window";
  }
  rows.add(true, thread + " off-CPU", value, share, sqpoll_finding);
  rows.add(c.sqpoll_sleeps, "SQPOLL thread sleeps (idle)", format_count(c.sqpoll_sleeps));
  rows.add(c.sqpoll_preempts, "SQPOLL thread preemptions", format_count(c.sqpoll_preempts));
  rows.add(c.sqpoll_wakeups, "SQPOLL wake-up enter calls", format_count(c.sqpoll_wakeups));
}

}  // namespace

void render_counters(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent, uint64_t window_ns) {
  CounterRows rows(ring, findings, indent);
  add_completion_rows(rows, ring.counters);
  add_task_work_rows(rows, ring.counters);
  add_owner_rows(rows, ring);
  add_sqpoll_rows(rows, ring, window_ns);
  if (rows.table().empty()) return;
  out << indent << "counters\n";
  rows.table().write(out);
}

void render_untracked_note(std::ostream& out, const Counters& counters, std::string_view indent) {
  if (counters.untracked_completions == 0) return;
  uint64_t n = counters.untracked_completions;
  std::string body = fmt::format(
      "{} completion{} untracked (submitted before attach, or dropped from the in-flight "
      "table); latency statistics cover tracked requests only.",
      format_count(n), n == 1 ? " was" : "s were");
  std::string label = std::string(indent) + "note: ";
  write_wrapped(out, label, std::string(label.size(), ' '), body);
}

}  // namespace uringscope
