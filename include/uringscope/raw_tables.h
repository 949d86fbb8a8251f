// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <utility>
#include <cstdint>
#include <vector>

#include "uringscope/abi.h"

namespace uringscope {

// The kernel tables as copied out of the BPF maps: row 0 of each is the catch-all row,
// rows 1..N were handed out in order of first sight. No libbpf types, so the step that
// turns these rows into a Snapshot is testable without a kernel.
struct RawTables {
  std::vector<us_ring_info> ring_info;
  std::vector<us_ring_stats> ring_stats;  // same length as ring_info
  std::vector<us_opstat> opstats;
  std::array<uint64_t, US_TOOL__COUNT> tool{};
  std::vector<us_inflight_bucket> inflight;  // the whole table, for the leak scan
  std::vector<std::pair<us_errno_key, uint64_t>> errnos;
  std::vector<std::pair<uint32_t, us_thread>> threads;  // tid -> thread
};

}  // namespace uringscope
