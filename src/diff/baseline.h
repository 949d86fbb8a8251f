// SPDX-License-Identifier: MIT
// --baseline / --diff. A saved JSON report is read back as a Baseline, the current run
// is reduced to the same shape (baseline_of), and the two are compared into a Diff that
// renders as a text delta table and as the `diff` object of the JSON report. Everything
// here is pure except load_baseline, which reads the one file.
//
// A baseline file is user input. parse_baseline checks the presence and type of every
// field before it reads it and reports any problem as uringscope::Error with one line
// that names the file and the field ("b.json: missing field ops[0].p99_ns"). It never
// asserts and throws nothing else (std::bad_alloc aside). Keys it does not know are
// ignored: within schema 2 fields are only ever added.
//
// The fields read, so that a schema-2 report from an older uringscope loads as long as
// it has them:
//   required  tool == "uringscope", schema == 2, tool_version (string), wall_ns (uint)
//             ops[]: op (string), opcode (uint32), submitted, punted, errors, p50_ns,
//                    p99_ns (uint); no opcode twice (ops are matched by opcode)
//             findings[]: tag, severity (string)
//   optional  rings[] -- the per-ring breakdown. When the key is absent nothing is
//             compared per ring (has_rings = false); when present every ring needs
//             id (uint32), pid (uint32), comm (string), counters.submissions and
//             counters.cq_overflows (uint), and may have fd (int32 or null; absent
//             means unknown), source (string; "catch_all" marks the catch-all ring) and
//             avg_batch (number >= 0; when absent it is recomputed from
//             counters.submissions / counters.enter_submit_calls if that counter is
//             there, else unknown)
//             findings[]: ring (uint32 or null), op (string or null), message (string)
//             rings[].files[] (reports made with --files): name, op (string),
//                    requests, bytes, punted, errors, max_ns (uint), log2_hist (array of
//                    uint, at most 40)
// punt % is recomputed from punted / submitted exactly as OpStats::punt_pct() does, so
// the newer punt_pct field is not needed and a run diffed against its own saved report
// shows no change.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// --- the comparable part of one report ------------------------------------------------

struct BaselineOp {  // one opcode, all rings merged (the report's top-level "ops")
  std::string op{};   // "READ"
  uint32_t opcode = 0;
  uint64_t submitted = 0;
  uint64_t punted = 0;
  uint64_t errors = 0;
  uint64_t p50_ns = 0;
  uint64_t p99_ns = 0;

  double punt_pct() const;  // punted / submitted in percent, 0 when nothing was submitted
  bool operator==(const BaselineOp&) const = default;
};

struct BaselineRing {
  uint32_t id = 0;                    // report id: only meaningful within its own report
  std::optional<int32_t> fd{};        // nullopt when unknown
  uint32_t pid = 0;
  std::string comm{};
  bool catch_all = false;             // the ring that collects events once the table is full
  std::optional<double> avg_batch{};  // SQEs per submitting enter; nullopt when unknown
  uint64_t submissions = 0;
  uint64_t cq_overflows = 0;
  bool operator==(const BaselineRing&) const = default;
};

// One (file, op) over all rings. Files are matched across runs by name and op: inodes,
// ring ids and pids all change. The histogram (buckets and max only) lets rows of one
// file on several rings merge into one p99.
struct BaselineFile {
  std::string name{};
  std::string op{};
  uint64_t requests = 0;
  uint64_t bytes = 0;
  uint64_t punted = 0;
  uint64_t errors = 0;
  Histogram latency{};

  uint64_t p99_ns() const { return latency.quantile_ns(0.99); }
  double punt_pct() const;  // as FileStats::punt_pct()
  bool operator==(const BaselineFile&) const = default;
};

struct BaselineFinding {
  std::string tag{};                // "PUNT"
  std::string severity{};           // "INFO" | "WARN" | "CRIT", others kept as written
  std::optional<uint32_t> ring{};   // BaselineRing::id
  std::optional<std::string> op{};  // "READ"
  std::string message{};            // empty when the report has none
  bool operator==(const BaselineFinding&) const = default;
};

struct Baseline {
  std::string source;        // the file it was read from; empty for the current run
  std::string tool_version;
  uint64_t wall_ns = 0;      // length of the observation window
  std::vector<BaselineOp> ops;
  bool has_rings = true;     // false: the report carries no per-ring breakdown
  std::vector<BaselineRing> rings;
  std::vector<BaselineFile> files;  // merged over rings, by (name, op); empty without --files
  std::vector<BaselineFinding> findings;
  bool operator==(const Baseline&) const = default;
};

// Reports larger than this are refused before parsing: a real one is a few hundred KB
// at most, and a runaway file should not take the machine's memory with it.
inline constexpr std::size_t kMaxBaselineBytes = 64u << 20;
// Deeper JSON is refused before parsing (a report nests six levels): nlohmann copies and
// compares documents recursively, so a hostile file is stopped before it can reach code
// that would overflow the stack on it.
inline constexpr int kMaxBaselineDepth = 64;

// `source` names the file in error messages ("b.json: schema 3, this uringscope reads
// schema 2"). Throws uringscope::Error, and only that.
Baseline parse_baseline(std::string_view json_text, const std::string& source);
// Reads and parses `path`; "cannot read b.json: No such file or directory" on I/O errors.
Baseline load_baseline(const std::string& path);
// The current run in the same shape; snap.ops must be filled (aggregate()). Percentiles
// and percentages come from the same functions render_json uses, so a run compared with
// its own saved report shows no change.
Baseline baseline_of(const Snapshot& snap, const std::vector<Finding>& findings);

// --- the comparison ---------------------------------------------------------------------

// Request counts are absolute, so a longer window means more requests. When the longer
// window exceeds the shorter by more than 1/kWindowMismatchDivisor of it (10%), the text
// table adds a req/s row under each op's reqs so the reader is not fooled by window
// length. The JSON carries reqs_per_sec always. (An integer divisor: a double 0.1 would
// put exactly 10% on either side of the line depending on rounding.)
inline constexpr uint64_t kWindowMismatchDivisor = 10;

struct OpDiff {  // before or after is empty for an op seen in one run only
  std::string op;  // the current run's name when both have it
  uint32_t opcode = 0;
  std::optional<BaselineOp> before;
  std::optional<BaselineOp> after;
};

// Rings have no identity across runs (pids and report ids change), so they are paired:
// by (comm, fd) when both sides know the fd, else by order among the remaining rings of
// that comm (skipping pairs whose fds are both known and differ). The catch-all ring
// pairs only with the catch-all ring.
struct RingDiff {
  std::optional<BaselineRing> before;
  std::optional<BaselineRing> after;
};

struct FileDiff {  // before or after is empty for a file seen in one run only
  std::string name;
  std::string op;
  std::optional<BaselineFile> before;
  std::optional<BaselineFile> after;
};

// Findings are keyed by (tag, op): the same key on any ring in both runs means the
// finding persisted, whatever ring it is on.
struct SeverityChange {
  std::string tag;
  std::optional<std::string> op;
  std::string before;  // the worst severity of that key in each run
  std::string after;
};

struct DiffSide {
  std::string source;
  std::string tool_version;
  uint64_t wall_ns = 0;
};

struct Diff {
  DiffSide before;              // the baseline
  DiffSide after;               // the current run
  bool windows_differ = false;  // see kWindowMismatchDivisor; true when only one is 0
  bool rings_compared = true;   // false when either side has no per-ring breakdown
  std::vector<OpDiff> ops;      // ascending opcode
  std::vector<RingDiff> rings;  // the current run's rings in id order, then removed ones
  std::vector<FileDiff> files;  // busiest first: the larger side's requests
  std::vector<BaselineFinding> appeared;     // current-run findings whose key is new
  std::vector<BaselineFinding> disappeared;  // baseline findings whose key is gone
  std::vector<SeverityChange> severity_changed;
};

Diff diff(const Baseline& before, const Baseline& after);

// (after - before) / before in percent; 0 when both are 0, nullopt when only before is.
std::optional<double> relative_change_pct(double before, double after);
// count per second of the window; nullopt for a zero-length window.
std::optional<double> per_second(uint64_t count, uint64_t wall_ns);
// Whether two windows differ by more than 1/kWindowMismatchDivisor of the shorter one.
bool windows_differ(uint64_t a_ns, uint64_t b_ns);

// --- rendering --------------------------------------------------------------------------

// "diff against b.json (baseline from uringscope 0.1.0, 12.4s window)", then per op
// (all rings) reqs, p50, p99, punted and errors as "before -> after  change" (relative
// change in percent, punted in percentage points, errors and overflows as signed counts,
// "=" for no change, "new"/"gone" for an op or ring seen in one run only), per ring avg
// batch and CQ overflows, then the findings that appeared, disappeared or changed
// severity, or "no change in findings".
void render_diff_text(std::ostream& out, const Diff& d);

// The `diff` object of the JSON report:
//   {"baseline": {"source", "tool_version", "wall_ns"}, "windows_differ": bool,
//    "ops": [{"op", "opcode", "status": "matched|added|removed",
//             "before": {...}|null, "after": {...}|null, "change": {...}|null}],
//    "rings_compared": bool,
//    "rings": [{"comm", "status", "before", "after", "change"}],
//    "findings": {"appeared": [...], "disappeared": [...], "severity_changed": [...]}}
// before/after of an op: submitted, reqs_per_sec (null for a 0 window), p50_ns, p99_ns,
// punt_pct, errors; of a ring: id, fd, pid, avg_batch (null when unknown), submissions,
// cq_overflows. change holds after - before for each of those fields (punt_pct in
// percentage points) and <field>_pct, the relative change in percent (null when the
// baseline value is 0), for submitted, reqs_per_sec, p50_ns, p99_ns and avg_batch.
nlohmann::ordered_json diff_json(const Diff& d);

}  // namespace uringscope
