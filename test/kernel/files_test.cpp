// SPDX-License-Identifier: MIT
// The kernel tier for per-file attribution: the `files` scenario reads and writes named
// regular files (one of them registered, N of them opened and closed between requests,
// so their fd numbers are reused), a socketpair and a pipe, and prints one GROUND-TRUTH
// file line per (file, op). Every one of them must be one row of the ring's "files"
// table, with exactly its requests, bytes and errors. And the findings that name files
// (LEAK, POLL-RETRY, HAZARD) name exactly the files the injector's requests were on.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

using harness::latency_samples;
using harness::num;
using harness::ring_of;

namespace {

using Line = std::map<std::string, std::string>;

class Files : public harness::KernelTest {};

// The GROUND-TRUTH op line of `op`: it has no bare label, unlike the file lines, which
// carry op= too.
const Line& op_line(const harness::GroundTruth& gt, const std::string& op) {
  for (const auto& line : gt.lines) {
    auto it = line.find("op");
    if (it != line.end() && it->second == op && line.count("label") == 0) return line;
  }
  throw std::runtime_error("no GROUND-TRUTH op line for " + op);
}

// A regular file is known by its path, a socket or pipe by its kind and inode (a pipe's
// two ends share one inode, and its two lines differ in op).
bool row_matches(const nlohmann::json& row, const Line& line) {
  if (row.at("op").get<std::string>() != line.at("op")) return false;
  if (line.at("kind") == "file") return row.at("name").get<std::string>() == line.at("path");
  return row.at("kind").get<std::string>() == line.at("kind") &&
         row.at("ino").get<unsigned long long>() == std::stoull(line.at("ino"));
}

std::string describe(const Line& line) {
  std::string out;
  for (const auto& [key, value] : line) out += key + "=" + value + " ";
  return out;
}

TEST_F(Files, EveryFileSocketAndPipeIsCountedExactly) {
  auto [report, gt] = run_scenario({"files", "20"}, 0, {}, {"--files"});
  std::vector<Line> file_lines;
  for (const auto& line : gt.lines) {
    auto it = line.find("label");
    if (it != line.end() && it->second == "file") file_lines.push_back(line);
  }
  const long long named = gt.number("label", "files", "named");
  ASSERT_EQ(named, 5 + 20) << "a, b, c, fixed, out and e0..e19";
  long long regular = 0;
  for (const auto& line : file_lines) regular += line.at("kind") == "file";
  ASSERT_EQ(regular, named);
  ASSERT_EQ(file_lines.size(), static_cast<size_t>(named + 4)) << "2 socket ends, 2 pipe ops";

  const auto& ring = ring_of(report, gt);
  ASSERT_TRUE(ring.contains("files") && ring.at("files").is_array()) << ring.dump();
  const auto& rows = ring.at("files");

  for (const auto& line : file_lines) {
    SCOPED_TRACE(describe(line));
    const nlohmann::json* found = nullptr;
    int matches = 0;
    for (const auto& row : rows) {
      if (!row_matches(row, line)) continue;
      found = &row;
      matches++;
    }
    ASSERT_EQ(matches, 1) << rows.dump();
    EXPECT_EQ(num(*found, "requests"), std::stoll(line.at("requests")));
    EXPECT_EQ(num(*found, "bytes"), std::stoll(line.at("bytes")));
    EXPECT_EQ(num(*found, "errors"), std::stoll(line.at("errors")));
    if (line.at("kind") == "file") {
      EXPECT_EQ(found->at("kind").get<std::string>(), "file");
      EXPECT_EQ(found->at("ino").get<unsigned long long>(), std::stoull(line.at("ino")));
    }
  }

  // Every row that saw a request has its file resolved, and the rows of one op add up
  // to the op's own bytes: nothing is counted twice or left out.
  std::map<std::string, long long> bytes;
  long long read_requests = 0;
  long long read_timed = 0;
  for (const auto& row : rows) {
    SCOPED_TRACE(row.dump());
    if (num(row, "requests") > 0) {
      EXPECT_TRUE(row.at("resolved").get<bool>());
    }
    const std::string op = row.at("op").get<std::string>();
    bytes[op] += num(row, "bytes");
    if (op != "READ") continue;
    read_requests += num(row, "requests");
    read_timed += latency_samples(row);
  }
  for (const char* op : {"READ", "WRITE", "SEND", "RECV"}) {
    EXPECT_EQ(bytes[op], std::stoll(op_line(gt, op).at("bytes"))) << op;
  }
  EXPECT_EQ(read_requests, std::stoll(op_line(gt, "READ").at("submitted")));
  EXPECT_EQ(read_timed, read_requests) << "every READ timed";
}

// leak-growing: a 1-byte READ on a fresh, empty pipe every 10 ms, each waiting on poll
// when the injector exits and the kernel cancels them. Every recorded leak names the
// pipe its READ was on, one pipe per READ, and the LEAK finding names them too.
TEST_F(Files, LeakedRequestsNameThePipesTheyWaitedOn) {
  auto [report, gt] = run_scenario({"--linger", "0.3", "leak-growing", "20"}, 0, {},
                                   {"--files", "--leak-age", "0.05"});
  std::set<std::string> pipes;
  std::stringstream inos(gt.find("label", "leak_pipes").at("inos"));
  for (std::string ino; std::getline(inos, ino, ',');) pipes.insert("pipe:[" + ino + "]");
  ASSERT_EQ(pipes.size(), 20u);
  const auto& records = report.at("leak").at("requests");
  ASSERT_EQ(records.size(), 20u) << report.at("leak").dump();
  std::set<std::string> named;
  for (const auto& r : records) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r.at("op"), "READ");
    ASSERT_TRUE(r.at("file").is_string());
    EXPECT_TRUE(pipes.count(r.at("file").get<std::string>()));
    named.insert(r.at("file").get<std::string>());
  }
  EXPECT_EQ(named, pipes) << "one pipe per READ";
  const auto leaks = harness::findings_with_tag(report, "LEAK");
  ASSERT_FALSE(leaks.empty());
  bool mentions = false;
  for (const auto& f : leaks) mentions = mentions || f.at("message").get<std::string>().find(" On pipe:[") != std::string::npos;
  EXPECT_TRUE(mentions) << leaks[0].dump();
}

// pollretry-file: READs on a tracefs instance's trace_pipe, a regular file that can only
// be polled. POLL-RETRY (WARN) names it by the path the injector opened, and its file row
// counts every arm.
TEST_F(Files, PollRetryNamesTheFileThatWaitedOnPoll) {
  auto [report, gt] = run_scenario({"pollretry-file", "20"}, 0, {}, {"--files"});
  const std::string path = gt.find("label", "poll_file").at("path");
  const auto found = harness::findings_with_tag(report, "POLL-RETRY");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].at("severity"), "WARN");
  EXPECT_NE(found[0].at("message").get<std::string>().find(" All on " + path + "."), std::string::npos)
      << found[0].at("message");
  long long armed = 0;
  for (const auto& row : ring_of(report, gt).at("files"))
    if (row.at("name") == path) armed += num(row, "poll_armed");
  EXPECT_EQ(armed, gt.value("armed"));
}

// hazard-overlap under --check --files: every pair's first READ reads pipe 0 and its
// second pipe 1, and each hazard record names both.
TEST_F(Files, HazardsNameTheFilesOfBothRequests) {
  auto [report, gt] = run_scenario({"hazard-overlap", "3"}, 0, {}, {"--check", "--files"});
  const auto& names = gt.find("label", "hazard_files");
  const auto& records = report.at("hazards").at("records");
  ASSERT_EQ(static_cast<long long>(records.size()), gt.value("overlaps"));
  for (const auto& h : records) {
    SCOPED_TRACE(h.dump());
    EXPECT_EQ(h.at("first").at("file"), names.at("first"));
    EXPECT_EQ(h.at("second").at("file"), names.at("second"));
  }
  const auto found = harness::findings_with_tag(report, "HAZARD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].at("message").get<std::string>().find(" on " + names.at("first")), std::string::npos)
      << found[0].at("message");
}

}  // namespace
