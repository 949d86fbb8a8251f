// SPDX-License-Identifier: MIT
// Whether the boundary's exact source, uprobes on a shared liburing's exported calls
// (bpf/liburing.bpf.c), was attached in this run, and where: the loader fills it, the
// report says which source each number came from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace uringscope {

struct LiburingUprobes {
  bool tried = false;                  // the boundary was on, so the loader looked
  std::vector<std::string> libraries;  // the liburing.so files attached to
  uint32_t functions = 0;              // exported calls attached (entry and return)
  std::string why_not;                 // when nothing attached: why, in one line

  bool attached() const { return functions > 0; }
  bool operator==(const LiburingUprobes&) const = default;
};

}  // namespace uringscope
