// SPDX-License-Identifier: MIT
// top's live flame graph and its filters: widths against the folded stacks, navigation,
// Enter as a zoom, the weight toggle; and apply_filters on its own.
#include <gtest/gtest.h>

#include <numeric>

#include "report/folded.h"
#include "top/filter.h"
#include "top/flame.h"
#include "top_fixture.h"

namespace uringscope::top_test {
namespace {

using top::Key;
using top::KeyCode;

// db's 400 READs and 100 WRITEs and web's 50 RECVs and 50 SENDs, since the start.
top::TopModel flame_model() {
  top::TopModel m({.interval_s = 1, .files_on = true});
  m.set_size(80, 24);
  m.on_reading(reading(0, 0, 0, 0));
  m.on_reading(reading(kSecond, 400, 100, 50));
  return m;
}

TEST(TopFlame, FramesSumToTheFoldedStacksAndSitOverTheirParents) {
  const Snapshot s = reading(kSecond, 400, 100, 50);
  top::FlameGraph g = top::build_flame(s, FlameWeight::Count);
  EXPECT_EQ(g.total, flame_total(s, FlameWeight::Count));
  EXPECT_EQ(g.total, 600u);
  top::layout_flame(g, 80);
  // Level 0: the two comms, db (500) and web (100), left to right by name.
  const auto roots = top::flame_level(g, 0);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(g.nodes[roots[0]].label, "db");
  EXPECT_EQ(g.nodes[roots[0]].width, 67u);  // 500/600 of 80, rounded
  EXPECT_EQ(g.nodes[roots[1]].x, 67u);
  EXPECT_EQ(g.nodes[roots[1]].width, 13u);
  // Every frame lies within its parent's span.
  for (const top::FlameNode& n : g.nodes) {
    if (n.parent == top::kNoParent) continue;
    const top::FlameNode& p = g.nodes[n.parent];
    EXPECT_GE(n.x, p.x);
    EXPECT_LE(n.x + n.width, p.x + p.width) << n.label;
  }
  // The files are the top level: a.dat's READs are 300 of the 600 CQEs.
  uint64_t a_reads = 0;
  for (std::size_t i : top::flame_level(g, 3))
    if (g.nodes[i].label == "/data/a.dat" && top::flame_path(g, i).find("READ") != std::string::npos)
      a_reads = g.nodes[i].weight;
  EXPECT_EQ(a_reads, 300u);
}

TEST(TopFlame, NavigationAndEnterZoomIntoAFrame) {
  top::TopModel m = flame_model();
  type(m, "6");
  ASSERT_TRUE(m.flame_selected());
  EXPECT_EQ(m.flame().nodes[*m.flame_selected()].label, "db");
  type(m, "kk");  // db -> its ring -> its widest op, READ
  EXPECT_EQ(m.flame().nodes[*m.flame_selected()].label, "READ");
  type(m, "l");  // the next frame on the same level: WRITE
  EXPECT_EQ(m.flame().nodes[*m.flame_selected()].label, "WRITE");
  type(m, "j");
  EXPECT_NE(m.flame().nodes[*m.flame_selected()].label.find("ring #0"), std::string::npos);
  type(m, "kl");
  m.on_key(Key{KeyCode::Enter});  // zoom: WRITE becomes a filter
  ASSERT_EQ(m.filters().size(), 1u);
  EXPECT_EQ(top::filter_label(m.filters()[0]), "op=WRITE");
  EXPECT_EQ(m.flame().total, 100u);
  // The screen: the title, then the frames, root at the bottom.
  EXPECT_NE(line_with(m, "width = count"), "");
  EXPECT_NE(line_with(m, "100 CQEs (100.0% of all)"), "");
  m.on_key(Key{KeyCode::Escape});
  EXPECT_EQ(m.flame().total, 600u);
}

TEST(TopFlame, BCyclesTheWeight) {
  top::TopModel m = flame_model();
  type(m, "6b");
  EXPECT_EQ(m.flame_weight(), FlameWeight::Bytes);
  EXPECT_EQ(m.flame().total, 400u * 4096 + 100u * 4096 + 100u * 100);
  type(m, "b");
  EXPECT_EQ(m.flame_weight(), FlameWeight::Time);
  type(m, "b");
  EXPECT_EQ(m.flame_weight(), FlameWeight::Count);
}

TEST(TopFlame, SearchSelectsAMatchingFrame) {
  top::TopModel m = flame_model();
  type(m, "6/b.dat");
  m.on_key(Key{KeyCode::Enter});
  EXPECT_EQ(m.flame().nodes[*m.flame_selected()].label, "/data/b.dat");
}

TEST(TopFilter, CommPidRingOpAndFileFramesCombine) {
  const Snapshot s = reading(kSecond, 400, 100, 50, 10);
  const std::vector<top::FilterFrame> web{top::comm_filter("web")};
  EXPECT_EQ(top::apply_filters(s, web).rings.size(), 1u);
  EXPECT_EQ(top::apply_filters(s, web).totals.completions, 100u);
  const std::vector<top::FilterFrame> recv{top::pid_filter(20, "web"), top::op_filter(op::kRecv)};
  const Snapshot r = top::apply_filters(s, recv);
  ASSERT_EQ(r.rings.size(), 1u);
  EXPECT_EQ(r.rings[0].counters.completions, 50u);
  EXPECT_EQ(r.rings[0].counters.punted, 10u);
  EXPECT_EQ(r.rings[0].id, 1u);  // ids are the report's
  const std::vector<top::FilterFrame> b{top::ring_filter(s.rings[0]), top::file_filter("/data/b.dat")};
  const Snapshot f = top::apply_filters(s, b);
  ASSERT_EQ(f.rings.size(), 1u);
  ASSERT_EQ(f.rings[0].ops.size(), 1u);
  EXPECT_EQ(f.rings[0].ops[0].completed, 100u);
  EXPECT_EQ(f.rings[0].ops[0].bytes, 100u * 4096);
  const std::vector<top::FilterFrame> none{top::comm_filter("db"), top::op_filter(op::kRecv)};
  EXPECT_TRUE(top::apply_filters(s, none).rings.empty());
}

}  // namespace
}  // namespace uringscope::top_test
