// SPDX-License-Identifier: MIT
#include "metrics/boundary_metrics.h"

namespace uringscope {

using exposition::Type;

void render_boundary_metrics(exposition::Writer& w, const BoundarySeries& rings) {
  // Sum and samples rather than a ready-made average: rate(sum) / rate(samples) is the
  // average over whatever window the query asks for.
  w.begin({"uringscope_cq_depth_samples", Type::Counter, "",
           "CQEs posted on the ring while uringscope sampled its CQ depth (off with --no-boundary)."});
  for (const auto& [labels, b, sqpoll] : rings) w.value(labels, b->cq_depth_samples);
  w.begin({"uringscope_cq_depth_sum", Type::Counter, "",
           "Sum over those CQEs of the CQEs ready and not yet reaped, each one included: "
           "divided by uringscope_cq_depth_samples, the average CQ depth."});
  for (const auto& [labels, b, sqpoll] : rings) w.value(labels, b->cq_depth_sum);
  w.begin({"uringscope_cq_depth_max", Type::Gauge, "",
           "Most CQEs seen ready and not yet reaped at once, so far."});
  for (const auto& [labels, b, sqpoll] : rings) w.value(labels, b->cq_depth_max);
  w.begin({"uringscope_cq_reap_lag_seconds", Type::Histogram, "seconds",
           "Time from each CQE being posted to the program's CQ head being seen past "
           "it (an upper bound; docs/report.md gives the resolution). Buckets are log2 "
           "nanoseconds: le is 2^(i+1) ns, 256 ns to 68.7 s."});
  for (const auto& [labels, b, sqpoll] : rings) w.histogram(labels, b->reap_lag);
  w.begin({"uringscope_sq_wait_seconds", Type::Histogram, "seconds",
           "SQPOLL rings: time from a watched SQE's first sighting in the SQ ring to the "
           "SQPOLL thread taking it (a lower bound; docs/report.md gives the resolution). "
           "Buckets are log2 nanoseconds: le is 2^(i+1) ns, 256 ns to 68.7 s."});
  for (const auto& [labels, b, sqpoll] : rings)
    if (sqpoll) w.histogram(labels, b->sq_wait);
}

}  // namespace uringscope
