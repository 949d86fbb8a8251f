// SPDX-License-Identifier: MIT
// The series of LeakInfo::waiting_samples: how many requests had been in flight longer
// than the leak age, a few times a second. Bounded: when full, every other sample goes
// and the spacing doubles, so a run of any length keeps an evenly spaced series.
#pragma once

#include <cstdint>
#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

class WaitingSampler {
 public:
  explicit WaitingSampler(std::size_t max_samples = kMaxWaitingSamples);
  // One offer per sampling tick; kept when it falls on the current spacing.
  void offer(uint64_t at_ns, uint64_t requests);
  // The last reading, at the end of the window, is always kept.
  void finish(uint64_t at_ns, uint64_t requests);
  const std::vector<WaitingSample>& samples() const { return samples_; }

 private:
  std::size_t max_samples_;
  uint64_t ticks_ = 0;
  uint64_t stride_ = 1;  // keep one tick in this many
  std::vector<WaitingSample> samples_;
};

}  // namespace uringscope
