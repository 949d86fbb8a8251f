// SPDX-License-Identifier: MIT
// --liburing: uprobes on the shared liburing the injector links (bpf/liburing.bpf.c),
// scored against what the injector did; off by default; and a process that outlives the
// run keeps calling liburing safely once the probes are gone.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "harness.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;
using harness::num;

namespace {

class Liburing : public harness::KernelTest {};

const nlohmann::json& first_ring(const nlohmann::json& report) {
  return report.at("end_to_end").at("rings").at(0);
}

TEST_F(Liburing, SubmitCallsAndExactReapLagOfASharedLiburing) {
  auto [report, gt] = run_scenario({"reap-lag-wait", "20"}, 0, {}, {"--liburing"});
  const auto& uprobes = report.at("end_to_end").at("uprobes");
  ASSERT_TRUE(uprobes.at("attached").get<bool>()) << uprobes.dump();
  EXPECT_GE(num(uprobes, "calls"), 7) << "liburing 2.3 exports all eight calls but one";
  const auto& lu = first_ring(report).at("liburing");
  EXPECT_EQ(num(lu, "submit_calls"), gt.value("submit_calls"));
  EXPECT_EQ(num(lu, "submitted"), gt.value("sqes"));
  EXPECT_EQ(num(lu, "cqes_handed"), gt.value("handed"));
  const auto& lag = lu.at("reap_lag");
  EXPECT_GE(num(lag, "watched"), 19);
  EXPECT_LE(num(lag, "watched"), 20);
  const long long hold_min_ns = gt.value("hold_min_us") * 1000;
  const long long span_max_ns = gt.value("span_max_us") * 1000;
  // Posted inside the submit call, handed over inside the fetch (the scenario's comment).
  EXPECT_GE(num(lag, "avg_ns"), hold_min_ns - 1'000'000) << lag.dump();
  EXPECT_LE(num(lag, "max_ns"), span_max_ns) << lag.dump();
}

TEST_F(Liburing, OffByDefaultAndSaysHowToTurnItOn) {
  auto [report, gt] = run_scenario({"reap-lag-wait", "3"});
  const auto& uprobes = report.at("end_to_end").at("uprobes");
  EXPECT_FALSE(uprobes.at("attached").get<bool>());
  EXPECT_NE(uprobes.at("detail").get<std::string>().find("--liburing"), std::string::npos);
  EXPECT_FALSE(first_ring(report).contains("liburing"));
}

// The probes go while the program is between and inside liburing calls (a uretprobe may
// be pending in io_uring_wait_cqes()): it must go on, unharmed, to its last CQE.
TEST_F(Liburing, AProgramOutlivingTheRunKeepsCallingLiburing) {
  harness::Subprocess app({kInject, "--wait-signal", "reap-lag-wait", "40"});
  ASSERT_TRUE(app.wait_for_output("READY", false, 10s)) << app.err();
  harness::Subprocess scope({kUringscope, "--liburing", "-p", std::to_string(app.pid()), "-d", "0.5"});
  ASSERT_TRUE(scope.wait_for_output("attached", true, harness::kAttachTimeout)) << scope.err();
  app.signal(SIGUSR1);
  ASSERT_EQ(scope.wait(30s), 0) << scope.err();
  ASSERT_EQ(app.wait(), 0) << app.err();
  const harness::GroundTruth gt = harness::parse_ground_truth(app.out());
  EXPECT_EQ(gt.value("handed"), 40);
}

}  // namespace
