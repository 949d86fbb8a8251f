// SPDX-License-Identifier: MIT
#include "report/boundary_json.h"

#include "uringscope/abi.h"

namespace uringscope {

using Json = nlohmann::ordered_json;

void add_histogram_fields(Json& out, const Histogram& h) {
  Json hist = Json::array();
  for (uint64_t b : h.buckets) hist.push_back(b);
  out["avg_ns"] = h.mean_ns();
  out["p50_ns"] = h.quantile_ns(0.5);
  out["p99_ns"] = h.quantile_ns(0.99);
  out["max_ns"] = h.max_ns;
  out["log2_hist"] = std::move(hist);
}

namespace {

Json ring_boundary_json(const Ring& ring) {
  const RingBoundary& b = ring.boundary;
  Json reap = Json{{"watched", b.reap_lag.count()}};
  add_histogram_fields(reap, b.reap_lag);
  reap["resolution_avg_ns"] = b.reap_gap_mean_ns();
  reap["resolution_max_ns"] = b.reap_gap_max_ns;
  reap["timer_looks"] = b.timer_looks;
  return Json{{"ring", ring.id},
              {"cq_depth", Json{{"samples", b.cq_depth_samples},
                                {"avg", b.cq_depth_avg()},
                                {"max", b.cq_depth_max}}},
              {"reap_lag", std::move(reap)}};
}

}  // namespace

Json end_to_end_json(const Snapshot& snap) {
  if (!snap.boundary_measured) return Json{{"available", false}};
  Json rings = Json::array();
  for (const Ring& ring : snap.rings) {
    if (ring.boundary.cq_depth_samples) rings.push_back(ring_boundary_json(ring));
  }
  return Json{{"available", true},
              {"source", "ring_index"},
              {"tick_ns", US_REAP_TICK_NS},
              {"rings", std::move(rings)}};
}

}  // namespace uringscope
