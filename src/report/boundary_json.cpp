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
  reap["untimed"] = b.reap_untimed;
  reap["never_reaped"] = Json{{"cqes", b.reap_never}, {"oldest_ns", b.reap_never_max_ns}};
  // What each lag certainly was: post to the last look that still saw the CQE unreaped.
  Json at_least = Json::object();
  add_histogram_fields(at_least, b.reap_lag_min);
  reap["at_least"] = std::move(at_least);
  Json out{{"ring", ring.id},
           {"cq_depth", Json{{"samples", b.cq_depth_samples},
                             {"avg", b.cq_depth_avg()},
                             {"max", b.cq_depth_max}}},
           {"reap_lag", std::move(reap)}};
  if (b.liburing_seen()) {
    Json lu = Json{{"submit_calls", b.lu_submit_calls},
                   {"submitted", b.lu_submit_sqes},
                   {"sqes_per_call", b.lu_sqes_per_submit()},
                   {"max_sqes_per_call", b.lu_submit_max},
                   {"cqes_handed", b.lu_cqes_handed}};
    Json lag = Json{{"watched", b.lu_reap_lag.count()}};
    add_histogram_fields(lag, b.lu_reap_lag);
    lu["reap_lag"] = std::move(lag);
    out["liburing"] = std::move(lu);
  }
  if (ring.sqpoll()) {
    Json sq = Json{{"watched", b.sq_wait.count()}};
    add_histogram_fields(sq, b.sq_wait);
    sq["resolution_avg_ns"] = b.sq_res_mean_ns();
    sq["resolution_max_ns"] = b.sq_res_max_ns;
    sq["timer_looks"] = b.sq_timer_looks;
    sq["taken_unseen"] = b.sq_taken_unseen;
    out["sq_wait"] = std::move(sq);
  }
  return out;
}

// A ring the boundary saw: CQEs posted, or an SQPOLL ring's SQ looked at.
bool boundary_saw(const Ring& ring) {
  const RingBoundary& b = ring.boundary;
  return b.cq_depth_samples || b.sq_wait.count() || b.sq_timer_looks || b.liburing_seen();
}

}  // namespace

Json end_to_end_json(const Snapshot& snap, const std::vector<const Ring*>* written) {
  if (!snap.boundary_measured) return Json{{"available", false}};
  Json rings = Json::array();
  auto add = [&](const Ring& ring) {
    if (boundary_saw(ring)) rings.push_back(ring_boundary_json(ring));
  };
  if (written) {
    for (const Ring* ring : *written) add(*ring);
  } else {
    for (const Ring& ring : snap.rings) add(ring);
  }
  const LiburingUprobes& lu = snap.liburing;
  Json uprobes{{"attached", lu.attached()}, {"libraries", lu.libraries}, {"calls", lu.functions}};
  if (!lu.attached()) uprobes["detail"] = lu.tried ? lu.why_not : "off (--liburing turns them on)";
  return Json{{"available", true},
              {"source", "ring_index"},
              {"tick_ns", US_REAP_TICK_NS},
              {"post_times_kept", US_CQ_POSTS},
              {"uprobes", std::move(uprobes)},
              {"rings", std::move(rings)}};
}

}  // namespace uringscope
