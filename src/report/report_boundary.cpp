// SPDX-License-Identifier: MIT
// The ring's "boundary" block of the text report: the CQ ring between the kernel and the
// program (bpf/boundary.bpf.h), what waits there and for how long.
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "report/report.h"
#include "report/text_layout.h"
#include "uringscope/findings.h"
#include "util/format.h"

namespace uringscope {

using Align = TextTable::Align;

void render_boundary(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent) {
  const RingBoundary& b = ring.boundary;
  if (b.cq_depth_samples == 0) return;
  out << indent << "boundary (from the CQ ring's indices)\n";
  TextTable table({Align::Left, Align::Left}, std::string(indent) + "  ");
  table.add_row({"CQ depth", fmt::format("avg {}, max {} CQEs ready and not reaped ({} CQEs)",
                                         format_fixed(b.cq_depth_avg(), 1),
                                         format_count(b.cq_depth_max),
                                         format_count(b.cq_depth_samples))});
  const Histogram& lag = b.reap_lag;
  if (lag.count() > 0) {
    table.add_row(
        {"reap lag",
         fmt::format("p50 {}  p99 {}  max {} ({} CQEs watched; each reap seen within {} on "
                     "average, {} at most)",
                     format_duration(lag.quantile_ns(0.5)), format_duration(lag.quantile_ns(0.99)),
                     format_duration(lag.max_ns), format_count(lag.count()),
                     format_duration(b.reap_gap_mean_ns()), format_duration(b.reap_gap_max_ns))},
        marker_if(finding_concerns(findings, {kTagReapLag}, ring.id, std::nullopt)));
  }
  table.write(out);
}

}  // namespace uringscope
