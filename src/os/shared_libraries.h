// SPDX-License-Identifier: MIT
// Where a shared liburing is: the liburing.so files a run's targets map or would map,
// for the boundary's uprobes (loader/liburing_probes.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// The liburing.so files named in a /proc/PID/maps text, in order, each once.
std::vector<std::string> liburing_in_maps(std::string_view maps);

// The shared liburing.so.2 files of a run: the ones the running targets map (through
// /proc/PID/root when the target sees another file at that path: a container's copy),
// and the one the dynamic linker would give a new command (LD_LIBRARY_PATH, then this
// architecture's library directories). Each file once, by device and inode; only files
// that exist.
std::vector<std::string> find_liburing(const std::vector<uint32_t>& pids);

}  // namespace uringscope
