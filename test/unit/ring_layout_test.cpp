// SPDX-License-Identifier: MIT
// Which rings the text report draws in full (--rings), how idle rings fold into a line
// per process and the rest into one table, on hand-built rings whose numbers are here.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "uringscope/opcodes.h"
#include "util/format.h"
#include "report/report.h"
#include "report/ring_layout.h"

namespace uringscope {
namespace {

Ring idle_ring(uint32_t id, uint32_t pid, std::string comm) {
  Ring ring;
  ring.id = id;
  ring.fd = static_cast<int>(3 + id);
  ring.pid = pid;
  ring.comm = std::move(comm);
  ring.source = RingSource::Create;
  return ring;
}

// A ring of `pid` with `reads` READs that spent `busy_us` in flight between them.
Ring active_ring(uint32_t id, uint32_t pid, std::string comm, uint64_t reads, uint64_t busy_us) {
  Ring ring = idle_ring(id, pid, std::move(comm));
  OpStats op;
  op.opcode = op::kRead;
  op.submitted = op.completed = reads;
  op.bytes = reads * 4096;
  op.punted = reads / 2;
  op.latency.buckets[10] = reads;
  op.latency.sum_ns = busy_us * 1000;
  op.latency.max_ns = 2000;
  ring.ops = {op};
  ring.counters.submissions = ring.counters.completions = reads;
  return ring;
}

std::string owner_label(const HiddenProcess& p) {
  return p.pid ? p.comm + " pid " + std::to_string(p.pid) : p.comm;
}

std::vector<uint32_t> ids(const std::vector<ProcessRings>& groups) {
  std::vector<uint32_t> out;
  for (const ProcessRings& g : groups)
    for (const Ring* r : g.rings) out.push_back(r->id);
  return out;
}

// 14 active rings: pid 100 "db" has #0..#5 (busy 10..60 us), pid 200 "web" #6..#11
// (busy 100..600 us), pid 300 "test" #12, #13 (busy 1, 2 us); idle #14, #15 of pid 300
// and #16 of pid 100.
Snapshot fourteen_rings() {
  Snapshot snap;
  snap.target.mode = TargetMode::All;
  for (uint32_t i = 0; i < 6; ++i) snap.rings.push_back(active_ring(i, 100, "db", 10, 10 * (i + 1)));
  for (uint32_t i = 0; i < 6; ++i)
    snap.rings.push_back(active_ring(6 + i, 200, "web", 10, 100 * (i + 1)));
  snap.rings.push_back(active_ring(12, 300, "test", 4, 1));
  snap.rings.push_back(active_ring(13, 300, "test", 6, 2));
  snap.rings.push_back(idle_ring(14, 300, "test"));
  snap.rings.push_back(idle_ring(15, 300, "test"));
  snap.rings.push_back(idle_ring(16, 100, "db"));
  return snap;
}

TEST(RingLayout, TheBusiestByTimeInFullGroupedByProcessTheRestSummedUp) {
  const Snapshot snap = fourteen_rings();
  const RingLayout layout = layout_rings(snap, {}, 10);
  // The ten busiest: web's six (100..600 us) and db's four busiest (30..60 us).
  ASSERT_EQ(layout.full.size(), 2u);
  EXPECT_EQ(layout.full[0].pid, 100u);  // db: its first full ring, #2, comes first
  EXPECT_EQ(ids(layout.full), (std::vector<uint32_t>{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_TRUE(layout.many_processes);
  EXPECT_EQ(ids(layout.idle), (std::vector<uint32_t>{14, 15, 16}));
  ASSERT_EQ(layout.idle.size(), 2u);
  EXPECT_EQ(layout.idle[0].pid, 300u);  // #14 is the first idle ring
  // Hidden: db's #0, #1 (10 + 20 us, 20 reads) and test's #12, #13 (3 us, 10 reads).
  EXPECT_EQ(layout.hidden_rings, 4u);
  ASSERT_EQ(layout.hidden.size(), 2u);
  EXPECT_EQ(layout.hidden[0].pid, 100u);
  EXPECT_EQ(layout.hidden[0].rings, 2u);
  EXPECT_EQ(layout.hidden[0].total.submitted, 20u);
  EXPECT_EQ(layout.hidden[0].time_ns(), 30'000u);
  EXPECT_EQ(layout.hidden[1].pid, 300u);
  EXPECT_EQ(layout.hidden[1].total.submitted, 10u);
  EXPECT_EQ(layout.hidden[1].total.bytes, 10u * 4096);
  EXPECT_EQ(layout.hidden[1].total.punted, 2u + 3u);
}

TEST(RingLayout, AWarnedRingIsDrawnWhateverItsRankAndAllMeansAll) {
  const Snapshot snap = fourteen_rings();
  Finding warn, info;
  warn.tag = "BATCH";
  warn.severity = Severity::Warn;
  warn.ring = 12u;
  info.tag = "NODATA";
  info.severity = Severity::Info;
  info.ring = 13u;
  const RingLayout layout = layout_rings(snap, {warn, info}, 2);
  // The two busiest (#10, #11), and #12 for its WARN; an INFO does not pull #13 in.
  EXPECT_EQ(ids(layout.full), (std::vector<uint32_t>{10, 11, 12}));
  EXPECT_EQ(layout.hidden_rings, 14u - 3u);

  const RingLayout all = layout_rings(snap, {}, std::nullopt);
  EXPECT_EQ(ids(all.full).size(), snap.rings.size());
  EXPECT_TRUE(all.idle.empty());
  EXPECT_TRUE(all.hidden.empty());
}

TEST(RingLayout, OneProcessHasNoHeadingAndZeroRingsSumsEveryRing) {
  Snapshot snap;
  snap.rings = {active_ring(0, 7, "app", 5, 5), active_ring(1, 7, "app", 5, 9)};
  const RingLayout layout = layout_rings(snap, {}, 10);
  EXPECT_FALSE(layout.many_processes);
  EXPECT_EQ(ids(layout.full), (std::vector<uint32_t>{0, 1}));
  const RingLayout none = layout_rings(snap, {}, 0);
  EXPECT_TRUE(none.full.empty());
  ASSERT_EQ(none.hidden.size(), 1u);
  EXPECT_EQ(none.hidden[0].rings, 2u);
  EXPECT_EQ(none.hidden[0].total.latency.count(), 10u);
}

// A fold of destroyed rings (--keep-rings) counts as the rings it sums; the folds past
// one process are rows of their own, by name, not merged as "pid 0".
TEST(RingLayout, AFoldCountsAsTheRingsItSums) {
  Snapshot snap;
  Ring process = active_ring(1, 7, "app", 40, 40);
  process.fold = FoldScope::Process;
  process.folded_rings = 10;
  Ring named = active_ring(2, 0, "app", 9, 9);
  named.fold = FoldScope::Command;
  named.folded_rings = 3;
  Ring other_name = active_ring(3, 0, "tool", 9, 9);
  other_name.fold = FoldScope::Command;
  other_name.folded_rings = 4;
  Ring rest = active_ring(4, 0, "", 5, 5);
  rest.fold = FoldScope::All;
  rest.folded_rings = 5;
  snap.rings = {active_ring(0, 7, "app", 5, 5), process, named, other_name, rest};
  const RingLayout layout = layout_rings(snap, {}, 0);
  EXPECT_EQ(layout.hidden_rings, 1u + 10 + 3 + 4 + 5);
  ASSERT_EQ(layout.hidden.size(), 4u);
  std::map<std::string, std::size_t> rings;
  for (const HiddenProcess& p : layout.hidden) rings[owner_label(p)] = p.rings;
  EXPECT_EQ(rings, (std::map<std::string, std::size_t>{
                       {"app pid 7", 11}, {"app", 3}, {"tool", 4}, {"(other processes)", 5}}));
}

TEST(RingLayoutText, AFoldsHeadingSaysWhoseRingsItSums) {
  Ring fold = active_ring(9, 51304, "inject", 3, 3);
  fold.fold = FoldScope::Process;
  fold.folded_rings = 1952;
  fold.sq_entries = 16;
  fold.cq_entries = 32;
  std::ostringstream out;
  render_ring_header(out, fold);
  EXPECT_EQ(out.str(),
            "ring #9: 1,952 destroyed rings of inject pid 51304, summed  sq=16 cq=32  flags: (none)\n");
  fold.fold = FoldScope::Command;
  fold.pid = 0;
  fold.sq_entries = 0;
  std::ostringstream named;
  render_ring_header(named, fold);
  EXPECT_EQ(named.str(),
            "ring #9: 1,952 destroyed rings of processes named inject, summed  sq=? cq=32  flags: (none)\n");
}

TEST(RingLayoutText, HeadingsIdleLineAndTheTableOfTheRest) {
  Snapshot snap = fourteen_rings();
  std::ostringstream out;
  render_text(out, snap, {}, TextOptions{});
  const std::string text = out.str();
  EXPECT_NE(text.find("\nprocess db pid 100: 4 rings below\n\nring #2 fd=5"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\nprocess web pid 200: 6 rings below\n"), std::string::npos);
  EXPECT_EQ(text.find("ring #0 fd=3"), std::string::npos);
  EXPECT_EQ(text.find("ring #14 fd="), std::string::npos);
  EXPECT_NE(text.find("idle rings (set up, no request seen; --rings all draws them)\n"
                      "  test pid 300: 2 rings: #14 fd=17, #15 fd=18\n"
                      "  db pid 100: 1 ring: #16 fd=19\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("4 more active rings of 2 processes, by process"), std::string::npos);
  // db's hidden pair: 20 READs, half punted, 80 KiB.
  const auto header = text.find("more active rings");
  const auto db_row = text.find("\n  db pid 100 ", header);
  ASSERT_NE(db_row, std::string::npos) << text;
  std::istringstream row(text.substr(db_row + 13, text.find('\n', db_row + 1) - db_row - 13));
  std::vector<std::string> cells;
  for (std::string cell; row >> cell;) cells.push_back(cell);
  // rings, reqs, p50, p99, max, punted, errors, bytes, workers
  ASSERT_EQ(cells.size(), 9u) << row.str();
  EXPECT_EQ(cells[0], "2");
  EXPECT_EQ(cells[1], "20");
  EXPECT_EQ(cells[5], "50.0%");
  EXPECT_EQ(cells[6], "0");
  EXPECT_EQ(cells[7], format_bytes(20 * 4096));
  EXPECT_EQ(cells[8], "0");
}

TEST(RingLayoutText, BeyondTwentyProcessesTheTableSaysHowManyMore) {
  Snapshot snap;
  for (uint32_t i = 0; i < 35; ++i)
    snap.rings.push_back(active_ring(i, 1000 + i, "t" + std::to_string(i), 1, 1 + i));
  std::ostringstream out;
  TextOptions five;
  five.full_rings = 5;
  render_text(out, snap, {}, five);
  const std::string text = out.str();
  EXPECT_NE(text.find("30 more active rings of 30 processes"), std::string::npos) << text;
  EXPECT_NE(text.find("  ... 10 more processes (10 rings)\n"), std::string::npos) << text;
}

TEST(RingLayoutText, BeyondTwentyProcessesOneRowPerCommandName) {
  // 30 hidden processes: 24 named "t", 6 named "db"; the db processes each ran 3 io-wq
  // workers. Past a screenful, a row per name sums its processes.
  Snapshot snap;
  for (uint32_t i = 0; i < 35; ++i)
    snap.rings.push_back(active_ring(i, 1000 + i, i % 5 == 0 ? "db" : "t", 1, 1 + i));
  for (uint32_t i = 0; i < 35; i += 5) snap.workers.push_back({.pid = 1000 + i, .distinct = 3});
  std::ostringstream out;
  TextOptions five;
  five.full_rings = 5;
  render_text(out, snap, {}, five);
  const std::string text = out.str();
  EXPECT_NE(text.find("30 more active rings of 30 processes, by command name"), std::string::npos)
      << text;
  // Rings 30..34 are drawn (the busiest); of db's 7 processes (0, 5, ..., 30), 6 are hidden.
  EXPECT_NE(text.find("\n  t (24 processes)     24 "), std::string::npos) << text;
  const auto db = text.find("\n  db (6 processes) ");
  ASSERT_NE(db, std::string::npos) << text;
  const std::string row = text.substr(db + 1, text.find('\n', db + 1) - db - 1);
  EXPECT_TRUE(row.ends_with(" 18")) << row;  // 6 processes x 3 workers
  EXPECT_EQ(text.find("... "), std::string::npos) << text;
}

TEST(RingLayoutText, WorkersOfManyProcessesReadOneLinePerName) {
  // 25 processes named "t" with 3 io-wq workers each, one named "db" with 2.
  Snapshot snap;
  for (uint32_t i = 0; i < 26; ++i) {
    snap.rings.push_back(active_ring(i, 1000 + i, i == 25 ? "db" : "t", 1, 1 + i));
    snap.workers.push_back({.pid = 1000 + i, .distinct = i == 25 ? 2u : 3u});
  }
  std::ostringstream out;
  render_workers(out, snap, {});
  EXPECT_EQ(out.str(), "io-wq workers: db (1 process):    2\nio-wq workers: t (25 processes): 75\n")
      << out.str();
}

}  // namespace
}  // namespace uringscope
