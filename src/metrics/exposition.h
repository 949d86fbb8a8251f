// SPDX-License-Identifier: MIT
// Snapshot -> exposition text, OpenMetrics 1.0 or the Prometheus 0.0.4 text format. A
// pure function of a Snapshot, testable without a socket. docs/metrics.md describes the
// families.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "uringscope/snapshot.h"

namespace uringscope {

enum class ExpositionFormat { OpenMetrics, Prometheus004 };

std::string_view content_type(ExpositionFormat format);
std::string render_exposition(const Snapshot& snap, ExpositionFormat format);

// The `le` label value of latency bucket i (its upper bound, 2^(i+1) ns, in seconds) in
// the OpenMetrics canonical rendering (Go's %g): "2e-09", ..., "0.000131072", ...,
// "549.755813888". The same strings in every scrape and both formats.
std::string latency_bucket_le(std::size_t i);

// The buckets a histogram series exposes: the kernel's log2 buckets whose bounds lie from
// 256 ns (bucket 7, which also holds every faster request) to 2^36 ns, 68.7 s (bucket 35;
// slower requests are counted in +Inf only). Below 256 ns a bound would say more than
// the measurement can, as uringscope's own tracepoints add about 200 ns to a request;
// past a minute the bound no longer matters, only that the request was that slow. Twenty-nine bounds and +Inf instead of
// the kernel's forty: a ring's histograms are three quarters of a scrape.
inline constexpr std::size_t kFirstExposedBucket = 7;
inline constexpr std::size_t kLastExposedBucket = 35;

}  // namespace uringscope
