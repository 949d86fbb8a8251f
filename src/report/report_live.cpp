// SPDX-License-Identifier: MIT
// The live view (-i): one fixed-width block per interval, iostat style. TextTable sizes
// its columns to each table's content, which would shift every block differently; here
// widths are fixed and every cell is formatted to fit them, so a reader can compare
// blocks line by line.
#include <cmath>
#include <ctime>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/format.h"
#include "util/utf8.h"
#include "report/live.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

struct Column {
  std::string_view title;
  std::size_t width;
  bool left;
};

// ring: "#id comm[pid]" leaves the comm (up to 15 characters) 9 ("#12 ", "[4194304]") to
// 13 ("#0 ", "[1234]") of 22; op: the longest IORING_OP_* name (FIXED_FD_INSTALL) is 16;
// numbers: the live formatters never exceed 6 characters, format_duration stays within
// 7 below 10^6 s (11 days), more than any latency of an interval in practice.
constexpr Column kColumns[] = {
    {"ring", 22, true},  {"op", 16, true},    {"cqe/s", 7, false},
    {"p50", 7, false},   {"p99", 7, false},   {"punt", 6, false},
    {"errors", 6, false}, {"B/s", 6, false}, {"batch", 6, false}, {"cq-ovf", 6, false},
    {"reap99", 7, false},
};
constexpr std::size_t kNumColumns = std::size(kColumns);

// Two blanks after the text columns, one before each number: numbers are right-aligned
// and fit their width, so at least one blank always separates two of them.
constexpr std::size_t gap_before(std::size_t column) {
  return column == 0 ? 0 : column <= 2 ? 2 : 1;
}

constexpr std::size_t line_width() {
  std::size_t w = 0;
  for (std::size_t c = 0; c < kNumColumns; ++c) w += gap_before(c) + kColumns[c].width;
  return w;
}

std::string format_row(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t c = 0; c < kNumColumns; ++c) {
    const Column& col = kColumns[c];
    const std::string empty;
    const std::string& cell = c < cells.size() ? cells[c] : empty;
    line.append(gap_before(c), ' ');
    std::size_t pad = cell.size() < col.width ? col.width - cell.size() : 0;
    if (!col.left) line.append(pad, ' ');
    line += cell;
    if (col.left) line.append(pad, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// The live view's ring column, "#0 fio[4123]": the id for the final report, comm and pid
// for the reader. Only the comm is shortened to fit: id and pid are what identify the ring.
std::string live_ring_cell(const Ring& ring) {
  if (ring.source == RingSource::CatchAll) return "other rings";
  std::string id = fmt::format("#{}", ring.id);
  std::string pid = ring.pid ? fmt::format("[{}]", ring.pid) : std::string();
  if (ring.comm.empty() && pid.empty()) return id;
  const std::size_t fixed = id.size() + 1 + pid.size();
  const std::size_t room = kColumns[0].width > fixed ? kColumns[0].width - fixed : 0;
  return id + " " + ring.comm.substr(0, utf8_cut_before(ring.comm, room)) + pid;
}

// What the op rows cannot show on their own: a ring doing something without any op row
// (blocked in io_uring_enter, running task work, untracked CQEs). Time-valued counters
// (an SQPOLL thread asleep accumulates off-CPU time) and ring creation are not activity.
bool ring_active(const Ring& ring) {
  const Counters& c = ring.counters;
  return !ring.ops.empty() || c.enter_calls || c.completions || c.cq_overflows ||
         c.inflight_map_drops || c.task_adds || c.task_work_runs || c.local_task_work_runs ||
         c.short_writes || c.sqpoll_wakeups;
}

std::string batch_cell(const Ring& ring) {
  const Counters& c = ring.counters;
  if (c.enter_submit_calls > 0) {
    double batch = ring.avg_batch();
    // Batches are bounded by the SQ size (32768): 0 decimals from 100 keep it in width.
    return format_fixed(batch, batch >= 99.95 ? 0 : 1);
  }
  if (ring.sqpoll() && c.submissions > 0) return "sqpoll";
  return "-";
}

std::string wall_clock_now() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  if (!localtime_r(&now, &local)) return "--:--:--";
  return fmt::format("{:02}:{:02}:{:02}", local.tm_hour, local.tm_min, local.tm_sec);
}

// Three significant digits with a unit, trailing zeros dropped (like format_duration);
// value >= 99,999.5.
std::string si(double value) {
  static constexpr std::string_view kUnits[] = {"k", "M", "G", "T", "P", "E"};
  double scaled = value;
  for (std::string_view unit : kUnits) {
    scaled /= 1000.0;
    // Rounded to three digits it must stay below 1000 (999.6k is "1M", not "1000k").
    if (scaled >= 999.5 && unit != kUnits[std::size(kUnits) - 1]) continue;
    int decimals = scaled < 9.995 ? 2 : scaled < 99.95 ? 1 : 0;
    std::string text = fmt::format("{:.{}f}", scaled, decimals);
    if (text.find('.') != std::string::npos) {
      text.erase(text.find_last_not_of('0') + 1);
      if (text.back() == '.') text.pop_back();
    }
    return text + std::string(unit);
  }
  return "-";  // not reached
}

std::string live_latency(const Histogram& h, double q) {
  return h.count() ? format_duration(h.quantile_ns(q)) : std::string("-");
}

std::string live_per_second(uint64_t n, double seconds) {
  return seconds > 0 ? format_live_rate(static_cast<double>(n) / seconds) : std::string("-");
}

// The op's cells of its row (op through B/s); the ring's cells are the caller's.
void op_cells(std::vector<std::string>& row, const OpStats& op, double seconds) {
  row[1] = opcode_name(op.opcode);
  row[2] = live_per_second(op.completed, seconds);
  row[3] = live_latency(op.latency, 0.5);
  row[4] = live_latency(op.latency, 0.99);
  row[5] = op.submitted ? format_percent(op.punt_pct()) : std::string("-");
  row[6] = format_live_count(op.errors);
  row[7] = opcode_moves_data(op.opcode) && seconds > 0
               ? format_live_count(static_cast<uint64_t>(std::llround(static_cast<double>(op.bytes) / seconds)))
               : std::string("-");
}

}  // namespace

std::string format_live_rate(double per_second) {
  if (!(per_second > 0)) return "0.0";  // negative or NaN: no rate
  // A request every other second must not read as 0: one decimal below 1000.
  if (per_second < 999.95) return fmt::format("{:.1f}", per_second);
  if (per_second < 99'999.5) return format_count(static_cast<uint64_t>(std::llround(per_second)));
  return si(per_second);
}

std::string format_live_count(uint64_t n) {
  if (n < 100'000) return format_count(n);
  return si(static_cast<double>(n));
}

void render_live_header(std::ostream& out, double interval_s) {
  const uint64_t interval_ns =
      interval_s > 0 ? static_cast<uint64_t>(std::llround(interval_s * 1e9)) : 0;
  out << "uringscope live: every " << format_duration(interval_ns)
      << "; the full report and findings follow when the run ends\n";
  out << "  cqe/s: completions per second; p50, p99: latency of the requests completed in the"
         " interval\n";
  out << "  punt: submissions punted to io-wq; errors: error CQEs (-EAGAIN excluded);\n"
         "  B/s: bytes moved per second by ops that move data\n";
  out << "  per ring: batch = SQEs per submitting io_uring_enter, cq-ovf = CQ overflows,\n"
         "  reap99 = p99 of the CQ reap lag (CQE posted to reaped; none with --no-boundary)\n";
  std::vector<std::string> titles;
  for (const Column& col : kColumns) titles.emplace_back(col.title);
  out << format_row(titles) << '\n';
}

void render_live_interval(std::ostream& out, const Snapshot& delta, uint64_t since_start_ns) {
  render_live_interval(out, delta, since_start_ns, wall_clock_now());
}

void render_live_interval(std::ostream& out, const Snapshot& delta, uint64_t since_start_ns,
                          std::string_view wall_clock) {
  // The block's first line doubles as a ruler, so blocks stand apart without blank lines.
  std::string stamp = fmt::format("-- +{:.1f}s  {}  interval {} ",
                                  static_cast<double>(since_start_ns) / 1e9, wall_clock,
                                  format_duration(delta.wall_ns));
  if (stamp.size() < line_width()) stamp.append(line_width() - stamp.size(), '-');
  out << stamp << '\n';

  // Rates over the interval's measured length, not the nominal -i: a late wakeup makes
  // an interval longer, and it holds correspondingly more events.
  const double seconds = static_cast<double>(delta.wall_ns) / 1e9;

  bool any = false;
  for (const Ring& ring : delta.rings) {
    if (!ring_active(ring)) continue;
    any = true;
    const Counters& c = ring.counters;
    // Ring-level cells ride on the ring's first row only.
    bool first = true;
    auto ring_cells = [&](std::vector<std::string>& row) {
      if (!first) return;
      row[0] = live_ring_cell(ring);
      row[8] = batch_cell(ring);
      row[9] = format_live_count(c.cq_overflows);
      // Empty, not "-", with --no-boundary: nothing was measured, not nothing seen.
      if (delta.boundary_measured) row[10] = live_latency(ring.boundary.reap_lag, 0.99);
      first = false;
    };
    for (const OpStats& op : ring.ops) {
      std::vector<std::string> row(kNumColumns);
      ring_cells(row);
      op_cells(row, op, seconds);
      out << format_row(row) << '\n';
    }
    // CQEs that no op row holds (their request and opcode were unknown), or a ring with
    // no op row at all: one "-" row, so the ring and its batch and overflows still show.
    uint64_t in_ops = 0;
    for (const OpStats& op : ring.ops) in_ops += op.completed;
    if (ring.ops.empty() || c.completions > in_ops) {
      std::vector<std::string> row(kNumColumns);
      for (std::size_t col = 1; col <= 7; ++col) row[col] = "-";
      ring_cells(row);
      row[2] = live_per_second(c.completions > in_ops ? c.completions - in_ops : 0, seconds);
      out << format_row(row) << '\n';
    }
  }
  if (!any) out << "(idle)\n";
}

}  // namespace uringscope
