// SPDX-License-Identifier: MIT
// What was traced, as the report names it: a command, processes by pid, or every process.
// Apart from the snapshot so that the code that opens the targets (src/os) needs no more
// of the model than this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace uringscope {

enum class TargetMode { Command, Pid, All };

// The processes -f followed, listed at most: a run over a test suite follows thousands.
inline constexpr std::size_t kListedTargetPids = 64;

struct TargetInfo {
  TargetMode mode = TargetMode::All;
  std::vector<int> pids;       // at most kListedTargetPids followed ones after the first
  uint64_t pids_omitted = 0;   // followed processes past that
  std::vector<std::string> command;

  bool operator==(const TargetInfo&) const = default;
};

// Adds the processes -f followed, once, at the end of the run: every target it had, exited
// ones too. Those not listed yet are listed up to kListedTargetPids and counted past it; a
// second call would count the unlisted ones again.
void add_followed_pids(TargetInfo& target, const std::vector<uint32_t>& tgids);

}  // namespace uringscope
