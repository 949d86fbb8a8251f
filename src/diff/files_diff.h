// SPDX-License-Identifier: MIT
// The per-file part of a Diff (reports made with --files): a text table of the busiest
// files and the `diff.files` array of the JSON report.
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "diff/baseline.h"

namespace uringscope {

// Files shown in the text table; the JSON has every one.
inline constexpr std::size_t kDiffFilesShown = 10;

// "per file, all rings": per (file, op) requests, p99 and punted as before -> after and
// the change ("new"/"gone" for a file of one run). Nothing when neither run had files.
void render_files_diff(std::ostream& out, const Diff& d);

// [{"name", "op", "status": "matched|added|removed", "before": {...}|null,
//   "after": {...}|null, "change": {...}|null}]: before/after hold requests, bytes,
// punted, punt_pct, errors, p99_ns; change holds after - before of each (punt_pct in
// percentage points), requests_pct and p99_ns_pct (null from a baseline of 0).
nlohmann::ordered_json files_diff_json(const Diff& d);

}  // namespace uringscope
