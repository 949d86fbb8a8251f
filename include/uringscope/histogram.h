// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>

namespace uringscope {

// Latency distribution in log2 nanosecond buckets: bucket i holds samples in
// [2^i, 2^(i+1)) ns, bucket 0 also holds 0 ns, and the last bucket (39) holds everything
// from 2^39 ns up (the layout the BPF side fills).
inline constexpr std::size_t kHistBuckets = 40;

struct Histogram {
  std::array<uint64_t, kHistBuckets> buckets{};
  uint64_t sum_ns = 0;
  uint64_t max_ns = 0;

  uint64_t count() const;
  uint64_t mean_ns() const;  // 0 when empty
  // The q-quantile (0 < q <= 1), interpolated linearly inside the bucket that holds the
  // rank and capped at max_ns: log2 bucket bounds alone would be off by up to 2x.
  uint64_t quantile_ns(double q) const;
  Histogram& operator+=(const Histogram& other);
  Histogram& operator-=(const Histogram& other);  // for interval deltas
  bool operator==(const Histogram&) const = default;
};

// Bounds of bucket i: [lower, upper).
uint64_t bucket_lower_ns(std::size_t i);
uint64_t bucket_upper_ns(std::size_t i);

}  // namespace uringscope
