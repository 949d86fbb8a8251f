// SPDX-License-Identifier: MIT
// Where the end-of-run reports go: the JSON report (stdout or a file, atomically), the
// --baseline copy, and the human report (full or compact, narrowed by -e, with the diff
// against a baseline).
#pragma once

#include <optional>
#include <vector>

#include "diff/baseline.h"
#include "uringscope/findings.h"
#include "cli/options.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// Writes every output the options ask for. One that fails (a full disk, a formatting
// error) is said in one line on stderr and the others are still written; returns
// whether all of them were.
[[nodiscard]] bool emit_reports(const Options& opts, const Snapshot& snap,
                                const std::vector<Finding>& findings,
                                const std::optional<Baseline>& baseline);

// The stream the human report and live intervals go to: stderr when the JSON report
// takes stdout.
std::ostream& human_stream(const Options& opts);

}  // namespace uringscope
