// SPDX-License-Identifier: MIT
// The run-level sections of the text report, after the rings: leaks, io-wq workers,
// what --check covered, and the tool's own losses.
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "util/format.h"
#include "report/ring_layout.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"
#include "report/report.h"
#include "report/text_layout.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

// Leak rows listed; the count of the rest follows, the JSON report carries them all.
constexpr std::size_t kLeakRows = 10;

const Ring* ring_by_id(const Snapshot& snap, uint32_t id) {
  for (const Ring& ring : snap.rings)
    if (ring.id == id) return &ring;
  return nullptr;
}

// The leak table's ring column: "#0", or "other" for the catch-all ring, whose id means
// nothing to the reader.
std::string leak_ring_cell(const Snapshot& snap, uint32_t id) {
  const Ring* ring = ring_by_id(snap, id);
  if (ring && ring->source == RingSource::CatchAll) return "other";
  return fmt::format("#{}", id);
}

// Whether a WORKERS finding points at this process: through its ring, else through an
// integer "pid" evidence; a ring-less finding without one concerns every process.
bool workers_finding_concerns(const Snapshot& snap, const Finding& f, uint32_t pid) {
  if (f.tag != kTagWorkers) return false;
  if (f.grouped()) {
    return std::any_of(f.rings.begin(), f.rings.end(), [&](uint32_t id) {
      const Ring* ring = ring_by_id(snap, id);
      return ring && ring->pid == pid;
    });
  }
  if (f.ring) {
    const Ring* ring = ring_by_id(snap, *f.ring);
    return ring && ring->pid == pid;
  }
  for (const Evidence& e : f.evidence) {
    if (e.key != "pid") continue;
    if (const int64_t* v = std::get_if<int64_t>(&e.value)) return *v == static_cast<int64_t>(pid);
  }
  return true;
}

std::string leak_state(const PendingRequest& r) {
  if (r.abandoned && r.waiting) return "abandoned, waiting";
  if (r.abandoned) return "abandoned";
  return r.waiting ? "waiting" : "";
}

}  // namespace

void render_check(std::ostream& out, const HazardInfo& hazards) {
  out << fmt::format("--check: {} memory ranges of requests and {} unmap/register calls checked; "
                     "hazards: overlap {}, buffer change {}, unmap {}\n",
                     format_count(hazards.ranges), format_count(hazards.calls),
                     format_count(hazards.overlaps), format_count(hazards.bufreg),
                     format_count(hazards.unmap));
}

void render_tool_stats(std::ostream& out, const ToolStats& tool) {
  TextTable table({Align::Left, Align::Right}, "  ");
  for (const ToolField& field : kToolFields) {
    if (const uint64_t value = tool.*field.member)
      table.add_row({std::string(field.text), format_count(value)});
  }
  if (table.empty()) return;
  out << "tool losses\n";
  table.write(out);
}

void render_leaks(std::ostream& out, const Snapshot& snap) {
  const LeakInfo& leak = snap.leak;
  uint64_t total = leak.suspected + leak.pending;
  if (total == 0) return;
  out << (leak.threshold_ns
              ? "leaks (requests in flight longer than " + format_duration(leak.threshold_ns) + ")"
              : std::string("leaks (requests in flight past the leak age)"))
      << '\n';
  // Suspected: stuck or abandoned; pending: waiting on an event that may yet come.
  out << "  " << format_count(leak.suspected) << " suspected, " << format_count(leak.pending)
      << " pending (waiting on an event); oldest " << format_duration(leak.oldest_ns) << '\n';

  TextTable table({Align::Left, Align::Left, Align::Right, Align::Left, Align::Left, Align::Left,
                   Align::Left},
                  "  ");
  std::size_t shown = std::min(leak.requests.size(), kLeakRows);
  // The file column only when a request's file is known (--files).
  const bool files = std::any_of(leak.requests.begin(), leak.requests.begin() + shown,
                                 [](const PendingRequest& r) { return !r.file.empty(); });
  std::vector<std::string> head = {"ring", "op", "age", "user_data", "where", ""};
  if (files) head.push_back("file");
  table.add_row(std::move(head));
  for (std::size_t i = 0; i < shown; ++i) {
    const PendingRequest& r = leak.requests[i];
    std::vector<std::string> row = {leak_ring_cell(snap, r.ring), opcode_name(r.opcode),
                                    format_duration(r.age_ns), format_hex(r.user_data),
                                    std::string(request_where_name(r.where)), leak_state(r)};
    if (files) row.push_back(r.file.empty() ? "-" : r.file);
    table.add_row(std::move(row));
  }
  // No records at all: the totals line is all there is to say.
  if (shown == 0) return;
  table.write(out);
  // The BPF side records only the oldest few; the totals count them all.
  uint64_t known = std::max<uint64_t>(total, leak.requests.size());
  if (known > shown) out << "  ... and " << format_count(known - shown) << " more\n";
}

namespace {

struct WorkersLine {
  std::string label;
  uint64_t workers = 0;
  bool marked = false;
};

// One line per process with workers; past a screenful of them, one per command name (the
// table of rings not drawn has each process's count in its workers column).
std::vector<WorkersLine> workers_lines(const Snapshot& snap, const std::vector<Finding>& findings) {
  std::map<uint32_t, std::string> comm_of;
  for (const Ring& ring : snap.rings) {
    if (!ring.comm.empty()) comm_of.try_emplace(ring.pid, ring.comm);
  }
  std::vector<WorkersLine> lines;
  std::map<std::string, std::pair<std::size_t, WorkersLine>> by_name;
  for (const ProcessWorkers& w : snap.workers) {
    if (w.distinct == 0) continue;
    const auto comm = comm_of.find(w.pid);
    std::string label = fmt::format("io-wq workers: pid {}", w.pid);
    if (comm != comm_of.end()) label += " (" + comm->second + ")";
    const bool marked = std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
      return workers_finding_concerns(snap, f, w.pid);
    });
    lines.push_back({std::move(label), w.distinct, marked});
    auto& [processes, line] = by_name[comm == comm_of.end() ? std::string("?") : comm->second];
    ++processes;
    line.workers += w.distinct;
    line.marked |= marked;
  }
  if (lines.size() <= kHiddenProcessRows) return lines;
  lines.clear();
  for (auto& [name, entry] : by_name) {
    auto& [processes, line] = entry;
    line.label = fmt::format("io-wq workers: {} ({} process{})", name, format_count(processes),
                             processes == 1 ? "" : "es");
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace

void render_workers(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings) {
  std::vector<WorkersLine> lines = workers_lines(snap, findings);
  // Still more names than a screen holds: those a finding names, then the most workers.
  std::size_t rest_lines = 0;
  uint64_t rest_workers = 0;
  if (lines.size() > kHiddenProcessRows) {
    std::stable_sort(lines.begin(), lines.end(), [](const WorkersLine& a, const WorkersLine& b) {
      if (a.marked != b.marked) return a.marked;
      return a.workers > b.workers;
    });
    for (std::size_t i = kHiddenProcessRows; i < lines.size(); ++i) rest_workers += lines[i].workers;
    rest_lines = lines.size() - kHiddenProcessRows;
    lines.resize(kHiddenProcessRows);
  }
  TextTable table({Align::Left, Align::Right}, "", 1);
  for (const WorkersLine& line : lines)
    table.add_row({line.label + ":", format_count(line.workers)}, marker_if(line.marked));
  if (rest_lines) {
    table.add_row({fmt::format("io-wq workers: {} more command names:", format_count(rest_lines)),
                   format_count(rest_workers)});
  }
  table.write(out);
}

}  // namespace uringscope
