// SPDX-License-Identifier: MIT
// The per-op latency distributions of the text report, in the layout bcc's tools made
// familiar (`range : count |distribution|`), from the same log2 buckets as the
// percentiles: where a p99 alone hides two modes (page-cache hits and misses, inline
// and punted), the shape shows them.
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "report/report.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope {

namespace {

constexpr std::size_t kBarWidth = 40;

void render_one(std::ostream& out, const OpStats& op, std::string_view indent) {
  const Histogram& h = op.latency;
  std::size_t first = kHistBuckets, last = 0;
  uint64_t peak = 0;
  for (std::size_t i = 0; i < kHistBuckets; ++i) {
    if (!h.buckets[i]) continue;
    first = std::min(first, i);
    last = i;
    peak = std::max(peak, h.buckets[i]);
  }
  if (first == kHistBuckets) return;
  out << indent << fmt::format("{} ({} timed)\n", opcode_name(op.opcode), format_count(h.count()));
  out << indent << fmt::format("  {:>21} : {:<9} distribution\n", "latency", "count");
  for (std::size_t i = first; i <= last; ++i) {
    const uint64_t n = h.buckets[i];
    const auto stars = static_cast<std::size_t>((n * kBarWidth + peak - 1) / peak);
    const std::string range = fmt::format("{} -> {}", format_duration(bucket_lower_ns(i)),
                                          format_duration(bucket_upper_ns(i)));
    out << indent
        << fmt::format("  {:>21} : {:<9} |{:<{}}|\n", range, format_count(n),
                       std::string(stars, '*'), kBarWidth);
  }
}

}  // namespace

bool wants_histogram(const OpStats& op) { return op.latency.count() >= kHistogramMinTimed; }

void render_latency_histograms(std::ostream& out, std::span<const OpStats> ops,
                               std::string_view indent) {
  for (const OpStats& op : ops)
    if (wants_histogram(op)) render_one(out, op, indent);
}

}  // namespace uringscope
