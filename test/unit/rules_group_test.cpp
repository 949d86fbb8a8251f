// SPDX-License-Identifier: MIT
// One cause on many rings, one finding (rules/group.cpp): when rings are grouped, what
// the group names, which members it writes out, and how the text and JSON reports and
// the per-ring markers read it.
#include <gtest/gtest.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <vector>

#include "report/report.h"
#include "uringscope/findings.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

constexpr uint32_t kRead = 22;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A ring of `pid` whose CQ overflowed (OVERFLOW fires on any overflow) and whose READs
// took `busy_ns` in all: the weight by which a group's worst members are chosen.
Ring overflowing_ring(uint32_t id, uint32_t pid, std::string comm, uint64_t busy_ns = 0) {
  Ring ring{.id = id, .pid = pid, .comm = std::move(comm)};
  ring.sq_entries = 8;
  ring.cq_entries = 16;
  ring.counters.cq_overflows = 3;
  OpStats read{.opcode = kRead, .submitted = 10, .completed = 10};
  read.latency.sum_ns = busy_ns;
  ring.counters.submissions = read.submitted;
  ring.counters.completions = read.completed;
  ring.ops = {read};
  return ring;
}

// A ring whose READs fail with `err`, 100 of 1,000: ERRORS, its fix per errno.
Ring failing_ring(uint32_t id, int err) {
  Ring ring{.id = id, .pid = 100 + id, .comm = "db"};
  OpStats read{.opcode = kRead, .submitted = 1000, .completed = 1000, .errors = 100};
  read.errnos = {{.err = err, .count = 100}};
  ring.counters.submissions = read.submitted;
  ring.counters.completions = read.completed;
  ring.ops = {read};
  return ring;
}

Snapshot snapshot_of(std::vector<Ring> rings) {
  Snapshot s{.tool_version = "test", .wall_ns = 1'000'000'000, .ncpus = 8};
  s.rings = std::move(rings);
  aggregate(s);
  return s;
}

std::vector<Finding> with_tag(const std::vector<Finding>& all, std::string_view tag) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.tag == tag) out.push_back(f);
  return out;
}

struct GroupCase {
  std::size_t rings;
  std::size_t findings;  // OVERFLOW findings in the report
  std::size_t written;   // members a group writes out (0: no group)
};

class OverflowOnRings : public ::testing::TestWithParam<GroupCase> {};

TEST_P(OverflowOnRings, GroupsFromFourRingsOn) {
  const GroupCase c = GetParam();
  std::vector<Ring> rings;
  for (uint32_t i = 0; i < c.rings; ++i) rings.push_back(overflowing_ring(i, 1000 + i % 2, "t"));
  const auto found = with_tag(evaluate(snapshot_of(rings)), kTagOverflow);
  ASSERT_EQ(found.size(), c.findings);
  if (c.written == 0) {
    for (const Finding& f : found) EXPECT_FALSE(f.grouped());
    return;
  }
  const Finding& group = found[0];
  EXPECT_EQ(group.ring, std::nullopt);
  EXPECT_EQ(group.severity, Severity::Crit);
  ASSERT_EQ(group.rings.size(), c.rings);
  for (uint32_t i = 0; i < c.rings; ++i) EXPECT_EQ(group.rings[i], i);
  EXPECT_EQ(group.processes, 2u);
  EXPECT_EQ(group.worst.size(), c.written);
  EXPECT_TRUE(contains(group.message, std::to_string(c.rings) + " rings of 2 processes (t)"))
      << group.message;
  EXPECT_EQ(group.suggestion, group.worst[0].suggestion);
  EXPECT_TRUE(contains(group.message, "the worst 3 follow, and the JSON report lists every ring."))
      << group.message;
}

INSTANTIATE_TEST_SUITE_P(Counts, OverflowOnRings,
                         ::testing::Values(GroupCase{1, 1, 0}, GroupCase{3, 3, 0},
                                           GroupCase{4, 1, 3}, GroupCase{40, 1, 3}));

TEST(FindingGroups, TheWorstAreTheBusiestRingsOfTheWorstSeverity) {
  // Busy times 5, 50, 1, 40, 30 ms: the worst three are rings 1, 3 and 4, in that order.
  std::vector<Ring> rings;
  const uint64_t busy_ms[] = {5, 50, 1, 40, 30};
  for (uint32_t i = 0; i < 5; ++i) rings.push_back(overflowing_ring(i, 7, "srv", busy_ms[i] * 1'000'000));
  const auto found = with_tag(evaluate(snapshot_of(rings)), kTagOverflow);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].worst.size(), 3u);
  EXPECT_EQ(found[0].worst[0].ring, 1u);
  EXPECT_EQ(found[0].worst[1].ring, 3u);
  EXPECT_EQ(found[0].worst[2].ring, 4u);
  EXPECT_EQ(found[0].processes, 1u);
  EXPECT_TRUE(contains(found[0].message, "5 rings of 1 process (srv)")) << found[0].message;
}

TEST(FindingGroups, DifferentFixesAreDifferentCauses) {
  // Four rings fail with EBADF, three with ENOSPC: the first four are one finding, the
  // other three stay findings of their own (their fix differs, and three do not group).
  std::vector<Ring> rings;
  for (uint32_t i = 0; i < 4; ++i) rings.push_back(failing_ring(i, EBADF));
  for (uint32_t i = 4; i < 7; ++i) rings.push_back(failing_ring(i, ENOSPC));
  const auto errors = with_tag(evaluate(snapshot_of(rings)), kTagErrors);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_TRUE(errors[0].grouped());
  EXPECT_EQ(errors[0].rings, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(errors[0].opcode, kRead);
  EXPECT_TRUE(contains(errors[0].message, "same ERRORS READ finding")) << errors[0].message;
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_FALSE(errors[i].grouped());
    EXPECT_EQ(errors[i].ring, 3u + i);
  }
}

TEST(FindingGroups, TextWritesTheWorstAndMarksEveryRing) {
  std::vector<Ring> rings;
  for (uint32_t i = 0; i < 6; ++i) rings.push_back(overflowing_ring(i, 9, "w", (i + 1) * 1'000'000));
  const std::vector<Finding> findings = evaluate(snapshot_of(rings));
  std::ostringstream text;
  render_findings(text, findings);
  const std::string out = text.str();
  EXPECT_TRUE(contains(out, "6 rings of 1 process (w)")) << out;
  // Rings 5, 4 and 3 are written out, 2, 1 and 0 only counted.
  EXPECT_TRUE(contains(out, "- ring #5: 3 completions found")) << out;
  EXPECT_TRUE(contains(out, "- ring #3: 3 completions found")) << out;
  EXPECT_FALSE(contains(out, "ring #2: 3 completions found")) << out;
  // A ring block's marker reads the group: ring #0 is in it though not written out.
  EXPECT_TRUE(finding_concerns(findings, {kTagOverflow}, 0u, std::nullopt));
  EXPECT_FALSE(finding_concerns(findings, {kTagOverflow}, 6u, std::nullopt));
}

TEST(FindingGroups, JsonListsEveryRingAndTheWorstInFull) {
  std::vector<Ring> rings;
  for (uint32_t i = 0; i < 5; ++i) rings.push_back(overflowing_ring(i, 9, "w", (i + 1) * 1'000'000));
  const Snapshot snap = snapshot_of(rings);
  const nlohmann::ordered_json doc = render_json(snap, evaluate(snap));
  const auto& group = doc["findings"][0];
  EXPECT_EQ(group["tag"], "OVERFLOW");
  EXPECT_TRUE(group["ring"].is_null());
  EXPECT_EQ(group["evidence"]["rings"], (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(group["evidence"]["ring_count"], 5);
  EXPECT_EQ(group["evidence"]["process_count"], 1);
  ASSERT_EQ(group["worst"].size(), 3u);
  EXPECT_EQ(group["worst"][0]["ring"], 4);
  EXPECT_EQ(group["worst"][0]["evidence"]["cq_overflows"], 3);
}

}  // namespace
}  // namespace uringscope
