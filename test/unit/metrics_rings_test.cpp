// SPDX-License-Identifier: MIT
// Bounded ring series (metrics/ring_series.h): idle rings have none, at most
// kMetricsRingSeries live rings have their own, everything else is one "other" row whose
// counters only grow, and the choice remembers live rings only. The expected numbers
// come from the hand-built readings below.
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "metrics/exposition.h"
#include "metrics/ring_series.h"

namespace uringscope {
namespace {

constexpr uint32_t kRead = 22;

Ring ring(uint32_t id, uint64_t reads, bool destroyed = false) {
  Ring r;
  r.id = id;
  r.ctx = 0xffff888000000000ull + id * 0x1000ull;
  r.first_ns = 1000 + id;
  r.bpf_row = id;
  r.pid = 1000 + id;
  r.comm = "postgres";
  r.destroyed = destroyed;
  if (reads) {
    OpStats op;
    op.opcode = kRead;
    op.submitted = op.completed = reads;
    r.ops.push_back(op);
    r.counters.submissions = r.counters.completions = reads;
    r.counters.enter_calls = reads;
  }
  return r;
}

Snapshot reading(std::vector<Ring> rings) {
  Snapshot s;
  s.tool_version = "test";
  s.rings = std::move(rings);
  return s;
}

struct Rendered {
  std::set<std::string> own;  // ring labels other than "other"
  uint64_t other_reads = 0;
  bool has_other = false;
};

Rendered rendered(const Snapshot& snap) {
  Rendered r;
  for (const RingView& v : ring_views(snap)) {
    if (v.ring->fold != FoldScope::Ring) {
      r.has_other = true;
      for (const OpStats& op : v.ops) r.other_reads += op.submitted;
    } else {
      r.own.insert(std::to_string(v.ring->id));
    }
  }
  return r;
}

// One reading of a sequence: the rings it holds, and what the choice must render.
struct Step {
  std::vector<Ring> rings;
  std::set<std::string> own;
  uint64_t other_reads;
};

TEST(RingSeries, PlacesRingsOnceAndSumsTheRest) {
  RingSeriesChoice choice(2);
  const Step steps[] = {
      // Idle rings have no series and add nothing to "other".
      {{ring(0, 0), ring(1, 0), ring(2, 0)}, {}, 0},
      // The first two to show activity get series of their own, oldest first, numbered
      // in that order.
      {{ring(0, 5), ring(1, 0), ring(2, 7), ring(3, 1)}, {"0", "1"}, 1},
      // A ring placed in "other" stays there when it grows, and when a place frees up.
      {{ring(0, 9), ring(1, 0), ring(2, 7, true), ring(3, 4)}, {"0"}, 11},
      // The freed place goes to the next ring to show activity, with a new number.
      {{ring(0, 9), ring(1, 2), ring(2, 7, true), ring(3, 6)}, {"0", "2"}, 13},
  };
  for (std::size_t i = 0; i < std::size(steps); ++i) {
    const Rendered r = rendered(choice.apply(reading(steps[i].rings)));
    EXPECT_EQ(r.own, steps[i].own) << "reading " << i;
    EXPECT_EQ(r.other_reads, steps[i].other_reads) << "reading " << i;
    EXPECT_EQ(r.has_other, steps[i].other_reads > 0) << "reading " << i;
  }
}

// Ring churn as a busy host has it: rings come, do some work, are destroyed and later
// folded (the report's --keep-rings). "other" never goes back, every read is counted
// once in some row, and the choice never holds more than the live rings.
TEST(RingSeries, ChurnKeepsOtherGrowingAndTheStateBounded) {
  RingSeriesChoice choice(4);
  uint64_t last_other = 0, folded_reads = 0, folded_rings = 0;
  for (uint32_t step = 0; step < 300; ++step) {
    std::vector<Ring> rings;
    Ring fold;
    fold.id = 0;
    fold.fold = FoldScope::Process;
    uint64_t all_reads = 0;
    // Rings step-10 .. step live; the one that just ended is destroyed; older ones folded.
    for (uint32_t id = step >= 10 ? step - 10 : 0; id <= step; ++id) {
      const uint64_t reads = (step - id + 1) * (id % 3);
      rings.push_back(ring(id + 1, reads, id + 10 == step));
      all_reads += reads;
    }
    if (step >= 11) {
      const uint32_t gone = step - 11;
      folded_reads += 11 * (gone % 3);
      ++folded_rings;
    }
    fold.folded_rings = folded_rings;
    OpStats op;
    op.opcode = kRead;
    op.submitted = folded_reads;
    if (folded_rings) {
      fold.ops.push_back(op);
      rings.insert(rings.begin(), fold);
    }
    const Snapshot applied = choice.apply(reading(rings));
    const Rendered r = rendered(applied);
    EXPECT_LE(r.own.size(), 4u) << "step " << step;
    EXPECT_GE(r.other_reads, last_other) << "step " << step;
    last_other = r.other_reads;
    uint64_t own_reads = 0;
    for (const RingView& v : ring_views(applied))
      if (v.ring->fold == FoldScope::Ring) own_reads += v.ops.empty() ? 0 : v.ops[0].submitted;
    EXPECT_EQ(own_reads + r.other_reads, all_reads + folded_reads) << "step " << step;
    EXPECT_LE(choice.own() + choice.summed_live(), 11u) << "step " << step;
  }
}

// PostgreSQL 18 makes a ring for every possible backend in the postmaster and a backend
// uses one: 142 rings, 141 idle. The scrape carries one ring's series and stays small.
TEST(RingSeries, AServerWithManyIdleRingsScrapesSmall) {
  std::vector<Ring> rings;
  for (uint32_t id = 0; id < 142; ++id) rings.push_back(ring(id, id == 37 ? 388 : 0));
  Snapshot snap = reading(rings);
  snap.boundary_measured = true;
  RingSeriesChoice choice;
  const std::string text = render_exposition(choice.apply(snap), ExpositionFormat::Prometheus004);
  EXPECT_LT(text.size(), 50u * 1024) << text.size();
  EXPECT_NE(text.find("uringscope_rings 142\n"), std::string::npos);
  EXPECT_NE(text.find("uringscope_requests_submitted_total{ring=\"0\",pid=\"1037\""), std::string::npos);
  for (uint32_t id : {1u, 36u, 37u, 141u})
    EXPECT_EQ(text.find("ring=\"" + std::to_string(id) + "\""), std::string::npos) << id;
  EXPECT_EQ(text.find("ring=\"other\""), std::string::npos);
}

// A report id is a place in one reading: when the rings before it are folded, or the
// catch-all row appears first, a live ring's id moves. Its series do not: they follow the
// ring, and no number passes to another ring.
TEST(RingSeries, ARingKeepsItsSeriesWhenItsReportIdMoves) {
  RingSeriesChoice choice;
  auto reads_of = [](const Snapshot& applied) {
    std::map<uint32_t, std::pair<uint32_t, uint64_t>> by_number;  // number -> pid, reads
    for (const RingView& v : ring_views(applied))
      if (v.ring->fold == FoldScope::Ring) by_number[v.ring->id] = {v.ring->pid, v.ops.at(0).submitted};
    return by_number;
  };
  const auto first = reads_of(choice.apply(reading({ring(0, 1), ring(1, 2), ring(2, 3)})));
  EXPECT_EQ(first, (std::map<uint32_t, std::pair<uint32_t, uint64_t>>{{0, {1000, 1}}, {1, {1001, 2}}, {2, {1002, 3}}}));
  // Ring 0 is destroyed and folded away: rings 1 and 2 become report ids 0 and 1.
  Ring fold = ring(0, 1, true);
  fold.fold = FoldScope::Process;
  fold.folded_rings = 1;
  Ring one = ring(1, 5), two = ring(2, 6);
  one.id = 0;
  two.id = 1;
  const auto second = reads_of(choice.apply(reading({fold, one, two})));
  EXPECT_EQ(second, (std::map<uint32_t, std::pair<uint32_t, uint64_t>>{{1, {1001, 5}}, {2, {1002, 6}}}));
  // A new ring at the freed address and row is another ring: it gets a number of its own.
  Ring reused = ring(0, 4);
  reused.id = 2;
  reused.first_ns = 99999;
  reused.pid = 2000;
  // The catch-all row and a row that lost its address have neither ctx nor first sight:
  // their rows tell them apart, whichever comes first in a reading.
  Ring catch_all = ring(7, 8), lost = ring(9, 3);
  catch_all.ctx = lost.ctx = 0;
  catch_all.first_ns = lost.first_ns = 0;
  catch_all.pid = lost.pid = 0;
  catch_all.id = 3;
  lost.id = 4;
  const auto third = reads_of(choice.apply(reading({fold, one, two, reused, catch_all, lost})));
  EXPECT_EQ(third.at(3), (std::pair<uint32_t, uint64_t>{2000, 4}));
  EXPECT_EQ(third.at(4), (std::pair<uint32_t, uint64_t>{0, 8}));
  EXPECT_EQ(third.at(5), (std::pair<uint32_t, uint64_t>{0, 3}));
  EXPECT_EQ(third.count(0), 0u);
  catch_all.id = 4;
  lost.id = 3;
  const auto fourth = reads_of(choice.apply(reading({fold, one, two, reused, lost, catch_all})));
  EXPECT_EQ(fourth, third);
}

TEST(RingSeries, FoldsRenderAsOneOtherRowWithoutAChoice) {
  Ring by_process = ring(5, 10, true);
  by_process.fold = FoldScope::Process;
  by_process.folded_rings = 3;
  Ring by_command = ring(6, 4, true);
  by_command.fold = FoldScope::Command;
  by_command.folded_rings = 2;
  const Snapshot snap = reading({ring(0, 1), by_process, by_command});
  const Rendered r = rendered(snap);
  EXPECT_EQ(r.own, (std::set<std::string>{"0"}));
  EXPECT_EQ(r.other_reads, 14u);
  EXPECT_EQ(rings_seen(snap), 6u);
  const std::string text = render_exposition(snap, ExpositionFormat::Prometheus004);
  EXPECT_NE(text.find("uringscope_requests_submitted_total{ring=\"other\",pid=\"\",comm=\"\","
                      "op=\"READ\"} 14"),
            std::string::npos);
  EXPECT_EQ(text.find("uringscope_ring_info{ring=\"other\""), std::string::npos);
}

}  // namespace
}  // namespace uringscope
