// SPDX-License-Identifier: MIT
// Alternative text views of one run: the compact summary (-c) and the display filter
// (-e). Both are pure functions over the Snapshot and its findings, like the renderers
// in report.h, and reuse report.h's sections so a number reads the same in every view.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// --- compact view (-c) --------------------------------------------------------------

// "Like strace -c": one line with the window, rings and processes covered, one per-op
// table merged over all rings (Snapshot::ops: call aggregate() first), the untracked
// note when some completions were untracked, then the findings unless !show_findings.
// No per-ring blocks, no counters. Kernel features that are off get a one-line note,
// because they silently zero columns of the table.
//
// `display_filter`: the text of an active -e filter (display_filter_text()), empty when
// none. The view names it, and says "no op matches" rather than "no activity" when the
// filter left no rows. `histograms` (--histograms) adds each op's latency distribution.
void render_compact(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                    bool show_findings, std::string_view display_filter = {},
                    bool histograms = false);

// --- display filter (-e) ------------------------------------------------------------
//
// The filter narrows the TEXT output only (full report and compact view). The JSON
// report, baselines and --fail-on always see the complete snapshot and every finding:
// a script must never get a partial picture without asking for it, and a filtered view
// must not change the exit code. Apply these functions to the copy that goes to the
// text renderer, never to the one that goes to render_json().
//
// What is filtered is rows: an op row (one op on one ring, or one op merged over all
// rings) is shown when it matches every condition, with all of its numbers. A merged
// row keeps the numbers of all rings, so under -e punt the merged READ row still shows
// READ's overall punt share, not the share among the punted rings only.

struct DisplayFilter {
  // op=NAME[,NAME]: the opcodes allowed; nullopt when no op= condition was given.
  // Several op= expressions intersect (AND); parse_display_filter() rejects an empty
  // intersection.
  std::optional<std::set<uint32_t>> ops;
  bool punt = false;   // ops with punted > 0
  bool error = false;  // ops with errors > 0, or requests rejected before issue
  // file=GLOB (fnmatch(3), '*' crossing '/'): the file rows whose name matches every one.
  // Op rows are not per file: file= leaves them alone.
  std::vector<std::string> file_globs;

  bool empty() const { return !ops && !punt && !error && file_globs.empty(); }
  bool has_op_condition() const { return ops.has_value(); }
  // Whether one op row passes every condition.
  bool matches(const OpStats& op) const;
  // Whether one file row passes: its name, and its op, punts and errors as an op row's.
  bool matches(const FileStats& file) const;
};

// Each element is one -e argument: "op=READ,write,22", "file=/var/db/*", "punt" or
// "error"; every one
// must hold (AND). Op names are IORING_OP_* names with or without the prefix, in any
// case, or numbers 0-255; "OTHER" and "OP_<n>" (what the tables print for the catch-all
// row and for opcodes the built-in table does not know) are accepted too. Throws
// UsageError with a one-line message:
//   -e: unknown op 'REED' (see --list-ops)
//   -e: unknown filter 'foo': use op=NAME[,NAME], file=GLOB, punt or error
//   -e: file= needs a pattern
//   -e: op= needs at least one op name
//   -e: empty op name in 'op=READ,,WRITE'
//   -e: op=READ and op=WRITE have no op in common (list several ops as op=A,B)
DisplayFilter parse_display_filter(const std::vector<std::string>& exprs);

// Canonical text of the filter, for the view to say what it hides:
// "op=READ,WRITE punt"; empty for an empty filter.
std::string display_filter_text(const DisplayFilter& filter);

// The snapshot the text views should render under `filter`:
// - every ring stays, with its header, submission block and counters, even when none of
//   its ops match: a ring is not an op row, and dropping rings would turn a view with no
//   matching row into "no io_uring activity seen", which is false;
// - Ring::ops and Snapshot::ops keep only the matching rows, unchanged; Ring::files too;
// - Counters (per ring and Snapshot::totals) stay as measured: they count the ring, not
//   an op, and zeroing them would make the submission block lie;
// - leak records stay when their (ring, op) row matches; the leak totals stay, so the
//   leak section counts the hidden records under "... and N more";
// - kernel, target, workers and tool losses are untouched (fidelity is always shown).
// Do not call aggregate() on the result: it would rebuild Snapshot::ops from the
// filtered per-ring rows (see "merged row" above).
Snapshot filter_snapshot(const Snapshot& snap, const DisplayFilter& filter);

// The findings the text views should show under `filter`, order kept. A finding about
// an op is kept when that op's row matches: the row of its ring in `snap`, or the merged
// row when it names no ring (an op without a row has no punts or errors). Findings
// about no op (ring-level, like BATCH, or run-level) are kept only when the filter has
// no op= condition. `snap` is the unfiltered snapshot (after aggregate()); the
// punt and error conditions need the op's numbers, which a Finding does not carry.
std::vector<Finding> filter_findings(const std::vector<Finding>& findings,
                                     const DisplayFilter& filter, const Snapshot& snap);

}  // namespace uringscope
