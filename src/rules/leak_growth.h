// SPDX-License-Identifier: MIT
// LEAK, the growing set: requests that each wait on an event (so none is "stuck") but
// whose number keeps growing through the window, read from LeakInfo::waiting_samples.
#pragma once

#include <optional>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope::rules {

// The WARN finding when the set waiting longer than the leak age grew steadily through
// the window (thresholds leak_growth_*), else nullopt.
std::optional<Finding> growing_set_finding(const LeakInfo& leak);

}  // namespace uringscope::rules
