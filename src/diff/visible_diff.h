// SPDX-License-Identifier: MIT
// The diff as the text renderer draws it: every string in its visible form
// (util/untrusted_text.h). Both sides are untrusted: the current run's names, and
// whatever a saved report's author wrote into it.
#pragma once

#include "diff/baseline.h"

namespace uringscope {

Diff visible_copy(const Diff& diff);

}  // namespace uringscope
