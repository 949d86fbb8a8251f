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

}  // namespace uringscope
