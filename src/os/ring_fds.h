// SPDX-License-Identifier: MIT
// The fallback for a ring whose fd the BPF side could not learn (no fd-table walk on
// this kernel, and no io_uring_enter() on it in the window): /proc/PID/fdinfo.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

struct RingFdinfo {
  int fd = -1;
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
};

// An io_uring fdinfo ("SqMask:\t0x3f" ... "CqMask:\t0x7f"); nullopt for anything else.
std::optional<RingFdinfo> parse_ring_fdinfo(int fd, std::string_view text);

// Gives each ring with an unknown fd the fd of the one io_uring file of its process
// with the same sizes that no other ring of that process holds. When two such files
// match, the fd stays unknown: a wrong fd would be worse than none.
void assign_ring_fds(std::vector<Ring>& rings,
                     const std::map<uint32_t, std::vector<RingFdinfo>>& files_by_pid);

// Reads /proc for the processes of rings with an unknown fd and assigns what it can.
void resolve_ring_fds_from_proc(std::vector<Ring>& rings);

}  // namespace uringscope
