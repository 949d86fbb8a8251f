// SPDX-License-Identifier: MIT
// Process hygiene: what a run leaves behind when it ends in ways a shell pipeline ends
// it. The fixture checks after each test that no program of ours is still loaded.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "harness.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;

namespace {

class Hygiene : public harness::KernelTest {};

// `uringscope -i ... | head`: the reader leaves after two lines. The run must end then,
// long before its -d deadline, exit as a run normally does (not killed by SIGPIPE,
// status 141), and leave the watched process alone.
TEST_F(Hygiene, ClosedOutputPipeEndsTheRunCleanly) {
  harness::Subprocess app({kInject, "--wait-signal", "--linger", "60", "clean", "10"});
  ASSERT_TRUE(app.wait_for_output("READY", false, 10s)) << app.err();
  const std::string pipeline = kUringscope + " -i 0.2 -d 60 -p " + std::to_string(app.pid()) +
                               " 2>/dev/null | head -n 2; exit ${PIPESTATUS[0]}";
  const auto start = std::chrono::steady_clock::now();
  auto r = harness::run({"bash", "-c", pipeline}, 40s);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 0) << "uringscope's own exit status; 141 is death by SIGPIPE\n" << r.err;
  EXPECT_LT(elapsed, 20s) << "the run went on after its output closed";
  EXPECT_EQ(::kill(app.pid(), 0), 0) << "the watched process must not be touched";
  app.signal(SIGKILL);
  app.wait(10s);
}

}  // namespace
