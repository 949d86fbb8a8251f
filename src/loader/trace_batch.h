// SPDX-License-Identifier: MIT
// The BPF side sends --trace records in per-CPU batches (struct us_trace_batch, cut
// after its `count` events): this is where they become single records again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "uringscope/abi.h"

namespace uringscope {

// Calls `sink` with each event of one ring-buffer record, in the order the CPU staged
// them, and returns how many. A record shorter than its count says gives the events it
// holds whole; one shorter than the header gives none.
uint64_t for_each_trace_event(const void* data, std::size_t size,
                              const std::function<void(const us_trace_event&)>& sink);

}  // namespace uringscope
