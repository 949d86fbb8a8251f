// SPDX-License-Identifier: MIT
#include "cli/waiting_sampler.h"

namespace uringscope {

WaitingSampler::WaitingSampler(std::size_t max_samples)
    : max_samples_(max_samples < 2 ? 2 : max_samples) {}

void WaitingSampler::offer(uint64_t at_ns, uint64_t requests) {
  if (ticks_++ % stride_ != 0) return;
  // One place left for the reading at the end.
  if (samples_.size() + 1 >= max_samples_) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < samples_.size(); i += 2) samples_[kept++] = samples_[i];
    samples_.resize(kept);
    stride_ *= 2;
    if ((ticks_ - 1) % stride_ != 0) return;
  }
  samples_.push_back({at_ns, requests});
}

void WaitingSampler::finish(uint64_t at_ns, uint64_t requests) {
  if (samples_.size() + 1 > max_samples_) samples_.pop_back();
  samples_.push_back({at_ns, requests});
}

}  // namespace uringscope
