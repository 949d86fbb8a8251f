// SPDX-License-Identifier: MIT
// What a user may change in the probe's answer before anything loads, and the checks
// that end a run which could not work on this kernel.
#pragma once

#include <string>
#include <vector>

#include "probe/probe.h"

namespace uringscope {

// URINGSCOPE_FORCE_PROGRAMS: each named program replaces whatever the probe chose for
// the feature it serves (a name the table does not know is added as is, and the loader
// then refuses it). For trying a variant by hand, and for testing what a verifier
// rejection looks like to the user.
void force_programs(KernelSupport& support, const std::vector<std::string>& programs);

// URINGSCOPE_SKIP_FEATURES: turns optional features off before loading, to measure what
// each costs (bench/) or to shed a tracepoint that fires too often on a given box.
// Throws Error for a required feature or a name not in the table.
void skip_features(KernelSupport& support, const std::vector<std::string>& features);

// URINGSCOPE_FORCE_FEATURES=catchers: loads the catchers on a kernel that does not need
// them, to test them and measure their cost where they are off by default. Throws Error
// for any other name.
void force_features(KernelSupport& support, const std::vector<std::string>& features);

// Throws Error when the run cannot go ahead: no usable spine (one line naming why each
// required feature is off), or -f without the fork tracepoint.
void check_runnable(const KernelSupport& support, bool follow);

}  // namespace uringscope
