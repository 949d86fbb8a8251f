// SPDX-License-Identifier: MIT
// The fallback for a ring whose fd the BPF side could not learn (no fd-table walk on
// this kernel, and no io_uring_enter() on it in the window): /proc/PID/fdinfo.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>


namespace uringscope {

struct RingFdinfo {
  int fd = -1;
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
};

// An io_uring fdinfo ("SqMask:\t0x3f" ... "CqMask:\t0x7f"); nullopt for anything else.
std::optional<RingFdinfo> parse_ring_fdinfo(int fd, std::string_view text);

// What the fallback needs to know of a ring.
struct RingFdQuery {
  uint32_t pid = 0;  // 0: no process of its own (the catch-all ring)
  int fd = -1;       // -1 while unknown
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
};

// The fd of each ring, in order: its own when known; else the fd of the one io_uring
// file of its process with the same sizes that no other ring of that process holds (an
// fd found for an earlier ring counts as held). When two such files match, -1: a wrong
// fd would be worse than none.
std::vector<int> assign_ring_fds(const std::vector<RingFdQuery>& rings,
                                 const std::map<uint32_t, std::vector<RingFdinfo>>& files_by_pid);

// The same, reading /proc for the processes of rings with an unknown fd.
std::vector<int> resolve_ring_fds_from_proc(const std::vector<RingFdQuery>& rings);

}  // namespace uringscope
