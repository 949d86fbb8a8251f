// SPDX-License-Identifier: MIT
// Folded stacks and the flame graph SVG over a hand-built snapshot: every number below
// comes from the fixture's own rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <regex>
#include <sstream>

#include "report/flamegraph_svg.h"
#include "report/folded.h"
#include "support/fixtures.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

using file_test::file_row;
using report_test::uniform_histogram;

OpStats op_row(uint32_t opcode, uint64_t cqes, uint64_t bytes, uint64_t each_ns) {
  OpStats op;
  op.opcode = opcode;
  op.submitted = op.completed = cqes;
  op.bytes = bytes;
  op.latency = uniform_histogram(cqes, each_ns);
  return op;
}

FileStats file_with(std::string name, uint32_t opcode, uint64_t cqes, uint64_t bytes,
                    uint64_t each_ns) {
  FileStats f = file_row(std::move(name), opcode, cqes);
  f.bytes = bytes;
  f.latency = uniform_histogram(cqes, each_ns);
  return f;
}

// A database's ring: 100 READs, 60 on a.dat, 30 on a name holding ';', 10 on no file
// row (the table was full); 50 NOPs. The catch-all ring: 5 WRITEs of 4 KiB.
Snapshot flame_fixture() {
  Snapshot snap;
  Ring db;
  db.id = 0;
  db.pid = 10;
  db.fd = 5;
  db.comm = "db";
  db.ops = {op_row(op::kNop, 50, 0, 500), op_row(op::kRead, 100, 409600, 2000)};
  db.files = {file_with("/data/a.dat", op::kRead, 60, 245760, 2000),
              file_with("/data/b;1", op::kRead, 30, 122880, 2000)};
  Ring other;
  other.id = 1;
  other.source = RingSource::CatchAll;
  other.comm = "";
  other.ops = {op_row(op::kWrite, 5, 20480, 10000)};
  snap.rings = {db, other};
  return snap;
}

std::string folded_text(const Snapshot& snap, FlameWeight weight) {
  std::ostringstream out;
  render_folded(out, folded_stacks(snap, weight));
  return out.str();
}

uint64_t stack_sum(const std::vector<FoldedStack>& stacks) {
  uint64_t sum = 0;
  for (const FoldedStack& s : stacks) sum += s.weight;
  return sum;
}

TEST(Folded, CountStacksEndAtTheFileAndKeepTheRestOnTheOp) {
  EXPECT_EQ(folded_text(flame_fixture(), FlameWeight::Count),
            "[unknown];other rings;WRITE 5\n"
            "db;ring #0 (pid 10, fd 5);NOP 50\n"
            "db;ring #0 (pid 10, fd 5);READ 10\n"
            "db;ring #0 (pid 10, fd 5);READ;/data/a.dat 60\n"
            "db;ring #0 (pid 10, fd 5);READ;/data/b\\x3b1 30\n");
}

TEST(Folded, BytesAndTimeWeightTheSameStacks) {
  EXPECT_EQ(folded_text(flame_fixture(), FlameWeight::Bytes),
            "[unknown];other rings;WRITE 20480\n"
            "db;ring #0 (pid 10, fd 5);READ 40960\n"
            "db;ring #0 (pid 10, fd 5);READ;/data/a.dat 245760\n"
            "db;ring #0 (pid 10, fd 5);READ;/data/b\\x3b1 122880\n");
  const Snapshot snap = flame_fixture();
  const auto time = folded_stacks(snap, FlameWeight::Time);
  ASSERT_EQ(time.size(), 5u);
  EXPECT_EQ(time[3].weight, snap.rings[0].files[0].latency.sum_ns);
  EXPECT_EQ(time[2].weight,
            snap.rings[0].ops[1].latency.sum_ns - snap.rings[0].files[0].latency.sum_ns -
                snap.rings[0].files[1].latency.sum_ns);
}

TEST(Folded, EveryWeightSumsToTheReportsTotal) {
  const Snapshot snap = flame_fixture();
  uint64_t cqes = 0, bytes = 0, ns = 0;
  for (const Ring& ring : snap.rings) {
    for (const OpStats& op : ring.ops) {
      cqes += op.completed;
      bytes += op.bytes;
      ns += op.latency.sum_ns;
    }
  }
  EXPECT_EQ(stack_sum(folded_stacks(snap, FlameWeight::Count)), cqes);
  EXPECT_EQ(stack_sum(folded_stacks(snap, FlameWeight::Bytes)), bytes);
  EXPECT_EQ(stack_sum(folded_stacks(snap, FlameWeight::Time)), ns);
  EXPECT_EQ(flame_total(snap, FlameWeight::Count), cqes);
  EXPECT_EQ(flame_total(snap, FlameWeight::Bytes), bytes);
  EXPECT_EQ(flame_total(snap, FlameWeight::Time), ns);
}

TEST(Folded, OneNameOnTwoInodesIsOneStack) {
  Snapshot snap = flame_fixture();
  snap.rings[0].files.push_back(file_with("/data/a.dat", op::kRead, 5, 20480, 2000));
  const std::string text = folded_text(snap, FlameWeight::Count);
  EXPECT_NE(text.find("READ;/data/a.dat 65\n"), std::string::npos) << text;
  EXPECT_NE(text.find("READ 5\n"), std::string::npos) << text;
}

TEST(Folded, WeightNamesRoundTrip) {
  for (FlameWeight w : {FlameWeight::Count, FlameWeight::Bytes, FlameWeight::Time}) {
    EXPECT_EQ(parse_flame_weight(flame_weight_name(w)), w);
  }
  EXPECT_FALSE(parse_flame_weight("requests").has_value());
}

std::string svg_of(const Snapshot& snap, FlameWeight weight) {
  std::ostringstream out;
  render_flamegraph_svg(out, folded_stacks(snap, weight),
                        FlameGraphOptions{.title = "t", .subtitle = "s", .weight = weight});
  return out.str();
}

// (name, width) of every frame, in document order.
std::vector<std::pair<std::string, double>> frames_of(const std::string& svg) {
  static const std::regex frame(
      "<g class=\"f\" data-name=\"([^\"]*)\"[^>]*>.*?<rect x=\"[^\"]*\" y=\"[^\"]*\" "
      "width=\"([0-9.]+)\"");
  std::vector<std::pair<std::string, double>> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), frame);
       it != std::sregex_iterator(); ++it) {
    out.emplace_back((*it)[1].str(), std::stod((*it)[2].str()));
  }
  return out;
}

TEST(FlameGraphSvg, OneFramePerNodeWidthsInProportion) {
  const auto frames = frames_of(svg_of(flame_fixture(), FlameWeight::Count));
  // all, the two comms, two rings, WRITE, NOP, READ, two files: children in name order.
  ASSERT_EQ(frames.size(), 10u);
  const double inner = 1200 - 20, total = 155;
  const std::vector<std::pair<std::string, double>> want = {
      {"all", 155},  {"[unknown]", 5},   {"other rings", 5},  {"WRITE", 5},
      {"db", 150},   {"ring #0 (pid 10, fd 5)", 150},         {"NOP", 50},
      {"READ", 100}, {"/data/a.dat", 60}, {R"(/data/b\x3b1)", 30}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(frames[i].first, want[i].first);
    EXPECT_NEAR(frames[i].second, want[i].second / total * inner, 0.01) << want[i].first;
  }
}

TEST(FlameGraphSvg, NamesAreEscapedAndTheSvgCarriesItsScript) {
  Snapshot snap = flame_fixture();
  snap.rings[0].files[0].name = "/tmp/<a & \"b\">\x01\xff";
  const std::string svg = svg_of(snap, FlameWeight::Count);
  // The frame's visible form (util/untrusted_text.h), then XML's own escaping.
  EXPECT_NE(svg.find(R"(data-name="/tmp/&lt;a &amp; &quot;b&quot;&gt;\x01\xff")"), std::string::npos);
  EXPECT_EQ(svg.find('\x01'), std::string::npos);
  EXPECT_NE(svg.find("function zoom(target)"), std::string::npos);
  EXPECT_NE(svg.find("onload=\"init(evt)\""), std::string::npos);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

TEST(FlameGraphSvg, AnEmptyRunSaysSo) {
  const std::string svg = svg_of(Snapshot{}, FlameWeight::Bytes);
  EXPECT_TRUE(frames_of(svg).empty());
  EXPECT_NE(svg.find("no I/O to draw"), std::string::npos);
}

TEST(FlameGraphSvg, TheSubtitleNamesTheWeightAndItsTotal) {
  const std::string svg = svg_of(flame_fixture(), FlameWeight::Count);
  EXPECT_NE(svg.find("width: count (155 CQEs"), std::string::npos);
}

// The zoom script tells a frame's children from its neighbours by the printed boxes,
// each x and width rounded to two decimals on its own: its tolerance must cover what
// that rounding lets a child overhang its parent, or a click hides a child (seen in
// test/flame/run.sh with a pipe's READ frame under eps = 1e-6).
TEST(FlameGraphSvg, TheZoomToleranceCoversTheRoundingOfEveryChildsBox) {
  std::smatch m;
  const std::string script(flamegraph_script());
  ASSERT_TRUE(std::regex_search(script, m, std::regex("eps = ([0-9.e-]+);")));
  const double eps = std::stod(m[1].str());

  std::vector<FoldedStack> stacks;
  std::mt19937_64 rng(42);  // its sequence is fixed by the standard: the same boxes everywhere
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 9; ++b) {
      // At least 1,000 of about 5.5 M: every frame wide enough to be drawn.
      stacks.push_back(
          {{"op" + std::to_string(a), "file" + std::to_string(b)}, 1000 + rng() % 100003});
    }
  }
  std::ostringstream out;
  render_flamegraph_svg(out, stacks, FlameGraphOptions{});
  const std::string svg = out.str();
  static const std::regex box("<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\"");
  struct Box { double x, y, w; };
  std::vector<Box> open;  // the last frame drawn at each depth, the root first
  double worst = 0;
  int children = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), box); it != std::sregex_iterator();
       ++it) {
    const Box b{std::stod((*it)[1].str()), std::stod((*it)[2].str()), std::stod((*it)[3].str())};
    while (!open.empty() && open.back().y <= b.y) open.pop_back();  // frames go up the page
    if (!open.empty()) {
      const Box& parent = open.back();
      worst = std::max({worst, parent.x - b.x, (b.x + b.w) - (parent.x + parent.w)});
      ++children;
    }
    open.push_back(b);
  }
  ASSERT_EQ(children, 12 + 12 * 9);
  EXPECT_LE(worst, eps);
  // The rounding does show at this size: a tolerance of nothing would fail here.
  EXPECT_GT(worst, 1e-6);
}

}  // namespace
}  // namespace uringscope
