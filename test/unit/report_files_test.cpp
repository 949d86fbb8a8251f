// SPDX-License-Identifier: MIT
// The text report's per-file table and the -e file= filter, on hand-built rows whose
// numbers are written out here.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/fixtures.h"
#include "util/error.h"
#include "report/files_json.h"
#include "report/report.h"
#include "report/views.h"

namespace uringscope {
namespace {

constexpr uint32_t kRead = 22, kWrite = 23;

FileStats row(std::string name, uint32_t opcode, uint64_t requests, uint64_t bytes, uint64_t busy_ns,
              uint64_t punted = 0, uint64_t errors = 0) {
  FileStats f = file_test::file_row(std::move(name), opcode, requests, punted, errors);
  f.bytes = bytes;
  f.latency.buckets[10] = requests;  // [1024, 2048) ns
  f.latency.sum_ns = busy_ns;
  f.latency.max_ns = 2000;
  return f;
}

// Busiest first, as the snapshot keeps them.
std::vector<FileStats> three_files() {
  return {row("/db/hot", kRead, 10, 40960, 900000, 5), row("/db/big", kRead, 500, 2048000, 80000),
          row("/log/wal", kWrite, 30, 1000000, 70000, 0, 2)};
}

std::string table(const std::vector<FileStats>& files, FileTableOptions opts) {
  std::ostringstream out;
  render_file_table(out, files, opts);
  return out.str();
}

std::vector<std::string> first_column(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.starts_with("/")) names.push_back(first);
  }
  return names;
}

TEST(ReportFiles, TopRowsByTimeThenHowManyMore) {
  const std::string text = table(three_files(), {.top = 2});
  EXPECT_NE(text.find("files (top 2 of 3 by time):"), std::string::npos) << text;
  EXPECT_EQ(first_column(text), (std::vector<std::string>{"/db/hot", "/db/big"}));
  EXPECT_NE(text.find("... 1 more (--files-top N shows more"), std::string::npos) << text;
  // The hot file's row: 10 requests, half punted, 40 KiB.
  EXPECT_NE(text.find("50.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("40.0KiB"), std::string::npos) << text;
}

TEST(ReportFiles, EveryRowFitsWithoutAMoreLine) {
  const std::string text = table(three_files(), {.top = 10});
  EXPECT_NE(text.find("files:\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("more"), std::string::npos) << text;
  EXPECT_EQ(first_column(text).size(), 3u);
}

TEST(ReportFiles, OtherOrders) {
  EXPECT_EQ(first_column(table(three_files(), {.top = 3, .sort = FileSort::Requests})),
            (std::vector<std::string>{"/db/big", "/log/wal", "/db/hot"}));
  EXPECT_EQ(first_column(table(three_files(), {.top = 3, .sort = FileSort::Bytes})),
            (std::vector<std::string>{"/db/big", "/log/wal", "/db/hot"}));
  EXPECT_EQ(first_column(table(three_files(), {.top = 1, .sort = FileSort::Name})),
            (std::vector<std::string>{"/db/big"}));
  EXPECT_NE(table(three_files(), {.top = 1, .sort = FileSort::Bytes}).find("by bytes"),
            std::string::npos);
}

TEST(ReportFiles, ZeroRowsOrNoFilesPrintNothing) {
  EXPECT_EQ(table(three_files(), {.top = 0}), "");
  EXPECT_EQ(table({}, {.top = 10}), "");
}

TEST(ReportFiles, ALongPathKeepsItsEnd) {
  const std::string name = "/" + std::string(80, 'd') + "/data.0";
  const std::string text = table({row(name, kRead, 1, 1, 1)}, {});
  EXPECT_EQ(text.find(name), std::string::npos);
  EXPECT_NE(text.find("...dddd"), std::string::npos) << text;
  EXPECT_NE(text.find("dddd/data.0 "), std::string::npos) << text;
}

TEST(FilesJson, EveryRowWithItsNumbersAndLatency) {
  std::vector<FileStats> files = three_files();
  files[0].kind = FileKind::Socket;
  files[0].resolved = false;
  files[0].direct = 3;
  const nlohmann::ordered_json j = files_json(files);
  ASSERT_EQ(j.size(), 3u);
  const auto& hot = j[0];
  EXPECT_EQ(hot.at("name"), "/db/hot");
  EXPECT_EQ(hot.at("kind"), "socket");
  EXPECT_EQ(hot.at("resolved"), false);
  EXPECT_EQ(hot.at("op"), "READ");
  EXPECT_EQ(hot.at("opcode"), kRead);
  EXPECT_EQ(hot.at("requests"), 10);
  EXPECT_EQ(hot.at("bytes"), 40960);
  EXPECT_EQ(hot.at("punted"), 5);
  EXPECT_DOUBLE_EQ(hot.at("punt_pct").get<double>(), 50.0);
  EXPECT_EQ(hot.at("direct"), 3);
  EXPECT_EQ(hot.at("max_ns"), 2000);
  EXPECT_EQ(hot.at("avg_ns"), 90000);  // 900,000 ns over 10 requests
  EXPECT_EQ(hot.at("log2_hist").size(), kHistBuckets);
  EXPECT_EQ(hot.at("log2_hist")[10], 10);
  EXPECT_EQ(j[2].at("errors"), 2);
}

TEST(FileFilter, GlobsAndConditionsPickFileRows) {
  DisplayFilter f = parse_display_filter({"file=/db/*"});
  EXPECT_FALSE(f.empty());
  EXPECT_EQ(display_filter_text(f), "file=/db/*");
  EXPECT_TRUE(f.matches(row("/db/hot", kRead, 1, 1, 1)));
  EXPECT_FALSE(f.matches(row("/log/wal", kWrite, 1, 1, 1)));
  // Conditions combine: file= with op= and punt.
  DisplayFilter g = parse_display_filter({"file=/db/*", "op=READ", "punt"});
  EXPECT_TRUE(g.matches(row("/db/hot", kRead, 10, 1, 1, 5)));
  EXPECT_FALSE(g.matches(row("/db/big", kRead, 10, 1, 1, 0)));
  EXPECT_FALSE(parse_display_filter({"error"}).matches(row("/db/big", kRead, 10, 1, 1)));
  EXPECT_TRUE(parse_display_filter({"error"}).matches(row("/log/wal", kWrite, 1, 1, 1, 0, 2)));
}

TEST(FileFilter, FilterSnapshotKeepsMatchingFileRowsAndEveryOpRow) {
  Snapshot snap;
  Ring ring;
  OpStats read;
  read.opcode = kRead;
  read.submitted = 510;
  ring.ops = {read};
  ring.files = three_files();
  snap.rings = {ring};
  Snapshot shown = filter_snapshot(snap, parse_display_filter({"file=*/wal"}));
  ASSERT_EQ(shown.rings.size(), 1u);
  ASSERT_EQ(shown.rings[0].files.size(), 1u);
  EXPECT_EQ(shown.rings[0].files[0].name, "/log/wal");
  EXPECT_EQ(shown.rings[0].ops.size(), 1u);  // op rows are not per file
}

TEST(FileFilter, AnEmptyPatternIsAUsageError) {
  EXPECT_THROW(parse_display_filter({"file="}), UsageError);
}

}  // namespace
}  // namespace uringscope
