// SPDX-License-Identifier: MIT
// What the text renderers draw from: a copy of the snapshot and the findings in which
// every string is in its visible form (util/untrusted_text.h). The renderers lay out
// what they are given; escaping it once here, at the text outputs' door, means no name
// reaches a terminal raw, however many places print it. JSON, metrics and the trace
// encode the same strings their own way from the original.
#pragma once

#include <vector>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope {

Snapshot visible_copy(const Snapshot& snapshot);
std::vector<Finding> visible_copy(const std::vector<Finding>& findings);

}  // namespace uringscope
