// SPDX-License-Identifier: MIT
// The catchers (bpf/catch.bpf.h): a second copy of each tracepoint program that handles
// the events the kernel skipped the first for. Forced on where the kernel does not need
// them, every event reaches both copies: the program marks it and its catcher must
// recognise it, so each count is still exactly what the injector did, never twice. Where
// the kernel needs them (6.19+) they are on anyway and the same checks hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

using harness::find_op;
using harness::num;

namespace {

class Catchers : public harness::KernelTest {};

const std::vector<std::string> kForced = {"URINGSCOPE_FORCE_FEATURES=catchers"};

struct CatcherCase {
  std::vector<std::string> inject;
  std::vector<std::string> ops;
};

// Submits, completions, punts to io-wq, poll arms, task work, multishot CQEs, links and
// ring churn with its creates and teardowns: every program that has a catcher fires.
TEST_F(Catchers, EveryEventCountedOnce) {
  const CatcherCase cases[] = {
      {{"punt", "300"}, {"READ"}},
      {{"pollretry-socket", "100"}, {"RECV"}},
      {{"multishot"}, {"POLL_ADD", "POLL_REMOVE"}},
      {{"link", "100"}, {"NOP"}},
  };
  for (const CatcherCase& c : cases) {
    auto [report, gt] = run_scenario(c.inject, 0, kForced);
    const std::string name = c.inject.front();
    EXPECT_TRUE(report.at("kernel").at("features").at("catchers").get<bool>()) << name;
    const long long lost = num(report.at("tool_stats"), "kernel_misses");
    const auto& ring = harness::ring_of(report, gt);
    for (const std::string& op : c.ops) {
      const nlohmann::json* row = find_op(ring.at("ops"), op);
      ASSERT_NE(row, nullptr) << name << " " << op;
      const long long submitted = gt.number("op", op, "submitted");
      const long long completed = gt.number("op", op, "completed");
      EXPECT_LE(num(*row, "submitted"), submitted) << name << " " << op;
      EXPECT_LE(num(*row, "completed"), completed) << name << " " << op;
      EXPECT_GE(num(*row, "submitted") + lost, submitted) << name << " " << op;
      EXPECT_GE(num(*row, "completed") + lost, completed) << name << " " << op;
      if (op == "READ") EXPECT_EQ(num(*row, "punted"), gt.number("op", op, "forced_async"));
    }
  }
}

TEST_F(Catchers, ChurnedRingsAllCountedOnce) {
  auto [report, gt] = run_scenario({"ring-churn", "40"}, 0, kForced, {"--rings", "all"});
  long long churned = 0, submissions = 0;
  for (const auto& ring : report.at("rings")) {
    const long long n = num(ring.at("counters"), "submissions");
    if (n == 0) continue;
    churned += ring.at("destroyed").get<bool>();
    submissions += n;
  }
  const long long lost = num(report.at("tool_stats"), "kernel_misses");
  EXPECT_LE(submissions, gt.number("op", "NOP", "submitted"));
  EXPECT_GE(submissions + lost, gt.number("op", "NOP", "submitted"));
  EXPECT_GE(churned + lost, gt.value("rings"));
  if (lost == 0) {
    EXPECT_EQ(churned, gt.value("rings"));
    EXPECT_EQ(submissions, gt.number("op", "NOP", "submitted"));
  }
}

}  // namespace
