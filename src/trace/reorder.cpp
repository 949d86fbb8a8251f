// SPDX-License-Identifier: MIT
#include "trace/reorder.h"

#include <algorithm>

namespace uringscope {
namespace {

// Held records between two drains are a tenth of a second of traffic: at most this many,
// whatever the rate (a 72-byte record and a 24-byte key each: about 1.5 MiB). Past it,
// the oldest go out; a CPU's later-arriving older record is then written late (counted,
// docs/trace.md).
constexpr std::size_t kMaxPending = 16384;

}  // namespace

// Grown by doubling from 1,024, the vectors stop at the bound exactly (a power of two):
// holding one record more would double them again.
ReorderQueue::ReorderQueue() {
  pending_.reserve(1024);
  slots_.reserve(1024);
}

void ReorderQueue::push(const us_trace_event& e) {
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(e);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = e;
  }
  pending_.push_back({e.ts, seq_++, slot});
  std::push_heap(pending_.begin(), pending_.end(), Later{});
}

void ReorderQueue::release_before(uint64_t ts) { release_before_ = std::max(release_before_, ts); }

bool ReorderQueue::due() const {
  return !pending_.empty() &&
         (pending_.front().ts < release_before_ || pending_.size() >= kMaxPending);
}

us_trace_event ReorderQueue::pop() {
  std::pop_heap(pending_.begin(), pending_.end(), Later{});
  const uint32_t slot = pending_.back().slot;
  pending_.pop_back();
  free_slots_.push_back(slot);
  return slots_[slot];
}

}  // namespace uringscope
