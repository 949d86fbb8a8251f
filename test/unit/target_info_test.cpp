// SPDX-License-Identifier: MIT
// The targets a -f run lists (uringscope/target_info.h): a run over a test suite follows
// thousands of processes, and the report lists the command's process and at most 64 more,
// counting the rest.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "uringscope/target_info.h"

namespace uringscope {
namespace {

TEST(TargetInfo, FollowedProcessesAreListedUpToTheBoundThenCounted) {
  TargetInfo target{TargetMode::Command, {1000}, 0, {"make", "check"}};
  std::vector<uint32_t> followed;
  for (uint32_t pid = 1000; pid < 1000 + 500; ++pid) followed.push_back(pid);  // 1000 again
  add_followed_pids(target, followed);
  ASSERT_EQ(target.pids.size(), kListedTargetPids);
  EXPECT_EQ(target.pids.front(), 1000);
  EXPECT_EQ(target.pids.back(), 1000 + static_cast<int>(kListedTargetPids) - 1);
  EXPECT_EQ(target.pids_omitted, 500u - kListedTargetPids);
  // A process already listed is not listed or counted again.
  add_followed_pids(target, {1000, 1001});
  EXPECT_EQ(target.pids.size(), kListedTargetPids);
  EXPECT_EQ(target.pids_omitted, 500u - kListedTargetPids);
}

TEST(TargetInfo, AFewFollowedProcessesAreAllListed) {
  TargetInfo target{TargetMode::Command, {7}, 0, {}};
  add_followed_pids(target, {3, 7, 9});
  EXPECT_EQ(target.pids, (std::vector<int>{7, 3, 9}));
  EXPECT_EQ(target.pids_omitted, 0u);
}

}  // namespace
}  // namespace uringscope
