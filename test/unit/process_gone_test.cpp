// SPDX-License-Identifier: MIT
// process_gone() decides whose rings the end of a run waits for: a live process is not
// gone, a zombie is (its files are closed), and so is one already reaped.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "os/process.h"

namespace uringscope {
namespace {

TEST(ProcessGone, ALiveProcessIsNot) { EXPECT_FALSE(process_gone(getpid())); }

TEST(ProcessGone, AZombieIsAndSoIsAReapedOne) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  // Not reaped yet: a zombie once it has exited.
  bool zombie = false;
  for (int i = 0; i < 200 && !zombie; ++i) {
    siginfo_t info{};
    zombie = waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) == 0;
    if (!zombie) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(zombie);
  EXPECT_TRUE(process_gone(child));
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_TRUE(process_gone(child));
}

}  // namespace
}  // namespace uringscope
