// SPDX-License-Identifier: MIT
// The kernel tier for LEAK as a growing set (docs/findings.md): a program whose set of
// requests waiting on events grows through the window is a warning, a server's steady
// set of armed receives is not. Attached with -p, so the window ends with the requests
// still waiting (at exit the kernel would cancel them, which is another finding).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "harness.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;

using harness::num;

namespace {

class Leak : public harness::KernelTest {
 protected:
  // The injector waits for SIGUSR1, runs, and lingers past uringscope's 2 s window.
  std::pair<nlohmann::json, harness::GroundTruth> attached(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kInject, "--wait-signal", "--linger", "3"};
    argv.insert(argv.end(), args.begin(), args.end());
    harness::Subprocess app(argv);
    EXPECT_TRUE(app.wait_for_output("READY", false, 10s)) << app.err();
    const std::string json = file("report.json");
    harness::Subprocess scope({kUringscope, "-p", std::to_string(app.pid()), "-d", "2", "--json=" + json});
    EXPECT_TRUE(scope.wait_for_output("attached", true, harness::kAttachTimeout)) << scope.err();
    app.signal(SIGUSR1);
    EXPECT_EQ(scope.wait(30s), 0) << scope.err();
    EXPECT_EQ(app.wait(), 0) << app.err();
    return {harness::read_json(json), harness::parse_ground_truth(app.out())};
  }
};

TEST_F(Leak, AGrowingSetOfWaitingReadsIsAWarning) {
  auto [report, gt] = attached({"leak-growing", "100"});
  const auto* read = harness::find_op(report.at("ops"), "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(num(*read, "submitted"), gt.number("op", "READ", "submitted"));
  EXPECT_EQ(num(*read, "completed"), 0);
  EXPECT_EQ(num(report.at("leak"), "pending"), gt.value("growing"));
  EXPECT_EQ(num(report.at("leak"), "suspected"), 0);
  const auto& samples = report.at("leak").at("waiting_samples");
  ASSERT_GE(samples.size(), 4u);
  EXPECT_EQ(num(samples.back(), "requests"), gt.value("growing"));
  const auto leaks = harness::findings_with_tag(report, "LEAK");
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_EQ(leaks[0].at("severity"), "WARN");
  EXPECT_EQ(num(leaks[0].at("evidence"), "waiting_last"), gt.value("growing"));
}

// The same leak spread over the whole 2 s window, a READ every 133 ms: only those of the
// first 1.5 s are past the leak age at the end, a dozen, still a set that only grows.
TEST_F(Leak, ASlowlyGrowingSetInAShortWindowIsAWarning) {
  auto [report, gt] = attached({"leak-growing-slow", "15"});
  const auto* read = harness::find_op(report.at("ops"), "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(num(*read, "submitted"), gt.number("op", "READ", "submitted"));
  EXPECT_GE(num(report.at("leak"), "pending"), 10);
  EXPECT_LE(num(report.at("leak"), "pending"), gt.value("growing"));
  const auto leaks = harness::findings_with_tag(report, "LEAK");
  ASSERT_EQ(leaks.size(), 1u);
  EXPECT_EQ(leaks[0].at("severity"), "WARN") << leaks[0].dump();
}

TEST_F(Leak, ASteadySetOfArmedReceivesStaysQuiet) {
  auto [report, gt] = attached({"steady-recv", "100"});
  const auto* recv = harness::find_op(report.at("ops"), "RECV");
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(num(*recv, "completed"), gt.number("op", "RECV", "completed"));
  EXPECT_EQ(num(report.at("leak"), "pending"), gt.value("armed"));
  for (const auto& f : harness::findings_with_tag(report, "LEAK")) EXPECT_EQ(f.at("severity"), "INFO");
}

}  // namespace
