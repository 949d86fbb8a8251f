// SPDX-License-Identifier: MIT
// Expected values are worked out by hand from the bucket layout ([2^i, 2^(i+1)) ns,
// bucket 0 from 0) and the interpolation rule: the k-th of m samples in a bucket sits
// at lower + (upper - lower) * k / m, the result capped at max_ns.
#include <gtest/gtest.h>

#include "uringscope/histogram.h"

namespace uringscope {
namespace {

// n samples in one bucket.
Histogram one_bucket(std::size_t bucket, uint64_t n, uint64_t sum_ns, uint64_t max_ns) {
  Histogram h;
  h.buckets[bucket] = n;
  h.sum_ns = sum_ns;
  h.max_ns = max_ns;
  return h;
}

TEST(Histogram, BucketBounds) {
  EXPECT_EQ(bucket_lower_ns(0), 0u);  // bucket 0 also holds 0 ns
  EXPECT_EQ(bucket_upper_ns(0), 2u);
  EXPECT_EQ(bucket_lower_ns(1), 2u);
  EXPECT_EQ(bucket_upper_ns(1), 4u);
  EXPECT_EQ(bucket_lower_ns(10), 1024u);
  EXPECT_EQ(bucket_upper_ns(10), 2048u);
  EXPECT_EQ(bucket_lower_ns(kHistBuckets - 1), uint64_t{1} << 39);
  EXPECT_EQ(bucket_upper_ns(kHistBuckets - 1), uint64_t{1} << 40);
  // Buckets tile the axis: no gaps, no overlaps.
  for (std::size_t i = 0; i + 1 < kHistBuckets; ++i)
    EXPECT_EQ(bucket_upper_ns(i), bucket_lower_ns(i + 1)) << "bucket " << i;
}

TEST(Histogram, EmptyHasZeroEverything) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.mean_ns(), 0u);
  EXPECT_EQ(h.quantile_ns(0.5), 0u);
  EXPECT_EQ(h.quantile_ns(0.99), 0u);
  EXPECT_EQ(h.quantile_ns(1.0), 0u);
}

TEST(Histogram, CountAndMean) {
  Histogram h;
  h.buckets[3] = 2;
  h.buckets[10] = 5;
  h.buckets[20] = 1;
  h.sum_ns = 8'003;  // mean 8003 / 8 = 1000.375, truncated
  h.max_ns = 1'500'000;
  EXPECT_EQ(h.count(), 8u);
  EXPECT_EQ(h.mean_ns(), 1000u);
}

TEST(Histogram, QuantileInterpolatesInsideTheBucket) {
  // 100 samples in [1024, 2048), max above the whole bucket so the cap does not bite.
  Histogram h = one_bucket(10, 100, 150'000, 5'000);
  EXPECT_EQ(h.quantile_ns(0.25), 1280u);  // rank 25: 1024 + 1024 * 25/100
  EXPECT_EQ(h.quantile_ns(0.5), 1536u);   // rank 50: 1024 + 1024 * 50/100
  EXPECT_EQ(h.quantile_ns(0.99), 2037u);  // rank 99: 1024 + 1013.76, truncated
}

TEST(Histogram, QuantileCappedAtMax) {
  Histogram h = one_bucket(10, 100, 120'000, 1'300);
  EXPECT_EQ(h.quantile_ns(0.25), 1280u);  // under the cap: unchanged
  EXPECT_EQ(h.quantile_ns(0.5), 1300u);   // 1536 > max 1300
  EXPECT_EQ(h.quantile_ns(0.99), 1300u);
}

TEST(Histogram, QuantileAcrossBuckets) {
  Histogram h;
  h.buckets[4] = 50;  // [16, 32)
  h.buckets[8] = 50;  // [256, 512)
  h.sum_ns = 50 * 24 + 50 * 380;
  h.max_ns = 500;
  EXPECT_EQ(h.quantile_ns(0.5), 32u);   // rank 50: last of bucket 4, 16 + 16 * 50/50
  EXPECT_EQ(h.quantile_ns(0.6), 307u);  // rank 60: 10th of 50 in bucket 8, 256 + 51.2
  EXPECT_EQ(h.quantile_ns(0.9), 460u);  // rank 90: 40th of 50, 256 + 204.8
  EXPECT_EQ(h.quantile_ns(0.99), 500u); // rank 99: 256 + 250.88 = 506.88, capped at 500
}

TEST(Histogram, SingleSample) {
  Histogram h = one_bucket(5, 1, 40, 40);  // one 40 ns sample, bucket [32, 64)
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.mean_ns(), 40u);
  // Every quantile is rank 1: the bucket's top (64) capped at the sample itself.
  EXPECT_EQ(h.quantile_ns(0.001), 40u);
  EXPECT_EQ(h.quantile_ns(0.5), 40u);
  EXPECT_EQ(h.quantile_ns(1.0), 40u);
}

TEST(Histogram, QuantileOneIsMax) {
  Histogram h = one_bucket(10, 100, 150'000, 1'900);
  EXPECT_EQ(h.quantile_ns(1.0), 1900u);  // rank 100 gives 2048, the max caps it

  Histogram two;
  two.buckets[2] = 3;   // [4, 8)
  two.buckets[12] = 1;  // [4096, 8192)
  two.sum_ns = 3 * 5 + 5000;
  two.max_ns = 5000;
  EXPECT_EQ(two.quantile_ns(1.0), 5000u);
  EXPECT_EQ(two.quantile_ns(0.75), 8u);  // rank 3: last of bucket 2, 4 + 4 * 3/3
}

TEST(Histogram, BucketZeroStartsAtZero) {
  Histogram h = one_bucket(0, 10, 5, 1);  // ten samples of 0 or 1 ns
  EXPECT_EQ(h.quantile_ns(0.2), 0u);  // rank 2: 0 + 2 * 2/10 = 0.4, truncated
  EXPECT_EQ(h.quantile_ns(0.5), 1u);  // rank 5: 0 + 2 * 5/10 = 1
  EXPECT_EQ(h.quantile_ns(1.0), 1u);  // 2, capped at max 1
}

TEST(Histogram, PlusEqualsMerges) {
  Histogram a = one_bucket(10, 4, 6'000, 2'000);
  a.buckets[3] = 1;
  a.sum_ns += 9;
  Histogram b = one_bucket(10, 6, 9'000, 1'800);
  b.buckets[20] = 2;
  b.sum_ns += 2'500'000;
  b.max_ns = 1'600'000;

  a += b;
  EXPECT_EQ(a.buckets[3], 1u);
  EXPECT_EQ(a.buckets[10], 10u);
  EXPECT_EQ(a.buckets[20], 2u);
  EXPECT_EQ(a.count(), 13u);
  EXPECT_EQ(a.sum_ns, 6'009u + 9'000u + 2'500'000u);
  EXPECT_EQ(a.max_ns, 1'600'000u);
}

TEST(Histogram, MinusEqualsGivesTheIntervalAndClamps) {
  Histogram later = one_bucket(10, 10, 15'000, 2'000);
  later.buckets[11] = 4;
  later.sum_ns += 12'000;
  Histogram earlier = one_bucket(10, 7, 10'000, 1'900);

  Histogram delta = later;
  delta -= earlier;
  EXPECT_EQ(delta.buckets[10], 3u);
  EXPECT_EQ(delta.buckets[11], 4u);
  EXPECT_EQ(delta.count(), 7u);
  EXPECT_EQ(delta.sum_ns, 17'000u);
  EXPECT_EQ(delta.max_ns, 2'000u);  // an interval max is unknowable: the later max stays

  // A torn read where the "earlier" reading is larger must not wrap around.
  Histogram torn = earlier;
  torn -= later;
  EXPECT_EQ(torn.buckets[10], 0u);
  EXPECT_EQ(torn.buckets[11], 0u);
  EXPECT_EQ(torn.sum_ns, 0u);
}

// Documents a bug in quantile_ns, disabled until histogram.cpp is fixed: the top bucket
// is open-ended (the BPF side puts every latency of 2^40 ns, about 18 minutes, or more
// there), but interpolation still assumes it ends at 2^40, and the max_ns cap only ever
// lowers a value. A long-lived request (a multishot accept armed for a 30-minute run)
// then reports a p99 below its true latency; interpolating up to max_ns in the top
// bucket would fix it.
TEST(Histogram, TopBucketInterpolatesUpToMax) {
  const uint64_t thirty_min = 30ull * 60 * 1'000'000'000;  // 1.8e12 ns > 2^40
  Histogram h = one_bucket(kHistBuckets - 1, 1, thirty_min, thirty_min);
  EXPECT_EQ(h.quantile_ns(0.99), thirty_min);  // not 2^40 = 1,099,511,627,776
}

TEST(Histogram, AllZeroLatenciesGiveZero) {
  Histogram h = one_bucket(0, 10, 0, 0);
  EXPECT_EQ(h.quantile_ns(0.5), 0u);
  EXPECT_EQ(h.quantile_ns(0.99), 0u);
}

TEST(Histogram, RankIsNotSkippedByFloatingPointNoise) {
  // 7 samples in bucket 4 ([16, 32)), 93 in bucket 20. 0.07 * 100 is
  // 7.000000000000001 in binary: the 7th sample, the last of bucket 4, must be chosen.
  Histogram h;
  h.buckets[4] = 7;
  h.buckets[20] = 93;
  h.max_ns = 2'000'000;
  EXPECT_EQ(h.quantile_ns(0.07), 32u);  // 16 + 16 * 7/7
}

}  // namespace
}  // namespace uringscope
