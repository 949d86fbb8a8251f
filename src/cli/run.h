// SPDX-License-Identifier: MIT
#pragma once

#include "cli/options.h"

namespace uringscope {

// One uringscope invocation, from parsed options to exit status. Throws Error for
// anything that must end the run with status 1.
int run(const Options& options);

// --version: version, kernel release, support tier and the per-feature table (as JSON
// with --json).
int print_version(bool as_json);

}  // namespace uringscope
