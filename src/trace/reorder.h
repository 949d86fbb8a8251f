// SPDX-License-Identifier: MIT
// Records can reach the ring buffer slightly out of timestamp order: the timestamp is
// taken before the record is reserved, and another CPU can reserve in between. A SUBMIT
// overtaken by its own fast CQE would otherwise lose its request, so records are held
// back here and released in timestamp order once they are a window older than the
// newest record seen (or when too many are held).
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
  // Whether the oldest held record is due: past the window, or over the count bound.
  bool due() const;
  // The oldest held record (ties in arrival order); the queue must not be empty.
  us_trace_event pop();
  bool empty() const { return pending_.empty(); }
  std::size_t size() const { return pending_.size(); }

 private:
  struct Pending {
    us_trace_event e;
    uint64_t seq;  // arrival order: breaks timestamp ties the way the ring buffer did
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.e.ts != b.e.ts ? a.e.ts > b.e.ts : a.seq > b.seq;
    }
  };

  std::vector<Pending> pending_;  // min-heap on (ts, seq)
  uint64_t seq_ = 0;
  uint64_t newest_ts_ = 0;
};

}  // namespace uringscope
