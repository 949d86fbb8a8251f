// SPDX-License-Identifier: MIT
// The rings and processes tabs.
#include <map>

#include <fmt/format.h>

#include "top/tabs.h"
#include "uringscope/opcodes.h"
#include "util/format.h"

namespace uringscope::top {
namespace {

Histogram ring_latency(const Ring& ring) {
  Histogram h;
  for (const OpStats& op : ring.ops) h += op.latency;
  return h;
}

uint64_t ring_bytes(const Ring& ring) {
  uint64_t bytes = 0;
  for (const OpStats& op : ring.ops) bytes += op.bytes;
  return bytes;
}

std::string ring_name(const Ring& ring) {
  if (ring.source == RingSource::CatchAll) return "other rings";
  // A fold of destroyed rings (--keep-rings): how many, and whose.
  switch (ring.fold) {
    case FoldScope::Process:
      return fmt::format("#{} {}[{}] x{}", ring.id, printable(ring.comm), ring.pid, ring.folded_rings);
    case FoldScope::Command:
      return fmt::format("#{} {}[*] x{}", ring.id, printable(ring.comm), ring.folded_rings);
    case FoldScope::All: return fmt::format("#{} others x{}", ring.id, ring.folded_rings);
    case FoldScope::Ring: break;
  }
  return fmt::format("#{} {}[{}]", ring.id, printable(ring.comm), ring.pid);
}

std::string batch_cell(const Ring& ring) {
  if (ring.counters.enter_submit_calls > 0) {
    const double batch = ring.avg_batch();
    return format_fixed(batch, batch >= 99.95 ? 0 : 1);
  }
  return ring.sqpoll() && ring.counters.submissions > 0 ? "sqpoll" : "-";
}

std::string depth_cell(const Ring& ring, bool measured) {
  if (!measured || ring.boundary.cq_depth_samples == 0) return "-";
  return format_fixed(ring.boundary.cq_depth_avg(), 1);
}

Row ring_row(const Ring& total, const Ring* now, double seconds, bool measured) {
  static const Ring idle;
  const Ring& live = now ? *now : idle;
  const Counters& c = total.counters;
  const Histogram lat = ring_latency(total);
  Row row;
  row.id = fmt::format("{:020}:{}", total.ctx, total.id);
  row.cells = {ring_name(total),
               rate_cell(live.counters.completions, seconds),
               count_cell(c.completions),
               batch_cell(total),
               latency_cell(lat, 0.99),
               percent_cell(c.punted, c.submissions),
               depth_cell(total, measured),
               count_cell(c.cq_overflows),
               sqpoll_state(live)};
  row.keys = {0,
              per_second(live.counters.completions, seconds),
              static_cast<double>(c.completions),
              total.avg_batch(),
              static_cast<double>(lat.count() ? lat.quantile_ns(0.99) : 0),
              c.submissions ? static_cast<double>(c.punted) / static_cast<double>(c.submissions) : 0,
              total.boundary.cq_depth_avg(),
              static_cast<double>(c.cq_overflows),
              static_cast<double>(live.counters.sqpoll_wakeups)};
  row.push = ring_filter(total);
  const std::string flags = fmt::format("{}", fmt::join(setup_flag_names(total.setup_flags), ","));
  row.detail = {fmt::format("{}  fd={}  sq={} cq={}  flags: {}", ring_name(total),
                            total.fd >= 0 ? std::to_string(total.fd) : "?", total.sq_entries,
                            total.cq_entries, flags.empty() ? "(none)" : flags)};
  return row;
}

struct Process {
  uint32_t pid = 0;
  std::string comm;
  std::size_t rings = 0;
  Counters total, interval;
  Histogram latency;
  uint64_t interval_bytes = 0;
};

std::map<uint32_t, Process> processes_of(const TabData& data) {
  std::map<uint32_t, Process> procs;
  for (const Ring& ring : data.total.rings) {
    Process& p = procs[ring.pid];
    p.pid = ring.pid;
    if (p.comm.empty()) p.comm = ring.comm;
    p.rings += ring.folded_rings ? ring.folded_rings : 1;  // a fold: the rings it sums
    p.total += ring.counters;
    p.latency += ring_latency(ring);
    if (const Ring* now = ring_by_id(data.interval, ring.id)) {
      p.interval += now->counters;
      p.interval_bytes += ring_bytes(*now);
    }
  }
  return procs;
}

uint64_t workers_of(const Snapshot& snap, uint32_t pid) {
  for (const ProcessWorkers& w : snap.workers)
    if (w.pid == pid) return w.distinct;
  return 0;
}

}  // namespace

std::string_view tab_title(Tab tab) {
  switch (tab) {
    case Tab::Rings: return "rings";
    case Tab::Ops: return "ops";
    case Tab::Files: return "files";
    case Tab::Processes: return "processes";
    case Tab::Findings: return "findings";
    case Tab::Flame: return "flame";
  }
  return "";
}

std::string sqpoll_state(const Ring& ring) {
  if (!ring.sqpoll()) return "-";
  const Counters& c = ring.counters;
  if (c.sqpoll_wakeups) return "woken";
  if (c.sqpoll_sleeps) return "slept";
  if (c.submissions) return "polling";
  return "idle";
}

Table rings_table(const TabData& data) {
  Table t;
  t.columns = {{"ring", 20, true}, {"cqe/s", 7}, {"cqes", 7}, {"batch", 6}, {"p99", 7},
               {"punt", 6},        {"cq-dep", 6}, {"ovf", 6},  {"sqpoll", 7, true}};
  t.default_sort = 2;
  t.empty_note = "no ring has done anything since the baseline";
  const double seconds = seconds_of(data.interval);
  for (const Ring& ring : data.total.rings) {
    t.rows.push_back(ring_row(ring, ring_by_id(data.interval, ring.id), seconds,
                              data.total.boundary_measured));
  }
  return t;
}

Table processes_table(const TabData& data) {
  Table t;
  t.columns = {{"process", 18, true}, {"rings", 5}, {"cqe/s", 7}, {"cqes", 7}, {"p99", 7},
               {"punt", 6},           {"errors", 6}, {"B/s", 6},  {"iowq", 5}};
  t.default_sort = 3;
  t.empty_note = "no process has done anything since the baseline";
  const double seconds = seconds_of(data.interval);
  for (const auto& [pid, p] : processes_of(data)) {
    Row row;
    row.id = fmt::format("{:010}", pid);
    const uint64_t workers = workers_of(data.total, pid);
    const uint64_t bps = static_cast<uint64_t>(per_second(p.interval_bytes, seconds));
    row.cells = {fmt::format("{}[{}]", printable(p.comm), pid),
                 std::to_string(p.rings),
                 rate_cell(p.interval.completions, seconds),
                 count_cell(p.total.completions),
                 latency_cell(p.latency, 0.99),
                 percent_cell(p.total.punted, p.total.submissions),
                 count_cell(p.total.errors),
                 seconds > 0 ? count_cell(bps) : "-",
                 count_cell(workers)};
    row.keys = {0, static_cast<double>(p.rings), per_second(p.interval.completions, seconds),
                static_cast<double>(p.total.completions),
                static_cast<double>(p.latency.count() ? p.latency.quantile_ns(0.99) : 0),
                p.total.submissions ? static_cast<double>(p.total.punted) / static_cast<double>(p.total.submissions) : 0,
                static_cast<double>(p.total.errors), static_cast<double>(bps),
                static_cast<double>(workers)};
    row.push = pid_filter(pid, p.comm);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace uringscope::top
