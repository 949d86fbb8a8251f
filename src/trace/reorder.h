// SPDX-License-Identifier: MIT
// Records reach the ring buffer out of timestamp order: each CPU stages its records and
// sends them in batches, so one CPU's records can come after later ones of another (by
// up to the time between drains, for a CPU that went idle). A SUBMIT overtaken by its own
// CQE would lose its request, so records are held here and released in timestamp order
// once the drain says every record before some time has arrived (release_before), or
// when too many are held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "uringscope/abi.h"

namespace uringscope {

class ReorderQueue {
 public:
  ReorderQueue();

  void push(const us_trace_event& e);
  // Every record stamped before `ts` has been pushed: those may go.
  void release_before(uint64_t ts);
  // Whether the oldest held record is due: before the release time, or over the count
  // bound.
  bool due() const;
  // The oldest held record (ties in arrival order); the queue must not be empty.
  us_trace_event pop();
  bool empty() const { return pending_.empty(); }
  std::size_t size() const { return pending_.size(); }

 private:
  // The heap orders small keys; the records (72 bytes) stay put in slots_, so a sift
  // moves a third of the bytes it would otherwise (the heap is often 16k deep).
  struct Key {
    uint64_t ts;
    uint64_t seq;   // arrival order: breaks timestamp ties the way the ring buffer did
    uint32_t slot;  // in slots_
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const {
      return a.ts != b.ts ? a.ts > b.ts : a.seq > b.seq;
    }
  };

  std::vector<Key> pending_;  // min-heap on (ts, seq)
  std::vector<us_trace_event> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t seq_ = 0;
  uint64_t release_before_ = 0;
};

}  // namespace uringscope
