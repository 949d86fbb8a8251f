// SPDX-License-Identifier: MIT
// One ring's numbers added into another's: the folds of interval deltas (delta.cpp) and
// the metrics' "other" row (metrics/ring_series.cpp) sum rings the same way.
#pragma once

#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

// `op` into the row of its opcode in `ops`, or as a new row.
void add_op(std::vector<OpStats>& ops, const OpStats& op);

// Counters (each by its merge rule), the boundary (counts and histograms add, maxima stay
// maxima) and the ops, merged by opcode. Identity, sizes and files are left as they are.
void add_ring(Ring& into, const Ring& from);

}  // namespace uringscope
