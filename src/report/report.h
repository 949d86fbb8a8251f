// SPDX-License-Identifier: MIT
// Renderers over a Snapshot and the findings evaluated from it: the human text report
// and the versioned JSON report (schema 2, docs/json.md). Renderers only format; they
// never evaluate rules, so what is printed is exactly what they are given.
//
// Both read Snapshot::totals and Snapshot::ops for the all-rings view: call aggregate()
// on the snapshot first.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"
#include "report/ring_layout.h"

namespace uringscope {

inline constexpr int kJsonSchema = 2;

// The per-file table of each ring (report_files.cpp): how many rows, in which order.
enum class FileSort { Time, Requests, Bytes, Name };
struct FileTableOptions {
  std::size_t top = 10;  // rows per ring; 0 hides the table (--files-top N)
  FileSort sort = FileSort::Time;  // --files-sort
};

struct TextOptions {
  bool show_findings = true;
  FileTableOptions files;
  // The -e display filter in words ("op=READ punt"), when the snapshot was filtered:
  // the report says so, and a ring whose rows were all hidden says that instead of
  // "no requests seen".
  std::string display_filter;
  // --rings: how many active rings get a block of their own (ring_layout.h), nullopt
  // for every ring, idle ones included.
  std::optional<std::size_t> full_rings = kDefaultFullRings;
};

// The full report: header, the rings (the busiest in full, grouped by process when there
// are several; idle and further rings summed up), leaks, io-wq workers, tool losses,
// findings.
void render_text(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                 const TextOptions& opts = {});

// --- text sections, each writing whole lines, for the compact, filtered, diff and live
// views to reuse.

// Title with window, cpus, kernel and tier; the target; kernel features that are off.
void render_text_header(std::ostream& out, const Snapshot& snap);
// "target: command fio ...", "target: pid 1,2", "target: all processes".
std::string target_line(const TargetInfo& target);
// "ring #0 fd=5  sq=256 cq=512  flags: ...   comm pid N", or the catch-all title.
void render_ring_header(std::ostream& out, const Ring& ring);
// enter calls, SQEs with the average batch, completions.
void render_submission(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                       std::string_view indent = "    ");
// Column header and one row per op. `ring` selects which findings mark rows: a ring id
// for one ring's rows, nullopt for rows merged over all rings (then a finding on any
// ring marks the op).
// `window_ns`: what the B/s column is over ("-" when 0).
void render_op_table(std::ostream& out, std::span<const OpStats> ops,
                     std::optional<uint32_t> ring, const std::vector<Finding>& findings,
                     uint64_t window_ns, std::string_view indent = "    ");
// Per op with at least kHistogramMinTimed timed requests, its latency distribution as a
// log2 histogram (report_histogram.cpp); fewer make a shape of a handful of stars.
inline constexpr uint64_t kHistogramMinTimed = 100;
bool wants_histogram(const OpStats& op);
void render_latency_histograms(std::ostream& out, std::span<const OpStats> ops,
                               std::string_view indent = "    ");
// Stand-ins for the ring blocks not drawn (report_ring_summary.cpp): a heading over
// one process's rings, the idle rings one line per process, the rest one table.
void render_process_heading(std::ostream& out, const ProcessRings& process);
void render_idle_rings(std::ostream& out, const std::vector<ProcessRings>& idle);
void render_hidden_rings(std::ostream& out, const RingLayout& layout);
// The ring's busiest (file, op) rows under a "files" heading, then how many more there are;
// nothing when the ring has no file rows.
void render_file_table(std::ostream& out, const std::vector<FileStats>& files,
                       const FileTableOptions& opts, std::string_view indent = "  ");
// Whether an op has anything for render_op_details() to say.
bool has_op_details(const OpStats& op);
// Below an op table, per op in the order given: why its requests were punted, its top
// error codes and rejections, how many waited on poll. Nothing for ops with none of these.
// `iopoll_ring`: the ops are an IOPOLL ring's, whose io-wq work is all hashed.
void render_op_details(std::ostream& out, std::span<const OpStats> ops, bool iopoll_ring,
                       std::string_view indent = "    ");
// Every non-zero counter the submission block and op table do not already show (CQ
// overflows, short writes, task work, leaks, ...), with their heading; nothing when all
// are zero. SQPOLL rings add their thread's block; `window_ns` (the run's wall time)
// turns its off-CPU time into a share of the window, 0 leaves the share out.
void render_counters(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent = "  ", uint64_t window_ns = 0);
// The ring's SQ wait, liburing calls, CQ depth and reap lag (Ring::boundary), with
// heading; nothing when the boundary saw nothing of the ring.
void render_boundary(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent = "  ");
// "boundary: the rings' indices, and uprobes on ...": which sources the boundary's
// numbers came from, or why the uprobes are not among them.
std::string boundary_sources_line(const Snapshot& snap);
// The fidelity note: latency covers tracked requests only. Nothing when all were tracked.
void render_untracked_note(std::ostream& out, const Counters& counters,
                           std::string_view indent = "  ");
// Requests in flight past the leak age: totals, then the oldest few, with heading;
// nothing when there were none.
void render_leaks(std::ostream& out, const Snapshot& snap);
// "io-wq workers: pid 123 (app): 64", one line per process; nothing when none were seen.
// A WORKERS finding marks the line of its ring's process; one without a ring marks the
// process named by its integer "pid" evidence, or every line when it names none.
void render_workers(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings);
// One line: what --check covered and found (the findings carry the details).
void render_check(std::ostream& out, const HazardInfo& hazards);
// The tool's own losses, with heading; nothing when there were none.
void render_tool_stats(std::ostream& out, const ToolStats& tool);
// "findings" heading and each finding in the order given, or "no findings".
void render_findings(std::ostream& out, const std::vector<Finding>& findings);

// Whether a finding with one of `tags` concerns this ring (and this opcode, when given).
// Findings without a ring are about the whole run and mark no ring's rows; with
// ring == nullopt (merged rows) any ring matches.
bool finding_concerns(const std::vector<Finding>& findings,
                      std::initializer_list<std::string_view> tags,
                      std::optional<uint32_t> ring, std::optional<uint32_t> opcode);

// --- JSON. ordered_json keeps keys in the order the schema lists them, so reports diff
// cleanly and read top-down; consumers must not depend on key order.

struct JsonReportOptions {
  // The rings written one by one (json_rings.h): as the text report's --rings, nullopt for
  // every ring.
  std::optional<std::size_t> rings;
  const nlohmann::ordered_json* diff = nullptr;  // --baseline's comparison
};

// The report as one document. Every ring by default: for tests and small reports.
nlohmann::ordered_json render_json(const Snapshot& snap, const std::vector<Finding>& findings,
                                   const JsonReportOptions& opts = {});
// The same document, written as it is made: the report file and --json=-.
void write_json_report(std::ostream& out, const Snapshot& snap,
                       const std::vector<Finding>& findings, const JsonReportOptions& opts);

// Pieces of the report, for baselines and diffs that need the same shapes.
nlohmann::ordered_json kernel_json(const KernelInfo& kernel);
nlohmann::ordered_json counters_json(const Counters& counters);
// `window_ns`: what bytes per second are over (the run's window, or the ring's own life).
nlohmann::ordered_json op_json(const OpStats& op, uint64_t window_ns);
nlohmann::ordered_json ring_json(const Ring& ring, uint64_t window_ns);
// Bytes over a window in bytes per second; 0 for a zero-length window.
double bytes_per_second(uint64_t bytes, uint64_t window_ns);
nlohmann::ordered_json leak_json(const LeakInfo& leak);
nlohmann::ordered_json finding_json(const Finding& finding);

}  // namespace uringscope
