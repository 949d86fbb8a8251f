// SPDX-License-Identifier: MIT
// --diff per file: rows merged over rings, read back from a saved report, matched by
// (name, op), rendered as text and JSON. Numbers are written out here.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "diff/baseline.h"
#include "diff/files_diff.h"
#include "report/report.h"
#include "support/fixtures.h"
#include "util/error.h"

namespace uringscope {
namespace {

constexpr uint32_t kRead = 22, kWrite = 23;

// `requests` in log2 bucket `slot` ([2^slot, 2^(slot+1)) ns), max at the bucket's top.
FileStats timed(std::string name, uint32_t opcode, uint64_t requests, std::size_t slot,
                uint64_t punted = 0) {
  FileStats f = file_test::file_row(std::move(name), opcode, requests, punted);
  f.bytes = requests * 4096;
  f.latency.buckets[slot] = requests;
  f.latency.max_ns = (uint64_t{2} << slot) - 1;
  f.latency.sum_ns = requests * (uint64_t{1} << slot);
  return f;
}

Snapshot two_rings_with_files() {
  Snapshot s;
  s.tool_version = "test";
  s.wall_ns = 1'000'000'000;
  Ring a{.id = 0, .pid = 10, .comm = "db"};
  a.files = {timed("/db/data.0", kRead, 100, 10, 10), timed("/db/log", kWrite, 30, 12)};
  Ring b{.id = 1, .pid = 10, .comm = "db"};
  b.files = {timed("/db/data.0", kRead, 50, 20, 5)};
  s.rings = {a, b};
  aggregate(s);
  return s;
}

const BaselineFile* file_of(const std::vector<BaselineFile>& files, const std::string& name) {
  for (const BaselineFile& f : files)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(FilesDiff, RowsOfOneFileMergeOverRingsAndSurviveTheSavedReport) {
  const Snapshot snap = two_rings_with_files();
  const Baseline now = baseline_of(snap, {});
  ASSERT_EQ(now.files.size(), 2u);
  const BaselineFile* data = file_of(now.files, "/db/data.0");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->op, "READ");
  EXPECT_EQ(data->requests, 150u);
  EXPECT_EQ(data->punted, 15u);
  EXPECT_EQ(data->bytes, 150u * 4096);
  EXPECT_EQ(data->latency.count(), 150u);
  // 150 samples, the 149th (p99 rank ceil(148.5)) among the 50 in bucket 20.
  EXPECT_GE(data->p99_ns(), uint64_t{1} << 20);

  const Baseline saved = parse_baseline(render_json(snap, {}).dump(), "b.json");
  EXPECT_EQ(saved.files, now.files);
  const Diff self = diff(saved, now);
  ASSERT_EQ(self.files.size(), 2u);
  for (const FileDiff& row : self.files) {
    ASSERT_TRUE(row.before && row.after) << row.name;
    EXPECT_EQ(*row.before, *row.after) << row.name;
  }
}

TEST(FilesDiff, MatchedAddedAndRemovedFilesBusiestFirst) {
  Baseline before, after;
  before.wall_ns = after.wall_ns = 1'000'000'000;
  before.files = {{.name = "/db/data.0", .op = "READ", .requests = 100, .punted = 10},
                  {.name = "/db/old", .op = "READ", .requests = 5}};
  after.files = {{.name = "/db/data.0", .op = "READ", .requests = 200, .punted = 100},
                 {.name = "/db/new", .op = "WRITE", .requests = 300}};
  const Diff d = diff(before, after);
  ASSERT_EQ(d.files.size(), 3u);
  EXPECT_EQ(d.files[0].name, "/db/new");  // 300 requests
  EXPECT_FALSE(d.files[0].before);
  EXPECT_EQ(d.files[1].name, "/db/data.0");
  EXPECT_EQ(d.files[2].name, "/db/old");
  EXPECT_FALSE(d.files[2].after);

  std::ostringstream text;
  render_files_diff(text, d);
  const std::string t = text.str();
  EXPECT_NE(t.find("per file, all rings\n"), std::string::npos) << t;
  EXPECT_NE(t.find("+100.0%"), std::string::npos) << t;   // requests 100 -> 200
  EXPECT_NE(t.find("+40.0pp"), std::string::npos) << t;   // punted 10% -> 50%
  EXPECT_NE(t.find("new"), std::string::npos) << t;
  EXPECT_NE(t.find("gone"), std::string::npos) << t;

  const nlohmann::ordered_json j = files_diff_json(d);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[1].at("status"), "matched");
  EXPECT_EQ(j[1].at("change").at("requests"), 100);
  EXPECT_DOUBLE_EQ(j[1].at("change").at("requests_pct").get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(j[1].at("change").at("punt_pct").get<double>(), 40.0);
  EXPECT_EQ(j[0].at("status"), "added");
  EXPECT_TRUE(j[0].at("before").is_null());
  EXPECT_EQ(j[2].at("status"), "removed");
}

TEST(FilesDiff, NoFilesOnEitherSideNoSection) {
  std::ostringstream text;
  render_files_diff(text, diff(Baseline{}, Baseline{}));
  EXPECT_EQ(text.str(), "");
}

TEST(FilesDiff, PastTheShownRowsTheTitleSaysHowMany) {
  Baseline after;
  for (int i = 0; i < 12; ++i)
    after.files.push_back({.name = "/f" + std::to_string(i), .op = "READ", .requests = 1});
  std::ostringstream text;
  render_files_diff(text, diff(Baseline{}, after));
  EXPECT_NE(text.str().find("(the 10 busiest of 12)"), std::string::npos) << text.str();
}

TEST(FilesDiff, ADamagedFileRowIsAOneLineError) {
  const Snapshot snap = two_rings_with_files();
  nlohmann::ordered_json j = render_json(snap, {});
  j["rings"][0]["files"][0]["log2_hist"] = nlohmann::ordered_json::array();
  for (int i = 0; i < 41; ++i) j["rings"][0]["files"][0]["log2_hist"].push_back(0);
  try {
    parse_baseline(j.dump(), "b.json");
    ADD_FAILURE() << "a 41-bucket histogram was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "b.json: rings[0].files[0].log2_hist has 41 buckets, at most 40");
  }
  j["rings"][0]["files"][0].erase("requests");
  EXPECT_THROW(parse_baseline(j.dump(), "b.json"), Error);
}

}  // namespace
}  // namespace uringscope
