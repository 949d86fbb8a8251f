// SPDX-License-Identifier: MIT
#include "trace/reorder.h"

#include <algorithm>

namespace uringscope {
namespace {

// The index of a free entry of `items` (one put back in `free`, or a new one) holding v.
template <typename T>
uint32_t take(std::vector<T>& items, std::vector<uint32_t>& free, const T& v) {
  if (free.empty()) {
    items.push_back(v);
    return static_cast<uint32_t>(items.size() - 1);
  }
  uint32_t at = free.back();
  free.pop_back();
  items[at] = v;
  return at;
}

}  // namespace

// Grown by doubling from 1,024, the vectors stop at the bound exactly (a power of two):
// holding one record more would double them again.
ReorderQueue::ReorderQueue() {
  heads_.reserve(1024);
  runs_.reserve(1024);
  slots_.reserve(1024);
}

void ReorderQueue::push(const us_trace_event& e) {
  uint32_t slot = take(slots_, free_slots_, Slot{e, seq_++, kNone});
  ++held_;
  if (open_run_ != kNone) {
    Run& run = runs_[open_run_];
    if (slots_[run.tail].e.ts <= e.ts) {
      slots_[run.tail].next = slot;
      run.tail = slot;
      return;
    }
  }
  open_run_ = take(runs_, free_runs_, Run{slot, slot});
  heads_.push_back({e.ts, slots_[slot].seq, open_run_});
  std::push_heap(heads_.begin(), heads_.end(), Later{});
}

void ReorderQueue::release_before(uint64_t ts) { release_before_ = std::max(release_before_, ts); }

bool ReorderQueue::due() const {
  return !heads_.empty() && (heads_.front().ts < release_before_ || held_ >= kMaxHeld);
}

us_trace_event ReorderQueue::pop() {
  std::pop_heap(heads_.begin(), heads_.end(), Later{});
  Run& run = runs_[heads_.back().run];
  const uint32_t slot = run.head;
  const us_trace_event e = slots_[slot].e;
  const uint32_t next = slots_[slot].next;
  free_slots_.push_back(slot);
  --held_;
  if (next != kNone) {
    run.head = next;
    heads_.back().ts = slots_[next].e.ts;
    heads_.back().seq = slots_[next].seq;
    std::push_heap(heads_.begin(), heads_.end(), Later{});
  } else {
    if (open_run_ == heads_.back().run) open_run_ = kNone;
    free_runs_.push_back(heads_.back().run);
    heads_.pop_back();
  }
  return e;
}

}  // namespace uringscope
