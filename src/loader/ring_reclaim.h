// SPDX-License-Identifier: MIT
// Ring churn, userspace half (the BPF half is bpf/retire.bpf.c): the rows of rings whose
// teardown has ended are copied out, cleared, and handed back to the BPF allocators, so
// that a long run never runs out of rows while every destroyed ring stays in the report.
#pragma once

#include <cstdint>
#include <vector>

#include "loader/map_copy.h"
#include "uringscope/raw_tables.h"

struct uringscope_bpf;

namespace uringscope {

class RingReclaimer {
 public:
  // Maps the tables it clears; `skel` must outlive it.
  explicit RingReclaimer(uringscope_bpf& skel);

  // Collects every ring retired since the last call into `into` and gives its rows
  // back. Returns how many rings that was.
  std::size_t reclaim(std::vector<RetiredRing>& into);

 private:
  void collect_ops(RetiredRing& ring);
  // `index`: row -> position in the rings being reclaimed, -1 for rows that are not.
  void forget_threads(const std::vector<int>& index);
  void take_inflight(std::vector<RetiredRing>& rings, const std::vector<int>& index);

  uringscope_bpf& skel_;
  MappedArray<us_ring_info> info_;
  MappedArray<us_ring_stats> stats_;
  MappedArray<us_opstat> opstats_;
  MappedArray<uint32_t> opmap_;
  MappedArray<us_inflight_bucket> inflight_;
};

}  // namespace uringscope
