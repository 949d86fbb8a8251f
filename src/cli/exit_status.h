// SPDX-License-Identifier: MIT
// How a run turns into an exit status, for scripts and CI gates.
//
//   1  uringscope itself failed (bad input, missing privilege, ...): nothing else applies,
//      and it never gets here (an Error is thrown and main() returns 1, or an output
//      could not be written: the run says which on stderr and still writes the others).
//   N  the command uringscope ran exited with N != 0 (128 + signal when a signal killed
//      it): the program's own verdict comes first, as with time(1) or strace(1).
//   3  --fail-on was given and a finding at or above that severity exists (TOOL and
//      NODATA never count: they describe the tool's view, not the program).
//   0  otherwise.
//
// A command that itself exits with 1 or 3 is indistinguishable from those codes; gate
// on the JSON report when that matters.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "uringscope/findings.h"

namespace uringscope {

inline constexpr int kExitFindings = 3;

// "info" | "warn" | "crit" (case-insensitive); nullopt for anything else.
std::optional<Severity> parse_fail_on(std::string_view text);

// Whether a finding that counts toward --fail-on is at or above `threshold`.
bool findings_trip(const std::vector<Finding>& findings, Severity threshold);

int exit_status(std::optional<int> command_status, std::optional<Severity> fail_on,
                const std::vector<Finding>& findings);

}  // namespace uringscope
