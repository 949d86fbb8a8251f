// SPDX-License-Identifier: MIT
// The JSON report written as it is made (write_json_report) against the same report built
// as one document (render_json), and which rings it writes one by one by default.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/report.h"
#include "support/fixtures.h"
#include "util/json_text.h"

namespace uringscope::report_test {
namespace {

using Json = nlohmann::ordered_json;

std::string streamed(const Snapshot& snap, const std::vector<Finding>& findings,
                     const JsonReportOptions& opts = {}) {
  std::ostringstream out;
  write_json_report(out, snap, findings, opts);
  return out.str();
}

TEST(JsonStream, WritesTheBytesOfTheWholeDocument) {
  Snapshot snap = report_fixture();
  // Names the writer must repair and escape: a byte that starts no UTF-8 sequence, a
  // terminal escape, DEL.
  snap.rings[0].comm = std::string("bad\xff") + "\x1b[2J" + "\x7f";
  snap.target.command = {"./app", "--name=\xfe"};
  const std::vector<Finding> findings = report_findings();
  const Json doc = render_json(snap, findings);
  EXPECT_EQ(doc.at("invalid_utf8_replaced"), 2);
  EXPECT_EQ(streamed(snap, findings), json_document(doc) + "\n");
}

TEST(JsonStream, AnEmptyReportKeepsItsShape) {
  const Snapshot snap{.tool_version = "test"};
  const std::string text = streamed(snap, {});
  EXPECT_EQ(text, json_document(render_json(snap, {})) + "\n");
  const Json parsed = Json::parse(text);
  EXPECT_EQ(parsed.at("rings"), Json::array());
  EXPECT_EQ(parsed.at("findings"), Json::array());
  EXPECT_EQ(parsed.at("rings_omitted").at("rings"), 0);
}

TEST(JsonStream, TheDiffComesBeforeTheReplacementCount) {
  const Snapshot snap{.tool_version = "test"};
  const Json diff{{"rings_compared", false}};
  const Json parsed = Json::parse(streamed(snap, {}, {.rings = std::nullopt, .diff = &diff}));
  std::vector<std::string> keys;
  for (const auto& [key, value] : parsed.items()) keys.push_back(key);
  ASSERT_GE(keys.size(), 2u);
  EXPECT_EQ(keys[keys.size() - 2], "diff");
  EXPECT_EQ(keys.back(), "invalid_utf8_replaced");
}

// 30 active rings of 3 processes (ring i took i+1 ms), 5 idle ones, ring 2 overflowed
// (a finding names it), and a fold of 40 destroyed rings.
Snapshot many_rings() {
  Snapshot snap{.tool_version = "test", .wall_ns = 1'000'000'000, .ncpus = 2};
  for (uint32_t i = 0; i < 30; ++i) {
    Ring ring{.id = i, .pid = 100 + i % 3, .comm = "srv"};
    OpStats read{.opcode = 22, .submitted = 10, .completed = 10, .bytes = 4096};
    read.latency.sum_ns = (i + 1) * 1'000'000ULL;
    ring.ops = {read};
    ring.counters.submissions = ring.counters.completions = 10;
    snap.rings.push_back(std::move(ring));
  }
  snap.rings[2].counters.cq_overflows = 1;
  for (uint32_t i = 30; i < 35; ++i) snap.rings.push_back(Ring{.id = i, .pid = 200, .comm = "idle"});
  Ring fold{.id = 35, .pid = 100, .comm = "srv"};
  fold.fold = FoldScope::Process;
  fold.folded_rings = 40;
  snap.rings.push_back(std::move(fold));
  snap.workers = {{.pid = 100, .distinct = 4}};
  aggregate(snap);
  return snap;
}

std::set<uint32_t> ids_of(const Json& rings) {
  std::set<uint32_t> ids;
  for (const Json& ring : rings) ids.insert(ring.at("id").get<uint32_t>());
  return ids;
}

TEST(JsonStream, ByDefaultWritesWhatTheTextReportDrawsAndSumsTheRest) {
  const Snapshot snap = many_rings();
  const std::vector<Finding> findings = evaluate(snap);
  const Json parsed = Json::parse(streamed(snap, findings, {.rings = 10}));
  // The ten busiest (29..20), the overflowed ring 2 and the fold.
  std::set<uint32_t> expected{2, 35};
  for (uint32_t i = 20; i < 30; ++i) expected.insert(i);
  EXPECT_EQ(ids_of(parsed.at("rings")), expected);

  const Json& omitted = parsed.at("rings_omitted");
  EXPECT_EQ(omitted.at("rings"), 19 + 5);
  EXPECT_EQ(omitted.at("idle_rings"), 5);
  uint64_t rings = 0, submitted = 0, workers = 0;
  for (const Json& p : omitted.at("processes")) {
    rings += p.at("rings").get<uint64_t>();
    submitted += p.at("submitted").get<uint64_t>();
    workers += p.at("workers_distinct").get<uint64_t>();
  }
  EXPECT_EQ(rings, 24u);
  EXPECT_EQ(submitted, 190u);  // rings 0, 1 and 3..19, ten READs each
  EXPECT_EQ(workers, 4u);      // pid 100's, once however many of its rings are omitted
  // The totals still count every ring.
  EXPECT_EQ(parsed.at("counters").at("submissions"), 300);
}

TEST(JsonStream, RingsAllWritesEveryRing) {
  const Snapshot snap = many_rings();
  const Json parsed = Json::parse(streamed(snap, evaluate(snap), {.rings = std::nullopt}));
  EXPECT_EQ(parsed.at("rings").size(), snap.rings.size());
  EXPECT_EQ(parsed.at("rings_omitted").at("rings"), 0);
  EXPECT_EQ(parsed.at("rings_omitted").at("processes"), Json::array());
}

}  // namespace
}  // namespace uringscope::report_test
