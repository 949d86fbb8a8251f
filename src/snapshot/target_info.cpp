// SPDX-License-Identifier: MIT
#include "uringscope/target_info.h"

#include <algorithm>

namespace uringscope {

void add_followed_pids(TargetInfo& target, const std::vector<uint32_t>& tgids) {
  for (uint32_t tgid : tgids) {
    const int pid = static_cast<int>(tgid);
    if (std::find(target.pids.begin(), target.pids.end(), pid) != target.pids.end()) continue;
    if (target.pids.size() < kListedTargetPids) {
      target.pids.push_back(pid);
    } else {
      ++target.pids_omitted;
    }
  }
}

}  // namespace uringscope
