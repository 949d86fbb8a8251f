// SPDX-License-Identifier: MIT
// The machine interface on the real kernel: --fail-on exit codes and their precedence,
// JSON on stdout, --baseline/--diff round trips, the compact and filtered views,
// --list-ops, and bad baselines (truncated, mutated) rejected with one line, exit 1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "harness.h"

using harness::kInject;
using harness::kUringscope;

namespace {

class MachineInterface : public harness::KernelTest {
 protected:
  static harness::Result scope(std::vector<std::string> args) {
    args.insert(args.begin(), kUringscope);
    return harness::run(args);
  }
  std::vector<std::string> files_;
};

TEST_F(MachineInterface, FailOnTurnsFindingsIntoExitThree) {
  EXPECT_EQ(scope({"--fail-on=warn", "--", kInject, "punt", "200"}).status, 3);
  EXPECT_EQ(scope({"--fail-on", "info", "--", kInject, "punt", "200"}).status, 3);
  // PUNT is a WARN: below a CRIT threshold.
  EXPECT_EQ(scope({"--fail-on=crit", "--", kInject, "punt", "200"}).status, 0);
  EXPECT_EQ(scope({"--fail-on=crit", "--", kInject, "overflow", "200"}).status, 3);
  EXPECT_EQ(scope({"--fail-on=info", "--", kInject, "clean", "500"}).status, 0);
  // Without --fail-on findings never change the exit status.
  EXPECT_EQ(scope({"--", kInject, "overflow", "200"}).status, 0);
}

TEST_F(MachineInterface, ToolAndNoDataNeverTrip) {
  // sh uses no io_uring: NODATA (INFO) must not fail even the strictest gate.
  const std::string nodata = file("nodata.json");
  auto r = scope({"--fail-on=info", "--json=" + nodata, "--", "sh", "-c", "true"});
  EXPECT_EQ(r.status, 0) << r.err;
  auto report = harness::read_json(nodata);
  EXPECT_FALSE(harness::findings_with_tag(report, "NODATA").empty());
}

TEST_F(MachineInterface, CommandStatusComesBeforeFindings) {
  // The command fails (status 5) and would also trip --fail-on: its own status wins.
  auto r = scope({"--fail-on=warn", "--", "sh", "-c", std::string(kInject) + " punt 200; exit 5"});
  EXPECT_EQ(r.status, 5) << r.err;
}

TEST_F(MachineInterface, JsonOnStdoutTextOnStderr) {
  auto r = scope({"--json", "--", kInject, "clean", "300"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The injector's own stdout comes first; the report is the JSON document after it.
  const auto start = r.out.find("{\n");
  ASSERT_NE(start, std::string::npos) << r.out;
  const std::string path = file("stdout.json");
  std::ofstream(path) << r.out.substr(start);
  auto report = harness::read_json(path);
  EXPECT_EQ(report.at("tool"), "uringscope");
  EXPECT_EQ(report.at("schema"), 2);
  EXPECT_NE(r.err.find("uringscope report"), std::string::npos) << r.err;
}

TEST_F(MachineInterface, BaselineThenDiff) {
  const std::string baseline = file("baseline.json");
  const std::string current = file("current.json");
  ASSERT_EQ(scope({"--baseline", baseline, "--", kInject, "punt", "300"}).status, 0);
  auto saved = harness::read_json(baseline);
  ASSERT_FALSE(harness::findings_with_tag(saved, "PUNT").empty());

  auto r = scope({"--diff", baseline, "--json=" + current, "--", kInject, "clean-read", "300"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("diff against " + baseline), std::string::npos) << r.out;
  auto report = harness::read_json(current);
  ASSERT_TRUE(report.contains("diff"));
  const auto& diff = report.at("diff");
  EXPECT_EQ(diff.at("baseline").at("source"), baseline);
  bool punt_gone = false;
  for (const auto& f : diff.at("findings").at("disappeared")) punt_gone |= f.at("tag") == "PUNT";
  EXPECT_TRUE(punt_gone) << diff.dump();
  const nlohmann::json* read = nullptr;
  for (const auto& op : diff.at("ops")) {
    if (op.at("op") == "READ") read = &op;
  }
  ASSERT_NE(read, nullptr);
  EXPECT_DOUBLE_EQ(read->at("before").at("punt_pct").get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(read->at("after").at("punt_pct").get<double>(), 0.0);
}

TEST_F(MachineInterface, CompactAndFilteredViews) {
  auto compact = scope({"-c", "--", kInject, "punt", "200"});
  ASSERT_EQ(compact.status, 0) << compact.err;
  EXPECT_EQ(compact.out.find("ring #0 fd="), std::string::npos) << compact.out;
  EXPECT_NE(compact.out.find("READ"), std::string::npos);
  EXPECT_NE(compact.out.find("[PUNT]"), std::string::npos);

  // -e op=NOP hides the READ row and the READ finding, in the text only.
  const std::string json = file("filtered.json");
  auto filtered = scope({"-e", "op=NOP", "--json=" + json, "--", kInject, "punt", "200"});
  ASSERT_EQ(filtered.status, 0) << filtered.err;
  EXPECT_NE(filtered.out.find("display filter: op=NOP"), std::string::npos) << filtered.out;
  EXPECT_EQ(filtered.out.find("[PUNT]"), std::string::npos) << filtered.out;
  auto report = harness::read_json(json);
  EXPECT_NE(harness::find_op(report.at("ops"), "READ"), nullptr);
  EXPECT_FALSE(harness::findings_with_tag(report, "PUNT").empty());

  auto none = scope({"--no-findings", "--", kInject, "punt", "200"});
  EXPECT_EQ(none.out.find("[PUNT]"), std::string::npos);
  EXPECT_EQ(none.out.find("findings"), std::string::npos) << none.out;
}

TEST_F(MachineInterface, ListOpsReadsThisKernel) {
  auto r = scope({"--list-ops"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("source: the kernel's BTF"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("READ_FIXED"), std::string::npos);
  auto j = scope({"--list-ops", "--json"});
  ASSERT_EQ(j.status, 0);
  auto ops = nlohmann::json::parse(j.out);
  EXPECT_EQ(ops.at("source"), "btf");
  EXPECT_EQ(ops.at("ops").at(22).at("name"), "READ");
  EXPECT_EQ(ops.at("ops").at(22).at("in_kernel"), true);
}

// A baseline is user input: every damaged form must end in one line on stderr and exit 1,
// before anything is attached (TearDown checks nothing stayed loaded).
TEST_F(MachineInterface, DamagedBaselinesAreOneLineErrors) {
  const std::string good = file("good.json");
  ASSERT_EQ(scope({"--baseline", good, "--", kInject, "clean", "100"}).status, 0);
  std::string text;
  {
    std::ifstream in(good);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(text.size(), 1000u);
  std::vector<std::string> damaged = {"", "{", "[]", "null", "{\"tool\":\"uringscope\"}",
                                      "{\"tool\":\"uringscope\",\"schema\":3}"};
  for (std::size_t cut : {1ul, 17ul, text.size() / 3, text.size() / 2, text.size() - 2}) {
    damaged.push_back(text.substr(0, cut));
  }
  std::mt19937 rng(20261129);
  for (int i = 0; i < 12; ++i) {
    std::string t = text;
    for (int flips = 0; flips < 8; ++flips) t[rng() % t.size()] = static_cast<char>(rng() % 256);
    damaged.push_back(t);
  }
  const std::string bad = file("bad.json");
  int rejected = 0;
  for (const std::string& content : damaged) {
    std::ofstream(bad, std::ios::trunc) << content;
    auto r = scope({"--diff", bad, "-a", "-d", "0.2"});
    // Random flips may leave the JSON valid and the fields it needs intact; that run is
    // then an ordinary diff and exits 0.
    ASSERT_TRUE(r.status == 0 || r.status == 1) << r.status << " " << r.err;
    if (r.status == 1) {
      ++rejected;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(r.err.rfind("uringscope: " + bad + ":", 0), 0u) << r.err;
    }
  }
  EXPECT_GE(rejected, 11);  // every hand-made and truncated case, at least
}

}  // namespace
