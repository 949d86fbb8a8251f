// SPDX-License-Identifier: MIT
// Live mode, the trace timeline and -f on the real kernel: intervals that add up to the
// final report, a trace where every request's begin has its end, and forked children
// followed into the report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "harness.h"

using harness::kInject;
using harness::kUringscope;

namespace {

class LiveTraceFollow : public harness::KernelTest {
 protected:
  std::vector<std::string> files_;
};

// One interval block: "-- +0.5s  18:04:58  interval 508ms ---", then rows
// "#0 inject[13771]  NOP  995.4 ...". Returns completions per interval, reconstructed as
// rate x interval length.
std::vector<double> completions_per_interval(const std::string& text, const std::string& op) {
  std::vector<double> out;
  const std::regex header(R"(^-- \+[0-9.]+s\s+\S+\s+interval ([0-9.]+)(ns|us|ms|s) )");
  const std::regex row(R"(^#\d+ \S+\s+(\S+)\s+([0-9.,]+)\s)");
  double interval_s = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, header)) {
      const double scale = m[2] == "ns" ? 1e-9 : m[2] == "us" ? 1e-6 : m[2] == "ms" ? 1e-3 : 1.0;
      interval_s = std::stod(m[1]) * scale;
      out.push_back(0);
    } else if (std::regex_search(line, m, row) && m[1] == op && !out.empty()) {
      std::string rate = m[2];
      rate.erase(std::remove(rate.begin(), rate.end(), ','), rate.end());
      out.back() += std::stod(rate) * interval_s;
    }
  }
  return out;
}

TEST_F(LiveTraceFollow, LiveIntervalsAddUpToTheFinalReport) {
  const std::string json = file("live.json");
  // One NOP every 20 ms for ~1 s: spread over several 0.2 s intervals.
  auto r = harness::run({kUringscope, "-i", "0.2", "--json=" + json, "--", kInject,
                         "sqpoll-stall", "50"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto intervals = completions_per_interval(r.out, "NOP");
  ASSERT_GE(intervals.size(), 4u) << r.out;
  int active = 0;
  double sum = 0;
  for (double n : intervals) {
    sum += n;
    active += n > 0.5;
  }
  EXPECT_GE(active, 3) << "the NOPs should spread over several intervals:\n" << r.out;
  auto report = harness::read_json(json);
  const auto* nop = harness::find_op(report.at("ops"), "NOP");
  ASSERT_NE(nop, nullptr);
  const double total = nop->at("completed").get<double>();
  EXPECT_EQ(total, 50);
  // Rates are printed to one decimal and intervals to three significant digits.
  EXPECT_NEAR(sum, total, total * 0.02 + 1) << r.out;
}

TEST_F(LiveTraceFollow, TraceHasEveryRequestBeginAndEnd) {
  const std::string json = file("report.json");
  const std::string trace = file("trace.json");
  auto r = harness::run({kUringscope, "--trace", trace, "--json=" + json, "--", kInject,
                         "punt", "300"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto report = harness::read_json(json);
  EXPECT_EQ(report.at("counters").at("trace_rb_drops").get<long long>(), 0);
  std::ifstream in(trace);
  const nlohmann::json doc = nlohmann::json::parse(in);  // throws if not valid JSON
  const auto& events = doc.at("traceEvents");
  std::map<std::string, int> open;  // async id -> begins minus ends
  int begins = 0, worker_named = 0, flows_start = 0, flows_end = 0;
  for (const auto& e : events) {
    const std::string ph = e.at("ph");
    if (ph == "b" || ph == "e") {
      const std::string id = e.at("cat").get<std::string>() + "/" + e.at("id").dump() + "/" +
                             std::to_string(e.at("pid").get<long long>());
      open[id] += ph == "b" ? 1 : -1;
      begins += ph == "b";
    } else if (ph == "M" && e.value("name", "") == "thread_name") {
      worker_named += e.at("args").at("name").get<std::string>().rfind("iou-wrk", 0) == 0;
    } else if (ph == "s") {
      ++flows_start;
    } else if (ph == "f") {
      ++flows_end;
    }
  }
  EXPECT_EQ(begins, 300);
  for (const auto& [id, balance] : open) EXPECT_EQ(balance, 0) << id;
  EXPECT_GE(worker_named, 1) << "punted requests run on io-wq workers, which get named tracks";
  EXPECT_EQ(flows_start, 300);
  EXPECT_EQ(flows_end, 300);
  // The io-wq worker's CPU stages its records apart from the submitter's: the drains'
  // flushes must bring each in before its time is written, none late or orphaned.
  const auto& other = doc.at("otherData");
  EXPECT_EQ(other.at("late").get<long long>(), 0);
  EXPECT_EQ(other.at("unmatched").get<long long>(), 0);
  EXPECT_EQ(other.at("still_open").get<long long>(), 0);
  EXPECT_EQ(other.at("dropped_records").get<long long>(), 0);
}

// Each NOP's CQE is posted into an empty CQ and held there (reap-lag), so right after it
// is posted one CQE waits: the trace's CQ depth must say 1, never 0, on kernels whose
// complete tracepoint fires before the tail counts the CQE (6.1) as on those after (6.18).
// With --no-boundary the order is learnt for the trace alone.
TEST_F(LiveTraceFollow, TraceCqDepthCountsTheCqeJustPosted) {
  for (const bool boundary : {true, false}) {
    const std::string trace = file(boundary ? "depth.json" : "depth-noboundary.json");
    std::vector<std::string> args{kUringscope, "--trace", trace};
    if (!boundary) args.push_back("--no-boundary");
    args.insert(args.end(), {"--", kInject, "reap-lag", "20"});
    auto r = harness::run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(trace);
    const nlohmann::json doc = nlohmann::json::parse(in);
    int depth_points = 0, cqes = 0;
    for (const auto& e : doc.at("traceEvents")) {
      const std::string name = e.value("name", "");
      if (e.at("ph") == "X" && name == "CQE NOP") ++cqes;
      if (e.at("ph") != "C" || name.find("CQ depth") == std::string::npos) continue;
      ++depth_points;
      EXPECT_EQ(e.at("args").at("CQEs").get<long long>(), 1) << e.dump();
    }
    EXPECT_EQ(cqes, 20) << "boundary " << boundary;
    // Written when it changes: the first CQE's 1, then nothing.
    EXPECT_EQ(depth_points, 1) << "boundary " << boundary;
  }
}

TEST_F(LiveTraceFollow, FollowAddsForkedChildren) {
  const std::string followed = file("follow.json");
  const std::string unfollowed = file("nofollow.json");
  auto with = harness::run({kUringscope, "-f", "--json=" + followed, "--", kInject, "fork", "150"});
  ASSERT_EQ(with.status, 0) << with.err;
  auto without = harness::run({kUringscope, "--json=" + unfollowed, "--", kInject, "fork", "150"});
  ASSERT_EQ(without.status, 0) << without.err;

  const auto gt = harness::parse_ground_truth(with.out);
  const long long child = std::stoll(gt.find("scenario", "fork-child").at("pid"));
  const long long parent = std::stoll(gt.find("scenario", "fork").at("pid"));
  auto report = harness::read_json(followed);
  std::map<long long, long long> submissions;
  for (const auto& ring : report.at("rings")) {
    submissions[ring.at("pid").get<long long>()] += ring.at("counters").at("submissions").get<long long>();
  }
  EXPECT_EQ(submissions[parent], 150);
  EXPECT_EQ(submissions[child], 150);
  bool child_listed = false;
  for (const auto& pid : report.at("target").at("pids")) child_listed |= pid.get<long long>() == child;
  EXPECT_TRUE(child_listed) << report.at("target").dump();

  // Without -f only the command's own process is watched.
  auto plain = harness::read_json(unfollowed);
  ASSERT_EQ(plain.at("rings").size(), 1u) << plain.at("rings").dump();
  EXPECT_EQ(plain.at("rings").at(0).at("counters").at("submissions").get<long long>(), 150);
}

}  // namespace
