// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/argv.h"
#include "snapshot/retired_store.h"
#include "uringscope/findings.h"
#include "metrics/metrics.h"
#include "report/folded.h"
#include "report/report.h"
#include "report/views.h"

namespace uringscope {

// Everything the command line can say, with its defaults. Filled by parse_options().
struct Options {
  bool top = false;                  // `uringscope top ...`: the full-screen live view
  std::vector<std::string> command;  // CMD [ARGS]: run it under the scope
  std::vector<int> pids;             // -p PID[,PID]
  bool all = false;                  // -a
  std::optional<double> duration_s;  // -d SECONDS
  bool verbose = false;              // -v: libbpf and verifier messages
  bool keep_root = false;            // --keep-root: don't drop to SUDO_UID/SUDO_GID
  std::optional<std::string> json;   // --json[=FILE]; "-" is stdout
  double leak_age_s = 0.5;           // --leak-age: in flight longer than this at the end
  std::optional<Severity> fail_on;   // --fail-on: exit 3 on a finding at or above this
  std::optional<std::string> baseline_out;  // --baseline FILE: save this run's JSON there
  std::optional<std::string> diff_against;  // --diff FILE: compare with a saved report
  bool compact = false;              // -c: per-op table and findings only
  bool histograms = false;           // --histograms: latency histograms in -c too
  std::optional<std::size_t> full_rings = kDefaultFullRings;  // --rings N|all
  // --keep-rings N|all: destroyed rings kept one by one (nullopt: all)
  std::optional<std::size_t> keep_rings = FoldLimits{}.rings;
  DisplayFilter display_filter;      // -e: text output only
  bool no_findings = false;          // --no-findings: numbers only
  bool list_ops = false;             // --list-ops
  bool follow = false;               // -f: children of the targets become targets
  std::optional<double> interval_s;  // -i: live per-interval deltas (top: its refresh)
  std::optional<ListenAddress> metrics;  // --metrics [ADDR]:PORT, parsed
  std::size_t metrics_files = 0;     // --metrics-files N: per-file series, N per ring
  std::optional<std::string> trace;  // --trace FILE: per-request timeline
  std::optional<std::string> folded;      // --folded FILE: folded stacks
  std::optional<std::string> flamegraph;  // --flamegraph FILE.svg
  FlameWeight flame_weight = FlameWeight::Count;  // --flame-weight
  bool check = false;                // --check: hazard mode (long form only)
  bool liburing = false;             // --liburing: uprobes on a shared liburing (their cost)
  bool boundary = true;              // off with --no-boundary: SQ wait, CQ depth, reap lag
  bool files = false;                // --files: per-file attribution (its cost: docs/overhead.md)
  FileTableOptions file_table;       // --files-top N, --files-sort: the text report's file table
  bool version = false;              // --version
  bool help = false;                 // -h/--help (help_text holds the text)
  std::string help_text;
};

// Throws UsageError with a one-line message for anything malformed or contradictory.
Options parse_options(int argc, const char* const* argv);

// The spellings of every option that takes a value, read from the parser's definitions.
ValueOptions options_taking_values();

}  // namespace uringscope
