// SPDX-License-Identifier: MIT
// The boundary's families (--boundary): per ring, the CQ reap lag as a histogram and the
// CQ depth as counters an average can be taken from plus its maximum as a gauge.
#pragma once

#include <utility>
#include <vector>

#include "metrics/exposition_writer.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// One series set per ring, with the labels openmetrics.cpp gives that ring.
using BoundarySeries = std::vector<std::pair<exposition::Labels, const RingBoundary*>>;

void render_boundary_metrics(exposition::Writer& w, const BoundarySeries& rings);

}  // namespace uringscope
