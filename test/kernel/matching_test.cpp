// SPDX-License-Identifier: MIT
// The kernel tier for matching under real traffic (docs/matching.md): zero-copy sends,
// CQEs without a request pointer (multishot beside a storm, two requests sharing a
// user_data), a CQ overflowing with timeouts, and rings churned beside another process
// with the ring table forced tiny. Each holds uringscope's JSON to the injector's ground
// truth exactly.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness.h"

using harness::find_op;
using harness::findings_with_tag;

using harness::latency_samples;
using harness::num;

namespace {

class Matching : public harness::KernelTest {};

// Whether this run had the fentry on io_req_post_cqe (kernels.txt says where it must).
bool aux_req_on(const nlohmann::json& report) {
  return report.at("kernel").at("features").at("aux_req").get<bool>();
}

TEST_F(Matching, ZeroCopySendsEndAtTheirNotification) {
  auto [report, gt] = run_scenario({"zc-send", "200"});
  long long notifications = 0;
  for (const char* name : {"SEND_ZC", "SENDMSG_ZC"}) {
    const auto* op = find_op(report.at("ops"), name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(num(*op, "submitted"), gt.number("op", name, "submitted")) << name;
    EXPECT_EQ(num(*op, "completed"), gt.number("op", name, "completed")) << name;
    EXPECT_EQ(num(*op, "multishot_cqes"), 0) << name;
    EXPECT_EQ(latency_samples(*op), num(*op, "submitted")) << name << ": a latency per send";
    EXPECT_EQ(num(*op, "zc_results"), num(*op, "submitted")) << name;
    notifications += num(*op, "zc_notifications");
  }
  EXPECT_EQ(notifications, gt.value("notifications"));
  EXPECT_EQ(find_op(report.at("ops"), "NOP"), nullptr) << "notifications filed under NOP";
  EXPECT_EQ(num(report.at("counters"), "untracked_completions"), 0);
  EXPECT_TRUE(findings_with_tag(report, "LEAK").empty());
  EXPECT_TRUE(findings_with_tag(report, "TOOL").empty());
}

TEST_F(Matching, AMultishotRequestKeepsEveryCqeBesideAStorm) {
  auto [report, gt] = run_scenario({"multishot-storm", "20"});
  const auto* poll = find_op(report.at("ops"), "POLL_ADD");
  const auto* nop = find_op(report.at("ops"), "NOP");
  ASSERT_NE(poll, nullptr);
  ASSERT_NE(nop, nullptr);
  EXPECT_EQ(num(*poll, "completed"), gt.number("op", "POLL_ADD", "completed"));
  EXPECT_EQ(num(*poll, "multishot_cqes"), gt.number("op", "POLL_ADD", "multishot_cqes"));
  EXPECT_EQ(num(*nop, "completed"), gt.number("op", "NOP", "completed"));
  EXPECT_EQ(num(report.at("counters"), "untracked_completions"), 0);
  // Where io_req_post_cqe can be hooked, every intermediate CQE came with its request.
  EXPECT_EQ(num(report.at("counters"), "aux_cqes_by_request"),
            aux_req_on(report) ? gt.number("op", "POLL_ADD", "multishot_cqes") : 0);
}

TEST_F(Matching, CqesOfASharedUserDataAreNeverGuessed) {
  auto [report, gt] = run_scenario({"shared-udata", "20"});
  const auto* read = find_op(report.at("ops"), "READ");
  const auto* poll = find_op(report.at("ops"), "POLL_ADD");
  ASSERT_NE(read, nullptr);
  ASSERT_NE(poll, nullptr);
  EXPECT_EQ(num(*read, "completed"), gt.number("op", "READ", "completed"));
  EXPECT_EQ(num(*read, "multishot_cqes"), 0);
  const long long untracked = num(report.at("counters"), "untracked_completions");
  EXPECT_EQ(num(*poll, "completed") + untracked, gt.number("op", "POLL_ADD", "completed"));
  EXPECT_GE(num(*poll, "completed"), gt.value("poll_events_alone") + 1);
  EXPECT_EQ(num(report.at("tool_stats"), "udata_ambiguous"), untracked);
  const long long by_request = num(report.at("counters"), "aux_cqes_by_request");
  if (aux_req_on(report)) {
    // io_req_post_cqe named the poll for each of its CQEs: none was ambiguous.
    EXPECT_EQ(untracked, 0);
    EXPECT_EQ(num(*poll, "multishot_cqes"), gt.number("op", "POLL_ADD", "multishot_cqes"));
    EXPECT_EQ(by_request, gt.number("op", "POLL_ADD", "multishot_cqes"));
  } else {
    // By (ring, user_data) alone, exactly the poll CQEs posted while the READ waited are
    // the ambiguous ones.
    EXPECT_EQ(by_request, 0);
    EXPECT_EQ(untracked, gt.value("poll_events_while_read_waits"));
  }
}

TEST_F(Matching, TimeoutsOverflowingASmallCqAreAllCounted) {
  auto [report, gt] = run_scenario({"timeout-flood", "2000"});
  const auto* timeout = find_op(report.at("ops"), "TIMEOUT");
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(num(*timeout, "submitted"), gt.number("op", "TIMEOUT", "submitted"));
  EXPECT_EQ(num(*timeout, "completed"), gt.number("op", "TIMEOUT", "completed"));
  EXPECT_EQ(num(*timeout, "errors"), gt.number("op", "TIMEOUT", "errors"));
  EXPECT_EQ(num(harness::ring_of(report, gt).at("counters"), "cq_overflows"), gt.value("overflowed"));
  EXPECT_EQ(num(report.at("leak"), "suspected") + num(report.at("leak"), "pending"), 0);
  EXPECT_FALSE(findings_with_tag(report, "OVERFLOW").empty());
}

// 15 rows (and the catch-all) for 41 rings: only rows given back by destroyed rings keep
// them apart. A ring's teardown can take tens of milliseconds (RCU), so the table leaves
// room for those in teardown plus one tenth of a second between two reclaims.
// By default the JSON report writes the rings the text report draws and sums the rest
// per process in rings_omitted: together they still hold every request of the churn.
TEST_F(Matching, ChurnedRingsBeyondTheDrawnAreSummedInTheJson) {
  auto [report, gt] = run_scenario({"ring-churn", "40"}, 0);
  ASSERT_EQ(num(report.at("tool_stats"), "kernel_misses"), 0) << "the kernel skipped events";
  long long written = 0, submissions = 0;
  for (const auto& ring : report.at("rings")) {
    written += ring.at("folded_rings").get<long long>() ? 0 : 1;
    submissions += num(ring.at("counters"), "submissions");
  }
  const auto& omitted = report.at("rings_omitted");
  for (const auto& owner : omitted.at("processes")) submissions += num(owner, "submitted");
  // The ten busiest drawn (no finding names a ring of a clean churn), the rest omitted.
  EXPECT_LE(written, 10) << report.at("rings").dump();
  EXPECT_GE(num(omitted, "rings") + written, gt.value("rings"));
  EXPECT_EQ(submissions, gt.number("op", "NOP", "submitted"));
}

TEST_F(Matching, ChurnedRingsEachKeepTheirOwnNumbers) {
  auto [report, gt] = run_scenario({"ring-churn", "40"}, 0,
                                   {"URINGSCOPE_TABLE_SIZES=rings=16,opstats=32"}, {"--rings", "all"});
  std::set<long long> per_ring;
  long long churned = 0, submissions = 0;
  for (const auto& ring : report.at("rings")) {
    EXPECT_EQ(num(ring, "pid"), gt.value("pid")) << "a ring of the process beside: " << ring.dump();
    const long long n = num(ring.at("counters"), "submissions");
    if (n == 0) continue;
    per_ring.insert(n);
    churned += ring.at("destroyed").get<bool>();
    submissions += n;
  }
  EXPECT_EQ(num(report.at("tool_stats"), "rings_full"), 0);
  EXPECT_EQ(num(report.at("tool_stats"), "opstats_full"), 0);
  // Exact, unless the kernel skipped our programs for some events (it says how many):
  // then short by at most that many, and a TOOL finding says so.
  const long long missed = num(report.at("tool_stats"), "kernel_misses");
  if (missed == 0) {
    EXPECT_EQ(churned, gt.value("rings"));
    EXPECT_EQ(per_ring, std::set<long long>{gt.value("nops_per_ring")});
    EXPECT_EQ(submissions, gt.number("op", "NOP", "submitted"));
    EXPECT_TRUE(findings_with_tag(report, "TOOL").empty());
  } else {
    EXPECT_GE(churned + missed, gt.value("rings"));
    EXPECT_LE(*per_ring.rbegin(), gt.value("nops_per_ring"));
    EXPECT_LE(submissions, gt.number("op", "NOP", "submitted"));
    EXPECT_GE(submissions + missed, gt.number("op", "NOP", "submitted"));
    EXPECT_FALSE(findings_with_tag(report, "TOOL").empty());
  }
}

// Past --keep-rings, destroyed rings fold into one row for their process: the report
// holds at most that many rings of their own, and the fold every other ring and NOP.
// The injector's own ring, idle in this scenario and destroyed at its exit, is folded
// or kept like any other.
TEST_F(Matching, FoldedRingsKeepEveryCount) {
  auto [report, gt] = run_scenario({"ring-churn", "60"}, 0,
                                   {"URINGSCOPE_TABLE_SIZES=rings=16,opstats=32"},
                                   {"--keep-rings", "8"});
  const long long nops_per_ring = gt.value("nops_per_ring");
  long long single = 0, folded = 0, fold_rows = 0, fold_nops = 0, submissions = 0;
  for (const auto& ring : report.at("rings")) {
    EXPECT_EQ(num(ring, "pid"), gt.value("pid")) << "a ring of the process beside: " << ring.dump();
    const long long n = num(ring.at("counters"), "submissions");
    submissions += n;
    if (ring.at("fold") == "process") {
      ++fold_rows;
      folded += num(ring, "folded_rings");
      fold_nops += n;
      EXPECT_TRUE(ring.at("destroyed").get<bool>());
      EXPECT_EQ(num(ring.at("counters"), "rings_created"), num(ring, "folded_rings"));
    } else if (n > 0) {
      EXPECT_EQ(ring.at("fold"), "ring");
      single += ring.at("destroyed").get<bool>();
    }
  }
  EXPECT_LE(single, 8);
  EXPECT_EQ(fold_rows, 1);
  EXPECT_EQ(num(report.at("tool_stats"), "rings_full"), 0);
  const long long nops = gt.number("op", "NOP", "submitted");
  // Exact unless the kernel skipped our programs for some events (it says how many).
  const long long missed = num(report.at("tool_stats"), "kernel_misses");
  if (missed == 0) {
    EXPECT_EQ(fold_nops % nops_per_ring, 0);
    EXPECT_EQ(single + fold_nops / nops_per_ring, gt.value("rings"));
    // Besides the churned rings, at most the injector's own ring, idle here.
    EXPECT_LE(folded - fold_nops / nops_per_ring, 1);
    EXPECT_EQ(submissions, nops);
  } else {
    EXPECT_LE(submissions, nops);
    EXPECT_GE(submissions + missed, nops);
  }
}

// The in-flight table forced to 8 ways beside 32 NOPs in flight per submit: requests
// that find no way are dropped (the newcomers, never the older ones) and counted, and
// every count still adds up.
TEST_F(Matching, TinyInflightTableCountsEveryDrop) {
  auto [report, gt] = run_scenario({"clean", "2000"}, 0, {"URINGSCOPE_TABLE_SIZES=inflight=4,udata=4"});
  const auto* nop = find_op(report.at("ops"), "NOP");
  ASSERT_NE(nop, nullptr);
  EXPECT_EQ(num(*nop, "submitted"), gt.number("op", "NOP", "submitted"));
  EXPECT_EQ(num(*nop, "completed"), gt.number("op", "NOP", "completed"));
  const long long drops = num(report.at("counters"), "inflight_map_drops");
  EXPECT_GT(drops, 0) << "the table was not saturated: the test proves nothing";
  EXPECT_EQ(latency_samples(*nop) + drops, num(*nop, "submitted")) << "a request both timed and dropped";
  EXPECT_EQ(num(report.at("counters"), "untracked_completions"), drops);
  bool counted = false;
  for (const auto& f : findings_with_tag(report, "TOOL"))
    counted |= f.at("evidence").contains("inflight_map_drops");
  EXPECT_TRUE(counted) << "no TOOL finding for the drops";
}

// Without rows given back, 15 ring rows for the main ring and 40 churned ones, and 3
// (ring, op) rows: each ring and each pair refused is counted exactly once, its NOPs land
// in the catch-all rows, and no NOP is lost.
TEST_F(Matching, FullRingAndOpTablesSaturateWithoutLosingRequests) {
  auto [report, gt] = run_scenario({"ring-churn", "40"}, 0,
                                   {"URINGSCOPE_TABLE_SIZES=rings=16,opstats=4",
                                    "URINGSCOPE_SKIP_FEATURES=ring_exit"});
  long long submissions = 0, catch_all = 0;
  for (const auto& ring : report.at("rings")) {
    submissions += num(ring.at("counters"), "submissions");
    catch_all += ring.at("source") == "catch_all";
  }
  EXPECT_EQ(submissions, gt.number("op", "NOP", "submitted"));
  EXPECT_EQ(catch_all, 1);
  // Rows 1-15: the main ring, then the first 14 churned rings; the other 26 are refused.
  const long long churned_with_rows = 15 - 1;
  EXPECT_EQ(num(report.at("tool_stats"), "rings_full"), gt.value("rings") - churned_with_rows);
  // Opstat rows 1-3 go to the first three churned rings' NOPs; the other 11 rings' pairs
  // are refused, and so is the catch-all ring's.
  EXPECT_EQ(num(report.at("tool_stats"), "opstats_full"), churned_with_rows - 3 + 1);
  EXPECT_FALSE(findings_with_tag(report, "TOOL").empty());
}

}  // namespace

namespace {

// Three processes one after the other under -f, each with 8 FIFO opens blocked in their
// own io-wq workers (io-wq starts a few more: 10-16 seen per process here), and room for
// 20 threads: each process's workers leave the table when they exit, so the next one's
// fit, and every worker is counted. (On 6.1 io-wq clears PF_IO_WORKER before a worker
// exits: the exit program knows io threads by name.)
TEST_F(Matching, ThreadsLeaveTheTableWhenTheyExit) {
  const std::string json = file("report.json");
  const std::string storm = harness::kInject + " worker-storm 8";
  const harness::Result r = harness::run(
      {"/usr/bin/env", "URINGSCOPE_TABLE_SIZES=threads=20", harness::kUringscope, "-f",
       "--json=" + json, "--", "/bin/sh", "-c", storm + " && " + storm + " && " + storm});
  ASSERT_EQ(r.status, 0) << r.err;
  const harness::GroundTruth gt = harness::parse_ground_truth(r.out);
  std::vector<long long> blocked;
  for (const auto& line : gt.lines)
    if (line.count("distinct")) blocked.push_back(std::stoll(line.at("distinct")));
  ASSERT_EQ(blocked.size(), 3u) << r.out;
  const auto report = harness::read_json(json);
  ASSERT_EQ(report.at("workers").size(), 3u);
  long long total = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const long long seen = num(report.at("workers")[i], "distinct");
    EXPECT_GE(seen, blocked[i]) << "a worker blocked in an open was not counted";
    total += seen;
  }
  EXPECT_GT(total, 20) << "the workers fit the table even without pruning: the test proves nothing";
  EXPECT_EQ(num(report.at("tool_stats"), "threads_full"), 0);
}

}  // namespace
