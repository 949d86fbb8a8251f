// SPDX-License-Identifier: MIT
#include "loader/trace_batch.h"

#include <algorithm>
#include <cstring>

namespace uringscope {

uint64_t for_each_trace_event(const void* data, std::size_t size,
                              const std::function<void(const us_trace_event&)>& sink) {
  constexpr std::size_t kHeader = offsetof(us_trace_batch, ev);
  if (size < kHeader) return 0;
  uint32_t count = 0;
  std::memcpy(&count, data, sizeof count);
  const std::size_t whole = (size - kHeader) / sizeof(us_trace_event);
  const std::size_t n = std::min<std::size_t>({count, whole, US_TRACE_BATCH});
  const auto* bytes = static_cast<const unsigned char*>(data) + kHeader;
  for (std::size_t i = 0; i < n; ++i) {
    // Ring-buffer records are 8-byte aligned, as the events are: no copy needed, but one
    // keeps this independent of the buffer's alignment.
    us_trace_event e;
    std::memcpy(&e, bytes + i * sizeof e, sizeof e);
    sink(e);
  }
  return n;
}

}  // namespace uringscope
