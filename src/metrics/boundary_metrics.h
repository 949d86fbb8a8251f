// SPDX-License-Identifier: MIT
// The boundary's families (unless --no-boundary): per ring, the CQ reap lag as a histogram and the
// CQ depth as counters an average can be taken from plus its maximum as a gauge; per
// SQPOLL ring, the SQ wait as a histogram.
#pragma once

#include <utility>
#include <vector>

#include "metrics/exposition_writer.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// One series set per ring, with the labels openmetrics.cpp gives that ring.
struct BoundaryRow {
  exposition::Labels labels;
  const RingBoundary* boundary = nullptr;
  bool sqpoll = false;  // the SQ wait family has series for SQPOLL rings only
};
using BoundarySeries = std::vector<BoundaryRow>;

void render_boundary_metrics(exposition::Writer& w, const BoundarySeries& rings);

}  // namespace uringscope
