// SPDX-License-Identifier: MIT
#include "uringscope/histogram.h"

#include <algorithm>
#include <cmath>

namespace uringscope {

uint64_t bucket_lower_ns(std::size_t i) { return i == 0 ? 0 : uint64_t{1} << i; }

uint64_t bucket_upper_ns(std::size_t i) { return uint64_t{1} << (i + 1); }

uint64_t Histogram::count() const {
  uint64_t n = 0;
  for (uint64_t b : buckets) n += b;
  return n;
}

uint64_t Histogram::mean_ns() const {
  uint64_t n = count();
  return n ? sum_ns / n : 0;
}

uint64_t Histogram::quantile_ns(double q) const {
  uint64_t n = count();
  if (n == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank of the sample we want, 1-based: the smallest r with r >= q * n. The epsilon keeps
  // binary-fraction noise (0.07 * 100 = 7.000000000000001) from skipping a rank.
  double rank = std::max(1.0, std::ceil(q * static_cast<double>(n) - 1e-9));
  uint64_t below = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] == 0) continue;
    if (static_cast<double>(below + buckets[i]) >= rank) {
      // Samples are taken as spread evenly over the bucket: the k-th of m sits at
      // lower + (upper - lower) * k / m. The top bucket is open-ended (it holds
      // everything from 2^39 ns up), so there the recorded maximum is its upper end when
      // that lies beyond 2^40.
      double lower = static_cast<double>(bucket_lower_ns(i));
      double upper = static_cast<double>(bucket_upper_ns(i));
      if (i + 1 == buckets.size()) upper = std::max(upper, static_cast<double>(max_ns));
      double frac = (rank - static_cast<double>(below)) / static_cast<double>(buckets[i]);
      auto value = static_cast<uint64_t>(lower + (upper - lower) * frac);
      // No sample exceeds the maximum, whichever bucket holds it.
      return std::min(value, max_ns);
    }
    below += buckets[i];
  }
  return max_ns;
}

Histogram& Histogram::operator+=(const Histogram& other) {
  for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] += other.buckets[i];
  sum_ns += other.sum_ns;
  max_ns = std::max(max_ns, other.max_ns);
  return *this;
}

Histogram& Histogram::operator-=(const Histogram& other) {
  // Counters only grow, so an earlier reading is never larger; clamp anyway so a torn
  // read cannot wrap around.
  auto sub = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] = sub(buckets[i], other.buckets[i]);
  sum_ns = sub(sum_ns, other.sum_ns);
  // The max of an interval is not recoverable from two cumulative maxima; keep ours.
  return *this;
}

}  // namespace uringscope
