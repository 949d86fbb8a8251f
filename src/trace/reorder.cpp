// SPDX-License-Identifier: MIT
#include "trace/reorder.h"

#include <algorithm>

namespace uringscope {
namespace {

// The gap is microseconds in practice; 2 ms is generous and still keeps only a few
// thousand records in memory.
constexpr uint64_t kReorderWindowNs = 2'000'000;
// ... and at most this many, whatever the rate (72-byte records: about 1.3 MiB).
constexpr std::size_t kMaxPending = 16384;

}  // namespace

ReorderQueue::ReorderQueue() { pending_.reserve(1024); }

void ReorderQueue::push(const us_trace_event& e) {
  newest_ts_ = std::max<uint64_t>(newest_ts_, e.ts);
  pending_.push_back({e, seq_++});
  std::push_heap(pending_.begin(), pending_.end(), Later{});
}

bool ReorderQueue::due() const {
  return !pending_.empty() &&
         (pending_.front().e.ts + kReorderWindowNs <= newest_ts_ || pending_.size() > kMaxPending);
}

us_trace_event ReorderQueue::pop() {
  std::pop_heap(pending_.begin(), pending_.end(), Later{});
  us_trace_event e = pending_.back().e;
  pending_.pop_back();
  return e;
}

}  // namespace uringscope
