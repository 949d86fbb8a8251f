// SPDX-License-Identifier: MIT
// What the Tracer copies out of the kernel's tables: the tables themselves, the target
// filter, and the count of requests in flight for the leak sampler.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>

#include "loader/liburing_probes.h"
#include "loader/map_copy.h"
#include "loader/tracer.h"
#include "uringscope_bpf.skel.h"

namespace uringscope {

uint64_t Tracer::count_in_flight_since(uint64_t before_ns) const {
  uint64_t n = 0;
  MappedArray<us_inflight_bucket>& table = *inflight_view_;
  for (uint32_t b = 0; b < table.size(); ++b) {
    for (const us_inflight& w : table[b].way) {
      if (!w.req || w.start_ns == 0 || w.start_ns >= before_ns) continue;
      if ((w.state & US_IF_CQE_SKIP) && !(w.state & US_IF_ABANDONED)) continue;
      ++n;
    }
  }
  return n;
}

// The kernel runs a program once per CPU at a time: an event that fires while the same
// program is running on that CPU (preempted, where tracepoints run their programs
// preemptibly, or interrupted) runs nothing and counts a recursion miss (5.12+). Events
// lost are the programs' misses less those their catchers handled; a catcher's own
// misses lose nothing unless its program missed the same event, which is counted there.
uint64_t Tracer::kernel_misses() const {
  uint64_t misses = 0;
  bpf_program* prog = nullptr;
  bpf_object__for_each_program(prog, skel_->obj) {
    const int fd = bpf_program__fd(prog);
    if (fd < 0 || is_catcher(bpf_program__name(prog))) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) misses += info.recursion_misses;
  }
  const uint64_t caught = skel_->bss->us_tool[US_TOOL_MISSES_CAUGHT];
  return misses > caught ? misses - caught : 0;
}

std::vector<uint32_t> Tracer::target_tgids() const {
  std::vector<uint32_t> tgids;
  const auto words = copy_rows<uint64_t>(skel_->maps.targets, bpf_map__max_entries(skel_->maps.targets));
  for (uint32_t word = 0; word < words.size(); ++word) {
    const uint64_t bits = words[word];
    if (bits == 0) continue;
    for (uint32_t bit = 0; bit < 64; ++bit) {
      if (bits & (uint64_t{1} << bit)) tgids.push_back(word * 64 + bit);
    }
  }
  // Followed processes that exited left the filter, but were targets all the same.
  for (const auto& [tgid, seen] : copy_hash<uint32_t, uint8_t>(skel_->maps.followed_exited)) {
    (void)seen;
    tgids.push_back(tgid);
  }
  std::sort(tgids.begin(), tgids.end());
  tgids.erase(std::unique(tgids.begin(), tgids.end()), tgids.end());
  return tgids;
}

std::vector<Tracer::LiveRing> Tracer::live_rings() const {
  const uint32_t rows = skel_->bss->ring_rows + 1;
  std::vector<LiveRing> live;
  const auto info = copy_rows<us_ring_info>(skel_->maps.ring_info, rows);
  for (uint32_t row = 1; row < info.size(); ++row) {
    if (info[row].ctx) live.push_back({row, info[row].ctx, info[row].tgid});
  }
  return live;
}

std::vector<std::pair<us_file_id, us_file_name>> Tracer::read_file_names() const {
  if (!config_.files) return {};
  return copy_hash<us_file_id, us_file_name>(skel_->maps.file_names);
}

RawTables Tracer::read_tables(bool with_inflight) const {
  RawTables raw;
  // The counts first, then whose they are. BPF describes a row (ring_info) before any
  // event can count in it, and only this thread clears a row (reclaim), so every row the
  // counts name is already described when ring_info is copied after them. Copied the
  // other way round, a ring created between the two copies (a churning program makes
  // thousands a second) showed its counts under an empty row.
  const uint32_t opstat_rows = skel_->bss->opstat_rows + 1;
  raw.opstats = copy_rows<us_opstat>(skel_->maps.opstats, opstat_rows);
  raw.ring_stats = copy_rows<us_ring_stats>(skel_->maps.ring_stats, skel_->bss->ring_rows + 1);
  for (int i = 0; i < US_TOOL__COUNT; ++i) raw.tool[i] = skel_->bss->us_tool[i];
  raw.tool[US_TOOL_KERNEL_MISSES] = kernel_misses();
  if (with_inflight) {
    raw.inflight = copy_rows<us_inflight_bucket>(skel_->maps.inflight,
                                                bpf_map__max_entries(skel_->maps.inflight));
  }
  raw.errnos = copy_hash<us_errno_key, uint64_t>(skel_->maps.errnos);
  raw.threads = copy_hash<uint32_t, us_thread>(skel_->maps.threads);
  raw.worker_counts = copy_hash<uint32_t, uint64_t>(skel_->maps.worker_counts);
  if (config_.files) {
    raw.files = copy_hash<us_file_key, us_filestat>(skel_->maps.file_stats);
    raw.file_names = read_file_names();
    if (with_inflight) raw.req_files = copy_hash<uint64_t, us_req_file>(skel_->maps.req_files);
  }
  raw.ring_info = copy_rows<us_ring_info>(skel_->maps.ring_info, skel_->bss->ring_rows + 1);
  // Rows claimed since their counts were copied: described, with no counts yet.
  raw.ring_stats.resize(raw.ring_info.size());
  raw.retired = retired_.records();
  // Learnt for --trace alone too; the boundary is measured only when it is on.
  raw.cqe_order_known = config_.boundary && skel_->bss->cqe_order != US_CQE_ORDER_UNKNOWN;
  if (liburing_) raw.liburing = liburing_->status();
  return raw;
}

}  // namespace uringscope
