// SPDX-License-Identifier: MIT
// SQ-WAIT on hand-made SQPOLL rings, the SQPOLL finding's SQ-wait evidence, and the
// sq_wait JSON and text they come with (openmetrics_test.cpp has the metrics).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/boundary_json.h"
#include "report/report.h"
#include "support/fixtures.h"
#include "uringscope/findings.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

constexpr uint64_t kMs = 1'000'000;

// An SQPOLL ring whose thread slept 50 times in a 1 s window, woken 50 times by the
// program, and `n` SQEs watched waiting `wait_ns` each, first seen within `res_ns`.
Ring sqpoll_ring(uint64_t n, uint64_t wait_ns, uint64_t res_ns = 900'000) {
  Ring ring;
  ring.id = 2;
  ring.setup_flags = kSetupSqpoll;
  ring.sq_tid = 4242;
  ring.counters.submissions = 50;
  ring.counters.sqpoll_sleeps = 50;
  ring.counters.sqpoll_wakeups = 50;
  ring.counters.sqpoll_offcpu_ns = 900 * kMs;
  ring.boundary.sq_wait = report_test::uniform_histogram(n, wait_ns);
  ring.boundary.sq_res_sum_ns = n * res_ns;
  ring.boundary.sq_res_max_ns = res_ns;
  ring.boundary.sq_timer_looks = 7;
  return ring;
}

Snapshot measured(std::vector<Ring> rings) {
  Snapshot snap;
  snap.boundary_measured = true;
  snap.wall_ns = 1000 * kMs;
  snap.rings = std::move(rings);
  aggregate(snap);
  return snap;
}

std::vector<Finding> with_tag(const Snapshot& snap, std::string_view tag) {
  std::vector<Finding> out;
  for (const Finding& f : evaluate(snap))
    if (f.tag == tag) out.push_back(f);
  return out;
}

int64_t evidence(const Finding& f, std::string_view key) {
  for (const Evidence& e : f.evidence)
    if (e.key == key) return std::get<int64_t>(e.value);
  ADD_FAILURE() << "no evidence " << key << " in " << f.message;
  return -1;
}

TEST(SqWait, WarnsWhenSqesWaitPastTheThresholdAtP99) {
  const auto found = with_tag(measured({sqpoll_ring(30, 50 * kMs)}), kTagSqWait);
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 2u);
  EXPECT_NE(f.message.find("ring #2"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("tid 4242"), std::string::npos) << f.message;
  EXPECT_NE(f.suggestion.find("IORING_SQ_NEED_WAKEUP"), std::string::npos);
  EXPECT_EQ(evidence(f, "watched"), 30);
  EXPECT_EQ(evidence(f, "max_ns"), static_cast<int64_t>(50 * kMs));
  EXPECT_EQ(evidence(f, "resolution_max_ns"), 900'000);
  EXPECT_EQ(evidence(f, "sqpoll_wakeups"), 50);
}

TEST(SqWait, SilentBelowTheThresholdWithFewSqesUnmeasuredOrWithoutSqpoll) {
  EXPECT_TRUE(with_tag(measured({sqpoll_ring(1000, 40'000)}), kTagSqWait).empty());
  EXPECT_TRUE(with_tag(measured({sqpoll_ring(19, 50 * kMs)}), kTagSqWait).empty());
  Snapshot unmeasured = measured({sqpoll_ring(30, 50 * kMs)});
  unmeasured.boundary_measured = false;
  EXPECT_TRUE(with_tag(unmeasured, kTagSqWait).empty());
  Ring plain = sqpoll_ring(30, 50 * kMs);
  plain.setup_flags = 0;
  EXPECT_TRUE(with_tag(measured({plain}), kTagSqWait).empty());
}

TEST(SqWait, TheSqpollFindingCarriesTheSqWaitBesideItsOwnEvidence) {
  // 50 wakeups in 1 s, 1 SQE each, 90% off-CPU: SQPOLL's small-bursts finding.
  const auto found = with_tag(measured({sqpoll_ring(30, 50 * kMs)}), kTagSqpoll);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(evidence(found[0], "sq_wait_watched"), 30);
  EXPECT_EQ(evidence(found[0], "sq_wait_max_ns"), static_cast<int64_t>(50 * kMs));
  const auto sorted = evaluate(measured({sqpoll_ring(30, 50 * kMs)}));
  ASSERT_GE(sorted.size(), 2u);  // side by side: same ring and severity, SQ-WAIT first
  EXPECT_EQ(sorted[0].tag, kTagSqWait);
  EXPECT_EQ(sorted[1].tag, kTagSqpoll);
}

TEST(SqWait, JsonHasTheSqWaitOfSqpollRingsOnly) {
  Ring plain;
  plain.id = 5;
  plain.boundary.cq_depth_samples = 4;
  const auto j = end_to_end_json(measured({sqpoll_ring(30, 50 * kMs, 400'000), plain}));
  ASSERT_EQ(j.at("rings").size(), 2u);
  const auto& sq = j.at("rings")[0].at("sq_wait");
  EXPECT_EQ(sq.at("watched"), 30);
  EXPECT_EQ(sq.at("avg_ns"), 50 * kMs);
  EXPECT_EQ(sq.at("resolution_avg_ns"), 400'000);
  EXPECT_EQ(sq.at("timer_looks"), 7);
  EXPECT_EQ(sq.at("log2_hist").size(), kHistBuckets);
  EXPECT_EQ(sq.at("taken_unseen"), 0);
  EXPECT_FALSE(j.at("rings")[1].contains("sq_wait"));
}

TEST(SqWait, SqesTakenBeforeAnyLookAreZerosAndOutOfTheResolution) {
  Ring ring = sqpoll_ring(30, 50 * kMs, 400'000);
  ring.boundary.sq_taken_unseen = 970;  // as the builder does: in slot 0
  ring.boundary.sq_wait.buckets[0] += 970;
  const Snapshot snap = measured({ring});
  EXPECT_EQ(snap.rings[0].boundary.sq_res_mean_ns(), 400'000u);  // the 30 seen waiting
  const auto j = end_to_end_json(snap);
  const auto& sq = j.at("rings")[0].at("sq_wait");
  EXPECT_EQ(sq.at("watched"), 1000);
  EXPECT_EQ(sq.at("taken_unseen"), 970);
  EXPECT_EQ(sq.at("resolution_avg_ns"), 400'000);
  // 3% of 1,000 waited 50 ms: p99 shows them, p50 does not.
  EXPECT_GE(sq.at("p99_ns").get<uint64_t>(), 32 * kMs);
  EXPECT_LT(sq.at("p50_ns").get<uint64_t>(), 1000u);
  std::ostringstream out;
  render_boundary(out, snap.rings[0], evaluate(snap));
  EXPECT_NE(out.str().find("970 taken before a look saw them, counted as 0; 30 seen waiting"),
            std::string::npos)
      << out.str();
}

TEST(SqWait, TextLineMarkedByTheFinding) {
  const Snapshot snap = measured({sqpoll_ring(30, 50 * kMs)});
  std::ostringstream out;
  render_boundary(out, snap.rings[0], evaluate(snap));
  const std::string text = out.str();
  EXPECT_NE(text.find("SQ wait"), std::string::npos) << text;
  EXPECT_NE(text.find("max 50ms (30 SQEs watched"), std::string::npos) << text;
  EXPECT_NE(text.find("<-- !"), std::string::npos) << text;
  EXPECT_EQ(text.find("CQ depth"), std::string::npos) << text;  // no CQE posted
}

}  // namespace
}  // namespace uringscope
