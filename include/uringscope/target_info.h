// SPDX-License-Identifier: MIT
// What was traced, as the report names it: a command, processes by pid, or every process.
// Apart from the snapshot so that the code that opens the targets (src/os) needs no more
// of the model than this.
#pragma once

#include <string>
#include <vector>

namespace uringscope {

enum class TargetMode { Command, Pid, All };

struct TargetInfo {
  TargetMode mode = TargetMode::All;
  std::vector<int> pids;
  std::vector<std::string> command;

  bool operator==(const TargetInfo&) const = default;
};

}  // namespace uringscope
