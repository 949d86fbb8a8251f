// SPDX-License-Identifier: MIT
// Comparing baselines, over hand-built before/after pairs. Every expected number and
// line is worked out by hand from the fixture (see the derivations), never copied from
// the renderer's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "diff/baseline.h"
#include "report/report.h"
#include "support/fixtures.h"

namespace uringscope::baseline_test {


namespace {

using Json = nlohmann::ordered_json;

// before: b.json from 0.1.0, a 10s window.
//   NOP    10 reqs, p50 100ns, p99 200ns                         -> gone in the after run
//   READ   1,000 reqs, 250 punted (25%), 4 errors, p50 1,536ns, p99 2ms
//   WRITE  3,000 reqs, nothing punted, p50 6,144ns, p99 8,151ns  -> unchanged
//   rings  app fd 5 (#0) batch 4.0, 2 overflows; db fd ? (#1) batch 1.0
//   findings OVERFLOW CRIT ring 0; PUNT WARN ring 0 READ; BATCH WARN ring 1
// after: the current run from 0.2.0, a 10.5s window (5% longer: no req/s rows).
//   READ   800 reqs, 40 punted (5%), 6 errors, p50 1,200ns, p99 850us
//          reqs -200 = -20.0%; p50 -336/1536 = -21.875% -> "-21.9%";
//          p99 -1,150,000/2,000,000 = -57.5%; punted 25% -> 5% = -20.0pp; errors +2
//   WRITE  as before
//   RECV   500 reqs, p50 900ns, p99 1.9us                        -> new
//   rings  app fd 5 (#0, pid 300) batch 8.0 (+100%), 0 overflows (-2);
//          db fd ? (#1) batch 1.0 (=); app fd 3 (#2) batch 1.5       -> new
//   findings BATCH INFO ring 1 (was WARN); ERRORS WARN ring 0 READ  -> appeared
Baseline before_fixture() {
  Baseline b;
  b.source = "b.json";
  b.tool_version = "0.1.0";
  b.wall_ns = 10'000'000'000;
  b.ops = {
      {.op = "NOP", .opcode = 0, .submitted = 10, .punted = 0, .errors = 0, .p50_ns = 100,
       .p99_ns = 200},
      {.op = "READ", .opcode = 22, .submitted = 1'000, .punted = 250, .errors = 4,
       .p50_ns = 1'536, .p99_ns = 2'000'000},
      {.op = "WRITE", .opcode = 23, .submitted = 3'000, .punted = 0, .errors = 0,
       .p50_ns = 6'144, .p99_ns = 8'151},
  };
  b.rings = {
      {.id = 0, .fd = 5, .pid = 100, .comm = "app", .avg_batch = 4.0, .submissions = 4'000,
       .cq_overflows = 2},
      {.id = 1, .fd = std::nullopt, .pid = 200, .comm = "db", .avg_batch = 1.0,
       .submissions = 500, .cq_overflows = 0},
  };
  b.findings = {
      {.tag = "OVERFLOW", .severity = "CRIT", .ring = 0u, .op = std::nullopt,
       .message = "ring #0: the CQ ring overflowed 2 times."},
      {.tag = "PUNT", .severity = "WARN", .ring = 0u, .op = "READ",
       .message = "ring #0: 25.0% of READ requests were punted."},
      {.tag = "BATCH", .severity = "WARN", .ring = 1u, .op = std::nullopt,
       .message = "ring #1 submits 1.00 SQEs per enter."},
  };
  return b;
}

Baseline after_fixture() {
  Baseline a;
  a.tool_version = "0.2.0";
  a.wall_ns = 10'500'000'000;
  a.ops = {
      {.op = "READ", .opcode = 22, .submitted = 800, .punted = 40, .errors = 6, .p50_ns = 1'200,
       .p99_ns = 850'000},
      {.op = "WRITE", .opcode = 23, .submitted = 3'000, .punted = 0, .errors = 0,
       .p50_ns = 6'144, .p99_ns = 8'151},
      {.op = "RECV", .opcode = 27, .submitted = 500, .punted = 0, .errors = 0, .p50_ns = 900,
       .p99_ns = 1'900},
  };
  a.rings = {
      {.id = 0, .fd = 5, .pid = 300, .comm = "app", .avg_batch = 8.0, .submissions = 6'400,
       .cq_overflows = 0},
      {.id = 1, .fd = std::nullopt, .pid = 400, .comm = "db", .avg_batch = 1.0,
       .submissions = 500, .cq_overflows = 0},
      {.id = 2, .fd = 3, .pid = 300, .comm = "app", .avg_batch = 1.5, .submissions = 30,
       .cq_overflows = 0},
  };
  a.findings = {
      {.tag = "BATCH", .severity = "INFO", .ring = 1u, .op = std::nullopt,
       .message = "ring #1 submits 1.00 SQEs per enter."},
      {.tag = "ERRORS", .severity = "WARN", .ring = 0u, .op = "READ",
       .message = "ring #0: 6 of 800 READ requests failed (0.8%)."},
  };
  return a;
}

std::string render(const Diff& d) {
  std::ostringstream out;
  render_diff_text(out, d);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Runs of blanks collapsed to one and the ends trimmed: what a line says, whatever the
// column widths (alignment has a test of its own).
std::string squeeze(const std::string& line) {
  std::string out;
  for (char c : line) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> squeezed_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text)) out.push_back(squeeze(line));
  return out;
}

const OpDiff& op_row(const Diff& d, uint32_t opcode) {
  for (const OpDiff& row : d.ops)
    if (row.opcode == opcode) return row;
  ADD_FAILURE() << "no row for opcode " << opcode;
  static const OpDiff missing;
  return missing;
}

const Json& json_op(const Json& ops, const std::string& name) {
  for (const Json& op : ops)
    if (op.at("op") == name) return op;
  ADD_FAILURE() << "no op " << name;
  static const Json missing;
  return missing;
}

// --- helpers

TEST(DiffHelpers, RelativeChange) {
  EXPECT_EQ(relative_change_pct(0, 0), 0.0);
  EXPECT_EQ(relative_change_pct(7, 7), 0.0);
  EXPECT_EQ(relative_change_pct(0, 5), std::nullopt);  // from nothing: no ratio
  EXPECT_DOUBLE_EQ(*relative_change_pct(4, 2), -50.0);
  EXPECT_DOUBLE_EQ(*relative_change_pct(4, 10), 150.0);
  EXPECT_DOUBLE_EQ(*relative_change_pct(5, 0), -100.0);
}

TEST(DiffHelpers, PerSecond) {
  EXPECT_EQ(per_second(500, 0), std::nullopt);
  EXPECT_DOUBLE_EQ(*per_second(500, 2'000'000'000), 250.0);
  EXPECT_DOUBLE_EQ(*per_second(0, 2'000'000'000), 0.0);
}

TEST(DiffHelpers, WindowsDiffer) {
  EXPECT_FALSE(windows_differ(0, 0));
  EXPECT_TRUE(windows_differ(0, 1));
  EXPECT_FALSE(windows_differ(10'000'000'000, 10'000'000'000));
  EXPECT_FALSE(windows_differ(10'000'000'000, 11'000'000'000));  // exactly 10%: not more
  EXPECT_TRUE(windows_differ(10'000'000'000, 11'000'000'001));
  EXPECT_TRUE(windows_differ(11'000'000'001, 10'000'000'000));   // either order
  EXPECT_FALSE(windows_differ(25, 27));  // 8%
  EXPECT_TRUE(windows_differ(25, 28));   // 12%
  EXPECT_TRUE(windows_differ(1, UINT64_MAX));  // no overflow at the extremes
}

// --- the model

TEST(Diff, OpRows) {
  Diff d = diff(before_fixture(), after_fixture());
  ASSERT_EQ(d.ops.size(), 4u);
  // Ascending opcode, like the report: NOP 0, READ 22, WRITE 23, RECV 27.
  EXPECT_EQ(d.ops[0].op, "NOP");
  EXPECT_EQ(d.ops[1].op, "READ");
  EXPECT_EQ(d.ops[2].op, "WRITE");
  EXPECT_EQ(d.ops[3].op, "RECV");

  const OpDiff& nop = op_row(d, 0);
  ASSERT_TRUE(nop.before.has_value());
  EXPECT_FALSE(nop.after.has_value());  // removed
  const OpDiff& recv = op_row(d, 27);
  EXPECT_FALSE(recv.before.has_value());  // added
  ASSERT_TRUE(recv.after.has_value());
  EXPECT_EQ(recv.after->submitted, 500u);

  const OpDiff& read = op_row(d, 22);
  ASSERT_TRUE(read.before && read.after);
  EXPECT_EQ(read.before->submitted, 1'000u);
  EXPECT_EQ(read.after->submitted, 800u);
  EXPECT_DOUBLE_EQ(read.before->punt_pct(), 25.0);
  EXPECT_DOUBLE_EQ(read.after->punt_pct(), 5.0);

  EXPECT_EQ(d.before.source, "b.json");
  EXPECT_EQ(d.before.tool_version, "0.1.0");
  EXPECT_EQ(d.after.wall_ns, 10'500'000'000u);
  EXPECT_FALSE(d.windows_differ);  // 5%
}

TEST(Diff, OpsMatchByOpcodeAndTakeTheCurrentName) {
  Baseline before = before_fixture();
  before.ops[1].op = "OP_22";  // an older table that did not know the name
  Diff d = diff(before, after_fixture());
  const OpDiff& read = op_row(d, 22);
  EXPECT_EQ(read.op, "READ");
  EXPECT_TRUE(read.before && read.after);
}

TEST(Diff, RingsPairBySameCommAndFd) {
  Diff d = diff(before_fixture(), after_fixture());
  ASSERT_TRUE(d.rings_compared);
  ASSERT_EQ(d.rings.size(), 3u);
  // After-run order: app fd 5 (paired, pids differ), db (fd unknown: paired by order),
  // app fd 3 (new: the only app ring before had fd 5).
  ASSERT_TRUE(d.rings[0].before && d.rings[0].after);
  EXPECT_EQ(d.rings[0].before->pid, 100u);
  EXPECT_EQ(d.rings[0].after->pid, 300u);
  ASSERT_TRUE(d.rings[1].before && d.rings[1].after);
  EXPECT_EQ(d.rings[1].before->comm, "db");
  EXPECT_FALSE(d.rings[2].before.has_value());
  EXPECT_EQ(d.rings[2].after->fd, 3);
}

BaselineRing ring(uint32_t id, std::string comm, std::optional<int32_t> fd, double batch) {
  return {.id = id, .fd = fd, .pid = 1000 + id, .comm = std::move(comm), .avg_batch = batch};
}

TEST(Diff, RingsWithKnownFdsPairByFdNotByOrder) {
  Baseline before, after;
  before.rings = {ring(0, "app", 5, 1.0), ring(1, "app", 6, 2.0)};
  after.rings = {ring(0, "app", 6, 3.0), ring(1, "app", 5, 4.0)};
  Diff d = diff(before, after);
  ASSERT_EQ(d.rings.size(), 2u);
  EXPECT_EQ(d.rings[0].before->fd, 6);  // after #0 has fd 6: pairs with before #1
  EXPECT_EQ(d.rings[0].before->avg_batch, 2.0);
  EXPECT_EQ(d.rings[1].before->fd, 5);
  EXPECT_EQ(d.rings[1].before->avg_batch, 1.0);
}

TEST(Diff, RingsWithAnUnknownFdPairByOrderWithinTheirComm) {
  Baseline before, after;
  before.rings = {ring(0, "db", std::nullopt, 1.0), ring(1, "web", std::nullopt, 9.0),
                  ring(2, "db", std::nullopt, 2.0)};
  after.rings = {ring(0, "web", 7, 8.0), ring(1, "db", std::nullopt, 3.0),
                 ring(2, "db", 4, 5.0)};
  Diff d = diff(before, after);
  ASSERT_EQ(d.rings.size(), 3u);
  // web: one on each side, fd known on one side only.
  EXPECT_EQ(d.rings[0].before->avg_batch, 9.0);
  // db: the first after db ring takes the first before db ring, the second the second.
  EXPECT_EQ(d.rings[1].before->avg_batch, 1.0);
  EXPECT_EQ(d.rings[2].before->avg_batch, 2.0);
}

TEST(Diff, RingsWithDifferentKnownFdsDoNotPair) {
  Baseline before, after;
  before.rings = {ring(0, "app", 5, 1.0)};
  after.rings = {ring(0, "app", 6, 1.0)};
  Diff d = diff(before, after);
  ASSERT_EQ(d.rings.size(), 2u);
  EXPECT_TRUE(d.rings[0].after && !d.rings[0].before);   // added
  EXPECT_TRUE(d.rings[1].before && !d.rings[1].after);   // removed, listed last
}

TEST(Diff, RingsOfDifferentCommsDoNotPair) {
  Baseline before, after;
  before.rings = {ring(0, "app", std::nullopt, 1.0)};
  after.rings = {ring(0, "other", std::nullopt, 1.0)};
  EXPECT_EQ(diff(before, after).rings.size(), 2u);
}

TEST(Diff, CatchAllRingPairsOnlyWithCatchAll) {
  Baseline before, after;
  BaselineRing catch_all = ring(9, "", std::nullopt, 0.0);
  catch_all.catch_all = true;
  before.rings = {catch_all};
  after.rings = {ring(0, "", std::nullopt, 2.0), catch_all};
  Diff d = diff(before, after);
  ASSERT_EQ(d.rings.size(), 2u);
  EXPECT_FALSE(d.rings[0].before.has_value());  // the comm-less real ring is new
  ASSERT_TRUE(d.rings[1].before.has_value());
  EXPECT_TRUE(d.rings[1].before->catch_all);
}

TEST(Diff, NoRingsInTheBaselineMeansNoRingComparison) {
  Baseline before = before_fixture();
  before.has_rings = false;
  before.rings.clear();
  Diff d = diff(before, after_fixture());
  EXPECT_FALSE(d.rings_compared);
  EXPECT_TRUE(d.rings.empty());  // rather than three "new" rings
  EXPECT_NE(render(d).find("\nper ring\n  not compared: the baseline has no per-ring breakdown\n"),
            std::string::npos);
}

TEST(Diff, Findings) {
  Diff d = diff(before_fixture(), after_fixture());
  ASSERT_EQ(d.appeared.size(), 1u);
  EXPECT_EQ(d.appeared[0].tag, "ERRORS");
  EXPECT_EQ(d.appeared[0].op, "READ");
  ASSERT_EQ(d.disappeared.size(), 2u);
  EXPECT_EQ(d.disappeared[0].tag, "OVERFLOW");
  EXPECT_EQ(d.disappeared[1].tag, "PUNT");
  ASSERT_EQ(d.severity_changed.size(), 1u);
  EXPECT_EQ(d.severity_changed[0].tag, "BATCH");
  EXPECT_EQ(d.severity_changed[0].op, std::nullopt);
  EXPECT_EQ(d.severity_changed[0].before, "WARN");
  EXPECT_EQ(d.severity_changed[0].after, "INFO");
}

TEST(Diff, FindingsAreKeyedByTagAndOpNotRing) {
  Baseline before, after;
  before.findings = {{.tag = "PUNT", .severity = "WARN", .ring = 0u, .op = "READ"}};
  after.findings = {{.tag = "PUNT", .severity = "WARN", .ring = 3u, .op = "READ"},
                    {.tag = "PUNT", .severity = "WARN", .ring = 4u, .op = "WRITE"}};
  Diff d = diff(before, after);
  ASSERT_EQ(d.appeared.size(), 1u);  // PUNT WRITE only: PUNT READ persisted on another ring
  EXPECT_EQ(d.appeared[0].op, "WRITE");
  EXPECT_TRUE(d.disappeared.empty());
  EXPECT_TRUE(d.severity_changed.empty());
}

TEST(Diff, SeverityChangeComparesTheWorstOfEachKey) {
  Baseline before, after;
  before.findings = {{.tag = "BATCH", .severity = "INFO", .ring = 0u},
                     {.tag = "BATCH", .severity = "WARN", .ring = 1u}};
  after.findings = {{.tag = "BATCH", .severity = "WARN", .ring = 0u}};
  EXPECT_TRUE(diff(before, after).severity_changed.empty());  // WARN at worst, both times
}

// --- the text table

TEST(DiffText, Lines) {
  std::string text = render(diff(before_fixture(), after_fixture()));
  std::vector<std::string> want{
      "diff against b.json (baseline from uringscope 0.1.0, 10s window)",
      std::string(64, '='),
      "",
      "per op, all rings",
      "op before after change",
      "NOP reqs 10 -> - gone",
      "p50 100ns -> -",
      "p99 200ns -> -",
      "punted 0.0% -> -",
      "errors 0 -> -",
      "READ reqs 1,000 -> 800 -20.0%",
      "p50 1.54us -> 1.2us -21.9%",
      "p99 2ms -> 850us -57.5%",
      "punted 25.0% -> 5.0% -20.0pp",
      "errors 4 -> 6 +2",
      "WRITE reqs 3,000 -> 3,000 =",
      "p50 6.14us -> 6.14us =",
      "p99 8.15us -> 8.15us =",
      "punted 0.0% -> 0.0% =",
      "errors 0 -> 0 =",
      "RECV reqs - -> 500 new",
      "p50 - -> 900ns",
      "p99 - -> 1.9us",
      "punted - -> 0.0%",
      "errors - -> 0",
      "",
      "per ring",
      "ring before after change",
      "app fd=5 (#0) avg batch 4.00 -> 8.00 +100.0%",
      "CQ overflows 2 -> 0 -2",
      "db fd=? (#1) avg batch 1.00 -> 1.00 =",
      "CQ overflows 0 -> 0 =",
      "app fd=3 (#2) avg batch - -> 1.50 new",
      "CQ overflows - -> 0",
      "",
      "findings appeared",
      "+ [ERRORS] WARN ring #0: 6 of 800 READ requests failed (0.8%).",
      "findings disappeared",
      "- [OVERFLOW] CRIT ring #0: the CQ ring overflowed 2 times.",
      "- [PUNT] WARN ring #0: 25.0% of READ requests were punted.",
      "findings that changed severity",
      "~ [BATCH] WARN -> INFO",
  };
  EXPECT_EQ(squeezed_lines(text), want) << text;
}

TEST(DiffText, ColumnsLineUp) {
  std::string text = render(diff(before_fixture(), after_fixture()));
  std::vector<std::string> lines = lines_of(text);
  // Every "->" of the op table in one column, and the op names at the indent.
  std::size_t arrow = std::string::npos;
  for (const std::string& line : lines) {
    if (line.rfind("  ", 0) != 0 || line.find(" -> ") == std::string::npos) continue;
    if (line.find("[") != std::string::npos) continue;  // finding lines
    if (line.find("avg batch") != std::string::npos) break;  // the ring table starts
    std::size_t at = line.find(" -> ");
    if (arrow == std::string::npos) arrow = at;
    EXPECT_EQ(at, arrow) << line;
  }
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "  READ   reqs     1,000  ->     800   -20.0%"),
            lines.end())
      << text;
}

TEST(DiffText, ReqsPerSecondWhenTheWindowsDiffer) {
  Baseline after = after_fixture();
  after.wall_ns = 30'000'000'000;  // 3x the baseline's 10s
  std::string text = render(diff(before_fixture(), after));
  std::vector<std::string> lines = squeezed_lines(text);
  auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("the windows differ (10s baseline, 30s now): compare req/s, not reqs")) << text;
  // READ 1,000 in 10s = 100/s; 800 in 30s = 26.67/s; (26.67 - 100) / 100 = -73.3%.
  EXPECT_TRUE(has("READ reqs 1,000 -> 800 -20.0%")) << text;
  EXPECT_TRUE(has("req/s 100 -> 26.7 -73.3%")) << text;
  // WRITE: 300/s -> 100/s, -66.7%; one-sided ops get the row too.
  EXPECT_TRUE(has("WRITE reqs 3,000 -> 3,000 =")) << text;
  EXPECT_TRUE(has("req/s 300 -> 100 -66.7%")) << text;
  EXPECT_TRUE(has("req/s 1.0 -> -")) << text;   // NOP 10 in 10s
  EXPECT_TRUE(has("req/s - -> 16.7")) << text;  // RECV 500 in 30s
}

TEST(DiffText, ZeroLengthWindowHasNoRate) {
  Baseline after = after_fixture();
  after.wall_ns = 0;
  std::vector<std::string> lines = squeezed_lines(render(diff(before_fixture(), after)));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "req/s 100 -> ? n/a"), lines.end());
}

TEST(DiffText, FindingWithoutMessageShowsItsScope) {
  Baseline before, after;
  after.findings = {{.tag = "LEAK", .severity = "WARN", .ring = 3u, .op = "READ"},
                    {.tag = "TOOL", .severity = "INFO"}};
  std::vector<std::string> lines = squeezed_lines(render(diff(before, after)));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "+ [LEAK] WARN READ on ring #3"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "+ [TOOL] INFO (whole run)"), lines.end());
}

TEST(DiffText, LongMessagesWrapUnderTheirText) {
  Baseline before, after;
  after.findings = {{.tag = "PUNT", .severity = "WARN", .op = "READ",
                     .message = std::string(50, 'a') + " " + std::string(50, 'b')}};
  std::vector<std::string> lines = lines_of(render(diff(before, after)));
  auto it = std::find(lines.begin(), lines.end(), "  + [PUNT] WARN  " + std::string(50, 'a'));
  ASSERT_NE(it, lines.end());
  ASSERT_NE(it + 1, lines.end());
  EXPECT_EQ(*(it + 1), std::string(17, ' ') + std::string(50, 'b'));
}

TEST(DiffText, EmptyRuns) {
  std::string text = render(diff(Baseline{}, Baseline{}));
  EXPECT_EQ(text,
            "diff against the baseline (baseline from uringscope ?, 0ns window)\n" +
                std::string(66, '=') +
                "\n"
                "\nper op, all rings\n  no requests in either run\n"
                "\nper ring\n  no rings in either run\n"
                "\nno change in findings\n");
}

// --- a run against itself

void expect_no_change(const Diff& d) {
  std::vector<std::string> lines = squeezed_lines(render(d));
  bool in_tables = false;
  for (const std::string& line : lines) {
    if (line == "op before after change" || line == "ring before after change") {
      in_tables = true;
      continue;
    }
    if (!in_tables || line.empty() || line.find(" -> ") == std::string::npos) continue;
    EXPECT_EQ(line.substr(line.size() - 2), " =") << line;
  }
  EXPECT_EQ(lines.back(), "no change in findings");

  Json j = diff_json(d);
  for (const Json& op : j.at("ops")) {
    EXPECT_EQ(op.at("status"), "matched");
    for (const auto& [key, value] : op.at("change").items()) {
      if (value.is_null()) continue;  // a rate of a zero window
      EXPECT_EQ(value.get<double>(), 0.0) << op.at("op") << " " << key;
    }
  }
  for (const Json& ring : j.at("rings")) {
    EXPECT_EQ(ring.at("status"), "matched");
    for (const auto& [key, value] : ring.at("change").items())
      EXPECT_EQ(value.get<double>(), 0.0) << key;
  }
  EXPECT_TRUE(j.at("findings").at("appeared").empty());
  EXPECT_TRUE(j.at("findings").at("disappeared").empty());
  EXPECT_TRUE(j.at("findings").at("severity_changed").empty());
}

TEST(DiffSelf, HandBuiltBaselineAgainstItself) {
  Diff d = diff(before_fixture(), before_fixture());
  EXPECT_EQ(d.ops.size(), 3u);
  EXPECT_EQ(d.rings.size(), 2u);
  expect_no_change(d);
}

TEST(DiffSelf, RunAgainstItsOwnSavedReport) {
  Snapshot snap = baseline_fixture();
  std::vector<Finding> findings = baseline_findings();
  Baseline saved = parse_baseline(render_json(snap, findings).dump(), "b.json");
  Diff d = diff(saved, baseline_of(snap, findings));
  EXPECT_EQ(d.ops.size(), 3u);
  EXPECT_EQ(d.rings.size(), 3u);
  expect_no_change(d);
}

// --- the JSON object

TEST(DiffJson, ShapeAndValues) {
  Json j = diff_json(diff(before_fixture(), after_fixture()));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"baseline", "windows_differ", "ops", "rings_compared",
                                            "rings", "files", "findings"}));
  EXPECT_EQ(j.at("baseline"),
            (Json{{"source", "b.json"}, {"tool_version", "0.1.0"}, {"wall_ns", 10'000'000'000u}}));
  EXPECT_EQ(j.at("windows_differ"), false);
  EXPECT_EQ(j.at("rings_compared"), true);
  ASSERT_EQ(j.at("ops").size(), 4u);

  const Json& read = json_op(j.at("ops"), "READ");
  EXPECT_EQ(read.at("opcode"), 22);
  EXPECT_EQ(read.at("status"), "matched");
  const Json& before = read.at("before");
  EXPECT_EQ(before.at("submitted"), 1'000);
  EXPECT_DOUBLE_EQ(before.at("reqs_per_sec").get<double>(), 100.0);  // 1,000 in 10s
  EXPECT_EQ(before.at("p50_ns"), 1'536);
  EXPECT_EQ(before.at("p99_ns"), 2'000'000);
  EXPECT_DOUBLE_EQ(before.at("punt_pct").get<double>(), 25.0);
  EXPECT_EQ(before.at("errors"), 4);
  const Json& after = read.at("after");
  EXPECT_EQ(after.at("submitted"), 800);
  EXPECT_DOUBLE_EQ(after.at("reqs_per_sec").get<double>(), 800.0 / 10.5);
  EXPECT_DOUBLE_EQ(after.at("punt_pct").get<double>(), 5.0);

  const Json& change = read.at("change");
  EXPECT_EQ(change.at("submitted"), -200);
  EXPECT_DOUBLE_EQ(change.at("submitted_pct").get<double>(), -20.0);
  EXPECT_DOUBLE_EQ(change.at("reqs_per_sec").get<double>(), 800.0 / 10.5 - 100.0);
  EXPECT_DOUBLE_EQ(change.at("reqs_per_sec_pct").get<double>(), 800.0 / 10.5 - 100.0);  // base 100
  EXPECT_EQ(change.at("p50_ns"), -336);
  EXPECT_DOUBLE_EQ(change.at("p50_ns_pct").get<double>(), -21.875);
  EXPECT_EQ(change.at("p99_ns"), -1'150'000);
  EXPECT_DOUBLE_EQ(change.at("p99_ns_pct").get<double>(), -57.5);
  EXPECT_DOUBLE_EQ(change.at("punt_pct").get<double>(), -20.0);  // percentage points
  EXPECT_EQ(change.at("errors"), 2);

  const Json& nop = json_op(j.at("ops"), "NOP");
  EXPECT_EQ(nop.at("status"), "removed");
  EXPECT_TRUE(nop.at("after").is_null());
  EXPECT_TRUE(nop.at("change").is_null());
  EXPECT_EQ(nop.at("before").at("submitted"), 10);
  const Json& recv = json_op(j.at("ops"), "RECV");
  EXPECT_EQ(recv.at("status"), "added");
  EXPECT_TRUE(recv.at("before").is_null());
  EXPECT_EQ(recv.at("after").at("p99_ns"), 1'900);

  const Json& rings = j.at("rings");
  ASSERT_EQ(rings.size(), 3u);
  EXPECT_EQ(rings[0].at("comm"), "app");
  EXPECT_EQ(rings[0].at("catch_all"), false);
  EXPECT_EQ(rings[0].at("status"), "matched");
  EXPECT_EQ(rings[0].at("before"), (Json{{"id", 0}, {"fd", 5}, {"pid", 100}, {"avg_batch", 4.0},
                                         {"submissions", 4'000}, {"cq_overflows", 2}}));
  EXPECT_EQ(rings[0].at("after").at("pid"), 300);
  EXPECT_DOUBLE_EQ(rings[0].at("change").at("avg_batch").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(rings[0].at("change").at("avg_batch_pct").get<double>(), 100.0);
  EXPECT_EQ(rings[0].at("change").at("submissions"), 2'400);
  EXPECT_EQ(rings[0].at("change").at("cq_overflows"), -2);
  EXPECT_TRUE(rings[1].at("before").at("fd").is_null());
  EXPECT_EQ(rings[2].at("status"), "added");
  EXPECT_TRUE(rings[2].at("change").is_null());

  const Json& findings = j.at("findings");
  EXPECT_EQ(findings.at("appeared"),
            (Json::array({Json{{"tag", "ERRORS"},
                               {"severity", "WARN"},
                               {"ring", 0},
                               {"op", "READ"},
                               {"message", "ring #0: 6 of 800 READ requests failed (0.8%)."}}})));
  ASSERT_EQ(findings.at("disappeared").size(), 2u);
  EXPECT_EQ(findings.at("disappeared")[0].at("tag"), "OVERFLOW");
  EXPECT_TRUE(findings.at("disappeared")[0].at("op").is_null());
  EXPECT_EQ(findings.at("severity_changed"),
            (Json::array({Json{{"tag", "BATCH"}, {"op", nullptr}, {"before", "WARN"},
                               {"after", "INFO"}}})));
}

TEST(DiffJson, HugeValuesStayNumbers) {
  // A doctored baseline can hold any uint64: the deltas must not wrap.
  Baseline before, after;
  before.ops = {{.op = "READ", .opcode = 22, .submitted = UINT64_MAX}};
  after.ops = {{.op = "READ", .opcode = 22, .submitted = 0}};
  Json j = diff_json(diff(before, after));
  const Json& change = j.at("ops")[0].at("change");
  EXPECT_TRUE(change.at("submitted").is_number_float());
  EXPECT_LT(change.at("submitted").get<double>(), -1.8e19);
  EXPECT_DOUBLE_EQ(change.at("submitted_pct").get<double>(), -100.0);
  EXPECT_NO_THROW((void)j.dump());
}

}  // namespace
}  // namespace uringscope::baseline_test
