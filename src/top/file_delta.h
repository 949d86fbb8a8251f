// SPDX-License-Identifier: MIT
// Per-file rows of an interval. snapshot_delta (snapshot/delta.h) subtracts every ring
// and op counter but leaves each ring's per-file rows as the newer reading had them,
// cumulative; top shows files per interval and since a baseline, so it subtracts them
// here.
#pragma once

#include "uringscope/snapshot.h"

namespace uringscope::top {

// `delta` = snapshot_delta(after, before): each of its rings' file rows loses what the
// same file row (same opcode, inode and name) of the same ring (same ctx and pid) held
// in `before`; rows left with nothing are dropped, and rings keep their order. Like
// snapshot_delta, counts are clamped at 0 and a latency maximum stays the newer one
// (an upper bound).
void subtract_files(Snapshot& delta, const Snapshot& before);

}  // namespace uringscope::top
