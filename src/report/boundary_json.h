// SPDX-License-Identifier: MIT
// The JSON report's "end_to_end" object: the boundary between the kernel and the
// program, from the CQ ring's indices (docs/json.md#end_to_end).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "uringscope/snapshot.h"

namespace uringscope {

// {"available": false} when the boundary was not measured; else the source, the timer's
// period and one entry per ring that posted CQEs while watched: of `rings` (the report's
// rings array, json_rings.h) when given, else of every ring.
nlohmann::ordered_json end_to_end_json(const Snapshot& snap,
                                       const std::vector<const Ring*>* rings = nullptr);

// avg_ns, p50_ns, p99_ns, max_ns and log2_hist of `h`, added to `out` in that order.
void add_histogram_fields(nlohmann::ordered_json& out, const Histogram& h);

}  // namespace uringscope
