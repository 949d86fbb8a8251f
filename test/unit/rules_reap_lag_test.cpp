// SPDX-License-Identifier: MIT
// REAP-LAG on hand-made boundaries, and the end_to_end JSON and boundary text they come
// with.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/boundary_json.h"
#include "report/report.h"
#include "support/fixtures.h"
#include "uringscope/findings.h"

namespace uringscope {
namespace {

constexpr uint64_t kMs = 1'000'000;

// `n` reaps of `lag_ns` each, every one seen within `gap_ns`: each certainly took
// `lag_ns - gap_ns`.
Ring ring_with_reaps(uint64_t n, uint64_t lag_ns, uint64_t gap_ns = 500'000) {
  Ring ring;
  ring.id = 3;
  ring.boundary.cq_depth_samples = n;
  ring.boundary.cq_depth_sum = n;
  ring.boundary.cq_depth_max = 1;
  ring.boundary.reap_lag = report_test::uniform_histogram(n, lag_ns);
  ring.boundary.reap_lag_min = report_test::uniform_histogram(n, lag_ns > gap_ns ? lag_ns - gap_ns : 0);
  ring.boundary.reap_gap_sum_ns = n * gap_ns;
  ring.boundary.reap_gap_max_ns = gap_ns;
  return ring;
}

Snapshot measured(std::vector<Ring> rings) {
  Snapshot snap;
  snap.boundary_measured = true;
  snap.rings = std::move(rings);
  aggregate(snap);
  return snap;
}

std::vector<Finding> reap_lag_findings(const Snapshot& snap) {
  std::vector<Finding> out;
  for (const Finding& f : evaluate(snap))
    if (f.tag == kTagReapLag) out.push_back(f);
  return out;
}

TEST(ReapLag, LooksThatCameLateMakeNoFinding) {
  // Upper bounds of 25 ms, but each reap was first looked for 24.5 ms after the post (a
  // timer run late on a loaded guest): the CQEs certainly waited only 0.5 ms.
  EXPECT_TRUE(reap_lag_findings(measured({ring_with_reaps(30, 25 * kMs, 24'500'000)})).empty());
  // The same upper bounds seen within 1 ms: they waited at least 24 ms.
  const auto found = reap_lag_findings(measured({ring_with_reaps(30, 25 * kMs, kMs)}));
  ASSERT_EQ(found.size(), 1u);
  bool judged = false;
  for (const Evidence& e : found[0].evidence)
    if (e.key == "at_least_p99_ns") judged = std::get<int64_t>(e.value) >= 20 * static_cast<int64_t>(kMs);
  EXPECT_TRUE(judged);
}

TEST(ReapLag, WarnsWhenTheP99IsPastTheThreshold) {
  const auto found = reap_lag_findings(measured({ring_with_reaps(30, 50 * kMs)}));
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 3u);
  EXPECT_NE(f.message.find("ring #3"), std::string::npos) << f.message;
  EXPECT_NE(f.suggestion.find("wait_nr"), std::string::npos);
  bool has_source = false;
  for (const Evidence& e : f.evidence) {
    if (e.key == "source") has_source = std::get<std::string>(e.value) == "ring_index";
    if (e.key == "watched") {
      EXPECT_EQ(std::get<int64_t>(e.value), 30);
    }
    if (e.key == "resolution_max_ns") {
      EXPECT_EQ(std::get<int64_t>(e.value), 500'000);
    }
  }
  EXPECT_TRUE(has_source);
}

TEST(ReapLag, SilentBelowTheThresholdOrUnmeasured) {
  EXPECT_TRUE(reap_lag_findings(measured({ring_with_reaps(1000, 200'000)})).empty());
  EXPECT_TRUE(reap_lag_findings(measured({ring_with_reaps(1000, 19 * kMs, 0)})).empty());
  Snapshot unmeasured = measured({ring_with_reaps(30, 50 * kMs)});
  unmeasured.boundary_measured = false;
  EXPECT_TRUE(reap_lag_findings(unmeasured).empty());
}

// `quick` CQEs reaped within 1 ms, `slow` that certainly waited `slow_ns`, and `never`
// left unreaped at the teardown, the oldest `never_ns` old.
Ring mixed(uint64_t quick, uint64_t slow, uint64_t slow_ns, uint64_t never = 0,
           uint64_t never_ns = 0) {
  Ring ring = ring_with_reaps(quick, 500'000, 0);
  Ring late = ring_with_reaps(slow, slow_ns, 0);
  ring.boundary.reap_lag += late.boundary.reap_lag;
  ring.boundary.reap_lag_min += late.boundary.reap_lag_min;
  ring.boundary.reap_never = never;
  ring.boundary.reap_never_max_ns = never_ns;
  return ring;
}

std::string severity_of(const Ring& ring) {
  const auto found = reap_lag_findings(measured({ring}));
  return found.empty() ? "-" : std::string(severity_name(found[0].severity));
}

// A single CQE past the threshold is named; how long and how many make it a WARN.
TEST(ReapLag, SeverityByHowLongAndHowMany) {
  struct Case {
    const char* what;
    Ring ring;
    const char* severity;
  };
  const Case cases[] = {
      {"one CQE of one, 25 ms", mixed(0, 1, 25 * kMs), "INFO"},
      {"two of 1,000 at 50 ms: a stall", mixed(998, 2, 50 * kMs), "INFO"},
      {"three of 100 at 50 ms: 3 %", mixed(97, 3, 50 * kMs), "WARN"},
      {"three of 1,000 at 50 ms: 0.3 %", mixed(997, 3, 50 * kMs), "INFO"},
      {"one of 1,000 at 250 ms: ten times the threshold", mixed(999, 1, 250 * kMs), "WARN"},
      {"a batch of 8 reaped 50 ms apart", mixed(0, 8, 200 * kMs), "WARN"},
      {"19 CQEs at 50 ms, under the old floor of 20", mixed(0, 19, 50 * kMs), "WARN"},
      {"one CQE never reaped, 800 ms old", mixed(0, 0, 0, 1, 800 * kMs), "WARN"},
      {"one CQE never reaped, 30 ms old", mixed(10, 0, 0, 1, 30 * kMs), "INFO"},
      {"never reaped but young", mixed(10, 0, 0, 5, 2 * kMs), "-"},
  };
  for (const Case& c : cases) EXPECT_EQ(severity_of(c.ring), c.severity) << c.what;
}

TEST(ReapLag, TheMessageCountsTheCqesPastTheThresholdAndTheUnreaped) {
  const auto found = reap_lag_findings(measured({mixed(96, 4, 50 * kMs, 1, 900 * kMs)}));
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = found[0];
  EXPECT_NE(f.message.find("5 of 101 CQEs waited in the CQ ring longer than 20ms"),
            std::string::npos) << f.message;
  EXPECT_NE(f.message.find("the longest at least 900ms"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("1 CQEs were never reaped, the oldest 900ms old"), std::string::npos)
      << f.message;
  bool never = false;
  for (const Evidence& e : f.evidence)
    if (e.key == "never_reaped") never = std::get<int64_t>(e.value) == 1;
  EXPECT_TRUE(never);
}

TEST(EndToEndJson, NotMeasuredSaysSoAndNothingElse) {
  Snapshot snap;
  EXPECT_EQ(end_to_end_json(snap), (nlohmann::ordered_json{{"available", false}}));
}

TEST(EndToEndJson, PerRingDepthAndLagWithTheResolution) {
  Ring quiet;  // posted nothing while watched: no entry
  quiet.id = 1;
  const auto j = end_to_end_json(measured({ring_with_reaps(30, 50 * kMs, 400'000), quiet}));
  EXPECT_TRUE(j.at("available").get<bool>());
  EXPECT_EQ(j.at("source"), "ring_index");
  EXPECT_EQ(j.at("tick_ns"), 1'000'000);
  ASSERT_EQ(j.at("rings").size(), 1u);
  const auto& r = j.at("rings")[0];
  EXPECT_EQ(r.at("ring"), 3);
  EXPECT_EQ(r.at("cq_depth").at("samples"), 30);
  EXPECT_DOUBLE_EQ(r.at("cq_depth").at("avg").get<double>(), 1.0);
  EXPECT_EQ(r.at("reap_lag").at("watched"), 30);
  EXPECT_EQ(r.at("reap_lag").at("avg_ns"), 50 * kMs);
  EXPECT_EQ(r.at("reap_lag").at("max_ns"), 50 * kMs);
  EXPECT_EQ(r.at("reap_lag").at("resolution_avg_ns"), 400'000);
  EXPECT_EQ(r.at("reap_lag").at("log2_hist").size(), kHistBuckets);
  EXPECT_EQ(r.at("reap_lag").at("untimed"), 0);
  EXPECT_EQ(r.at("reap_lag").at("never_reaped"),
            (nlohmann::ordered_json{{"cqes", 0}, {"oldest_ns", 0}}));
  EXPECT_EQ(j.at("post_times_kept"), 128);
}

TEST(BoundaryText, UntimedAndNeverReapedCqesAreSaid) {
  Ring ring = mixed(30, 0, 0, 2, 800 * kMs);
  ring.boundary.reap_untimed = 7;
  const Snapshot snap = measured({ring});
  std::ostringstream out;
  render_boundary(out, snap.rings[0], evaluate(snap));
  const std::string text = out.str();
  EXPECT_NE(text.find("7 more reaped without a post time: more than 128 waited at once"),
            std::string::npos) << text;
  EXPECT_NE(text.find("never reaped  2 CQEs still in the CQ ring when it was torn down, the "
                      "oldest posted 800ms before"),
            std::string::npos) << text;
}

TEST(BoundaryText, DepthAndLagLinesMarkedByTheFinding) {
  const Snapshot snap = measured({ring_with_reaps(30, 50 * kMs)});
  std::ostringstream out;
  render_boundary(out, snap.rings[0], evaluate(snap));
  const std::string text = out.str();
  EXPECT_NE(text.find("boundary (from the rings' indices)"), std::string::npos) << text;
  EXPECT_NE(text.find("avg 1.0, max 1 CQEs ready and not reaped (30 CQEs)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("max 50ms (30 CQEs reaped"), std::string::npos) << text;
  EXPECT_NE(text.find("<-- !"), std::string::npos) << text;  // the REAP-LAG marker
  std::ostringstream none;
  render_boundary(none, Ring{}, {});
  EXPECT_EQ(none.str(), "");
}

}  // namespace
}  // namespace uringscope
