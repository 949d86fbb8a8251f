// SPDX-License-Identifier: MIT
// The text report over a hand-built snapshot. Every expected string below is derived by
// hand from the fixture's numbers, never copied from the renderer's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "uringscope/report.h"

namespace uringscope::report_test {

// Shared with report_json_test.cpp (declared there): one fixture, two renderers.
//
// ring 0  myapp pid 31337, fd 5, no flags, created in the window.
//         READ  1,102,238 submitted, 695,512 punted (63.0999...%), latency:
//               1,000,000 in [8192,16384) ns, 102,000 in [2^20,2^21), 236 in [2^23,2^24),
//               max 9.1ms; p50 = rank 551,118 of 1,102,236 -> 8192 + 8192*0.551118
//               = 12,706ns ("12.7us"); p99 = rank 1,091,214 -> 2^20 + 2^20*91,214/102,000
//               = 1,986,270ns ("1.99ms"); mean 167,124,000,000 / 1,102,236 = 151,622ns.
//         WRITE 91,002 submitted, 1,820 punted (2.0%), 3 errors.
//         FSYNC 16,304 submitted, all punted (100.0%) -- no finding, so no marker.
//         1,209,544 SQEs over 1,204,332 submitting enters: avg batch 1.0043.
// ring 1  dbwriter pid 4242, fd unknown, SQPOLL|CQSIZE, found in the fd table at attach;
//         RECV 5,000 submitted, 5,012 completed of which 12 untracked; 7 CQ overflows.
// ring 2  the catch-all ring: 3 NOPs.
Histogram read_histogram() {
  Histogram h;
  h.buckets[13] = 1'000'000;
  h.buckets[20] = 102'000;
  h.buckets[23] = 236;
  h.sum_ns = 1'000'000ull * 12'000 + 102'000ull * 1'500'000 + 236ull * 9'000'000;
  h.max_ns = 9'100'000;
  return h;
}

Snapshot report_fixture() {
  Snapshot s;
  s.tool_version = "0.1.0";
  s.wall_ns = 12'400'000'000;
  s.ncpus = 8;
  s.kernel.release = "6.18.44";
  s.kernel.tier = "full";
  s.kernel.features = {{"submit", true, "io_uring_submit_req"},
                       {"punt", false, "io_uring_queue_async_work missing from BTF"}};
  s.target.mode = TargetMode::Pid;
  s.target.pids = {31337, 4242};

  Ring r0;
  r0.id = 0;
  r0.ctx = 0xffff888012340000;
  r0.pid = 31337;
  r0.comm = "myapp";
  r0.fd = 5;
  r0.sq_entries = 256;
  r0.cq_entries = 512;
  r0.setup_flags = 0;
  r0.source = RingSource::Create;
  r0.counters.enter_calls = 1'204'332;
  r0.counters.enter_submit_calls = 1'204'332;
  r0.counters.to_submit_sum = 1'209'544;
  r0.counters.submissions = 1'209'544;
  r0.counters.completions = 1'209'542;
  r0.counters.punted = 713'636;
  r0.counters.errors = 3;
  r0.counters.rings_created = 1;
  {
    OpStats fsync;
    fsync.opcode = 3;
    fsync.submitted = fsync.completed = fsync.punted = 16'304;
    fsync.latency.buckets[16] = 16'304;
    fsync.latency.sum_ns = 16'304ull * 100'000;
    fsync.latency.max_ns = 120'000;
    OpStats read;
    read.opcode = 22;
    read.submitted = 1'102'238;
    read.completed = 1'102'236;
    read.punted = 695'512;
    read.latency = read_histogram();
    OpStats write;
    write.opcode = 23;
    write.submitted = write.completed = 91'002;
    write.punted = 1'820;
    write.errors = 3;
    write.latency.buckets[14] = 91'002;
    write.latency.sum_ns = 91'002ull * 22'000;
    write.latency.max_ns = 30'000;
    r0.ops = {fsync, read, write};
  }

  Ring r1;
  r1.id = 1;
  r1.ctx = 0xffff888056780000;
  r1.pid = 4242;
  r1.comm = "dbwriter";
  r1.fd = -1;
  r1.sq_entries = 64;
  r1.cq_entries = 128;
  r1.setup_flags = (1u << 1) | (1u << 3);  // SQPOLL | CQSIZE
  r1.source = RingSource::FdTable;
  r1.counters.enter_calls = 10;
  r1.counters.submissions = 5'000;
  r1.counters.completions = 5'012;
  r1.counters.cq_overflows = 7;
  r1.counters.untracked_completions = 12;
  {
    OpStats recv;
    recv.opcode = 27;
    recv.submitted = 5'000;
    recv.completed = 5'012;
    recv.untracked = 12;
    recv.latency.buckets[9] = 5'000;
    recv.latency.sum_ns = 5'000ull * 850;
    recv.latency.max_ns = 1'000;
    r1.ops = {recv};
  }

  Ring other;
  other.id = 2;
  other.source = RingSource::CatchAll;
  other.counters.enter_calls = 3;
  other.counters.enter_submit_calls = 3;
  other.counters.to_submit_sum = 3;
  other.counters.submissions = 3;
  other.counters.completions = 3;
  {
    OpStats nop;
    nop.opcode = 0;
    nop.submitted = nop.completed = 3;
    nop.latency.buckets[0] = 3;
    nop.latency.sum_ns = 3;
    nop.latency.max_ns = 1;
    other.ops = {nop};
  }

  s.rings = {r0, r1, other};
  s.tool.rings_full = 9;
  aggregate(s);
  return s;
}

std::vector<Finding> report_findings() {
  Finding overflow{"OVERFLOW", Severity::Crit, 1u, std::nullopt,
                   "ring #1: the CQ ring overflowed 7 times, so completions took the slow path.",
                   "Size the CQ ring larger with IORING_SETUP_CQSIZE or reap completions "
                   "more often.",
                   {{"cq_overflows", int64_t{7}}}};
  Finding punt{"PUNT", Severity::Warn, 0u, 22u,
               "ring #0: 695,512 of 1,102,238 READ requests were punted to io-wq worker threads "
               "(63.1%), most likely buffered reads that missed the page cache.",
               "Use O_DIRECT with registered buffers, or warm the page cache with readahead "
               "before reading.",
               {{"punt_pct", 63.1}, {"punted", int64_t{695'512}}, {"reason", std::string("buffered read miss")}}};
  Finding batch{"BATCH", Severity::Info, 0u, std::nullopt,
                "ring #0 submits 1.00 SQEs per io_uring_enter() call on average.",
                "Queue several SQEs before each submit.",
                {{"avg_batch", 1.0043}}};
  Finding tool{"TOOL", Severity::Info, std::nullopt, std::nullopt,
               "9 events could not be given a ring of their own.",
               "Nothing to change in the application.",
               {{"rings_full", int64_t{9}}}};
  return {overflow, punt, batch, tool};
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string render(const Snapshot& snap, const std::vector<Finding>& findings,
                   TextOptions opts = {}) {
  std::ostringstream out;
  render_text(out, snap, findings, opts);
  return out.str();
}

bool contains(const std::string& s, std::string_view needle) {
  return s.find(needle) != std::string::npos;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::size_t count_of(const std::string& s, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = s.find(needle); pos != std::string::npos; pos = s.find(needle, pos + 1)) ++n;
  return n;
}

// The lines of one ring's block: from its header up to the next ring or section.
std::vector<std::string> ring_block(const std::vector<std::string>& lines,
                                    std::string_view header_prefix) {
  std::vector<std::string> block;
  bool inside = false;
  for (const std::string& line : lines) {
    bool is_header = line.rfind("ring #", 0) == 0 || line.rfind("other rings", 0) == 0 ||
                     line == "findings" || line == "tool losses";
    if (is_header) inside = line.rfind(header_prefix, 0) == 0;
    if (inside) block.push_back(line);
  }
  return block;
}

// The one line in `lines` that starts (after indentation) with `first_word`.
std::string row(const std::vector<std::string>& lines, std::string_view first_word) {
  std::string found;
  int hits = 0;
  for (const std::string& line : lines) {
    auto start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    std::string_view rest = std::string_view(line).substr(start);
    if (rest.rfind(first_word, 0) == 0 &&
        (rest.size() == first_word.size() || rest[first_word.size()] == ' ')) {
      found = line;
      ++hits;
    }
  }
  EXPECT_EQ(hits, 1) << "rows starting with " << first_word;
  return found;
}

class ReportText : public ::testing::Test {
 protected:
  Snapshot snap = report_fixture();
  std::vector<Finding> findings = report_findings();
  std::string text = render(snap, findings);
  std::vector<std::string> lines = lines_of(text);
};

TEST_F(ReportText, HeaderNamesWindowCpusKernelAndTier) {
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "uringscope report (12.4s, 8 cpus, kernel 6.18.44, tier full)");
  EXPECT_EQ(lines[1], std::string(lines[0].size(), '='));
  EXPECT_EQ(lines[2], "target: pid 31337,4242");
}

TEST_F(ReportText, HeaderListsOnlyFeaturesThatAreOff) {
  auto it = std::find(lines.begin(), lines.end(), "kernel features off:");
  ASSERT_NE(it, lines.end());
  ASSERT_NE(it + 1, lines.end());
  EXPECT_TRUE(contains(it[1], "punt"));
  EXPECT_TRUE(contains(it[1], "io_uring_queue_async_work missing from BTF"));
  EXPECT_FALSE(contains(text, "io_uring_submit_req"));

  snap.kernel.features[1].enabled = true;
  EXPECT_FALSE(contains(render(snap, findings), "kernel features off"));
}

TEST_F(ReportText, RingHeaders) {
  EXPECT_EQ(row(lines, "ring #0"), "ring #0 fd=5  sq=256 cq=512  flags: (none)   myapp pid 31337");
  std::string r1 = row(lines, "ring #1");
  EXPECT_TRUE(contains(r1, "fd=?"));
  EXPECT_TRUE(contains(r1, "sq=64 cq=128"));
  EXPECT_TRUE(contains(r1, "flags: SQPOLL|CQSIZE"));
  EXPECT_TRUE(contains(r1, "dbwriter pid 4242"));
  EXPECT_TRUE(contains(r1, "created before attach"));
  EXPECT_EQ(count_of(text, "created before attach"), 1u);
  EXPECT_EQ(row(lines, "other"), "other rings (ring table full)");
  EXPECT_FALSE(contains(text, "ring #2"));
}

TEST_F(ReportText, RingsPrintInIdOrderEvenWhenGivenOutOfOrder) {
  std::swap(snap.rings[0], snap.rings[2]);
  std::string shuffled = render(snap, findings);
  auto r0 = shuffled.find("\nring #0 ");
  auto r1 = shuffled.find("\nring #1 ");
  auto r2 = shuffled.find("\nother rings");
  ASSERT_NE(r0, std::string::npos);
  EXPECT_LT(r0, r1);
  EXPECT_LT(r1, r2);
}

TEST_F(ReportText, SubmissionBlock) {
  auto ring0 = ring_block(lines, "ring #0");
  EXPECT_TRUE(contains(row(ring0, "io_uring_enter()"), "1,204,332"));
  std::string sqes = row(ring0, "SQEs");
  EXPECT_TRUE(contains(sqes, "1,209,544"));
  EXPECT_TRUE(contains(sqes, "avg batch 1.0/enter"));
  EXPECT_TRUE(ends_with(sqes, "<-- !"));  // BATCH concerns ring 0
  EXPECT_TRUE(contains(row(ring0, "completions"), "1,209,542"));

  auto ring1 = ring_block(lines, "ring #1");
  std::string sqes1 = row(ring1, "SQEs");
  EXPECT_TRUE(contains(sqes1, "5,000"));
  EXPECT_TRUE(contains(sqes1, "submitted by the SQPOLL thread"));  // no submitting enters
  EXPECT_FALSE(contains(sqes1, "<-- !"));
}

TEST_F(ReportText, PerOpRows) {
  auto ring0 = ring_block(lines, "ring #0");
  std::string header = row(ring0, "op");
  for (const char* col : {"reqs", "p50", "p99", "max", "punted", "errors"})
    EXPECT_TRUE(contains(header, col)) << col;

  std::string read = row(ring0, "READ");
  for (const char* cell : {"1,102,238", "12.7us", "1.99ms", "9.1ms", "63.1%"})
    EXPECT_TRUE(contains(read, cell)) << cell << " in: " << read;
  EXPECT_TRUE(ends_with(read, "<-- !"));

  std::string write = row(ring0, "WRITE");
  EXPECT_TRUE(contains(write, "91,002"));
  EXPECT_TRUE(contains(write, "2.0%"));
  EXPECT_TRUE(ends_with(write, " 3"));  // errors is the last column
  EXPECT_FALSE(contains(write, "<-- !"));

  std::string fsync = row(ring0, "FSYNC");
  EXPECT_TRUE(contains(fsync, "100.0%"));
  EXPECT_FALSE(contains(fsync, "<-- !"));  // marked by findings, not by the numbers

  // Ops in the order given (ascending opcode), one row each.
  auto pos = [&](std::string_view op) { return text.find(row(ring0, op)); };
  EXPECT_LT(pos("FSYNC"), pos("READ"));
  EXPECT_LT(pos("READ"), pos("WRITE"));
}

TEST_F(ReportText, OpColumnsLineUp) {
  auto ring0 = ring_block(lines, "ring #0");
  // Right-aligned numbers: the "reqs" header ends where the request counts end.
  std::string header = row(ring0, "op");
  std::size_t reqs_end = header.find("reqs") + 4;
  for (const char* op : {"FSYNC", "READ", "WRITE"}) {
    std::string r = row(ring0, op);
    ASSERT_GT(r.size(), reqs_end) << op;
    EXPECT_NE(r[reqs_end - 1], ' ') << op;
    EXPECT_EQ(r[reqs_end], ' ') << op;
  }
}

TEST_F(ReportText, ExactlyOneMarkerPerConcernedRow) {
  // BATCH on ring 0's SQE row, PUNT on ring 0's READ row, OVERFLOW on ring 1's overflow
  // counter; the ring-less TOOL finding marks nothing.
  EXPECT_EQ(count_of(text, "<-- !"), 3u);
  auto ring1 = ring_block(lines, "ring #1");
  EXPECT_TRUE(ends_with(row(ring1, "CQ"), "<-- !"));
  EXPECT_FALSE(contains(row(ring1, "RECV"), "<-- !"));
}

TEST_F(ReportText, PuntOnAnotherRingOrOpDoesNotMark) {
  findings[1].ring = 1;  // PUNT READ now concerns ring 1, which has no READ
  std::string moved = render(snap, findings);
  auto ring0 = ring_block(lines_of(moved), "ring #0");
  EXPECT_FALSE(contains(row(ring0, "READ"), "<-- !"));
  findings[1].ring = 0;
  findings[1].opcode = 23;
  auto ring0b = ring_block(lines_of(render(snap, findings)), "ring #0");
  EXPECT_FALSE(contains(row(ring0b, "READ"), "<-- !"));
  EXPECT_TRUE(ends_with(row(ring0b, "WRITE"), "<-- !"));
}

TEST_F(ReportText, CountersShowOnlyNonZero) {
  auto ring0 = ring_block(lines, "ring #0");
  EXPECT_EQ(std::count_if(ring0.begin(), ring0.end(),
                          [](const std::string& l) { return contains(l, "counters"); }),
            0);  // all four are zero on ring 0

  auto ring1 = ring_block(lines, "ring #1");
  EXPECT_EQ(std::count(ring1.begin(), ring1.end(), "  counters"), 1);
  EXPECT_TRUE(contains(row(ring1, "CQ"), " 7"));
  EXPECT_TRUE(contains(row(ring1, "untracked"), "12"));
  for (const std::string& l : ring1) {
    EXPECT_FALSE(contains(l, "multishot")) << l;
    EXPECT_FALSE(contains(l, "in-flight table drops")) << l;
  }
}

TEST_F(ReportText, UntrackedNoteOnlyWhereCompletionsWereUntracked) {
  EXPECT_EQ(count_of(text, "note:"), 1u);
  auto ring1 = ring_block(lines, "ring #1");
  // The note wraps; read it as one sentence.
  std::string joined;
  for (const auto& l : ring1) joined += " " + l.substr(std::min(l.size(), l.find_first_not_of(' ')));
  EXPECT_TRUE(contains(joined, "note: 12 completions were untracked"));
  EXPECT_TRUE(contains(joined, "tracked requests only"));
  // Continuation lines hang under the text after "note: ".
  auto note = std::find_if(ring1.begin(), ring1.end(),
                           [](const std::string& l) { return l.rfind("  note: ", 0) == 0; });
  ASSERT_NE(note, ring1.end());
  ASSERT_NE(note + 1, ring1.end());
  EXPECT_EQ(note[1].find_first_not_of(' '), std::string("  note: ").size());

  snap.rings[1].counters.untracked_completions = 0;
  EXPECT_FALSE(contains(render(snap, findings), "note:"));
  snap.rings[1].counters.untracked_completions = 1;
  EXPECT_TRUE(contains(render(snap, findings), "note: 1 completion was untracked"));
}

TEST_F(ReportText, ToolLossesShownWhenNonZero) {
  auto it = std::find(lines.begin(), lines.end(), "tool losses");
  ASSERT_NE(it, lines.end());
  ASSERT_NE(it + 1, lines.end());
  EXPECT_TRUE(contains(it[1], "ring table full"));
  EXPECT_TRUE(ends_with(it[1], " 9"));

  snap.tool = {};
  EXPECT_FALSE(contains(render(snap, findings), "tool losses"));
}

TEST_F(ReportText, FindingsInGivenOrderWithSeverityAndFix) {
  auto start = std::find(lines.begin(), lines.end(), "findings");
  ASSERT_NE(start, lines.end());
  std::vector<std::string> section(start + 1, lines.end());
  std::vector<std::string> firsts;
  for (const auto& l : section)
    if (l.rfind("  [", 0) == 0) firsts.push_back(l);
  ASSERT_EQ(firsts.size(), 4u);
  // Messages are printed as given: they name their ring themselves.
  EXPECT_EQ(firsts[0].rfind("  [OVERFLOW] CRIT  ring #1: the CQ ring overflowed", 0), 0u)
      << firsts[0];
  // Tags are padded to the widest one, so the severities share a column.
  EXPECT_EQ(firsts[1].rfind("  [PUNT]     WARN  ring #0: 695,512 of", 0), 0u) << firsts[1];
  EXPECT_EQ(firsts[2].rfind("  [BATCH]    INFO  ring #0 submits 1.00", 0), 0u) << firsts[2];
  EXPECT_EQ(firsts[3].rfind("  [TOOL]     INFO  9 events", 0), 0u) << firsts[3];

  std::size_t fixes = 0;
  for (const auto& l : section) {
    EXPECT_LE(l.size(), 76u) << l;
    if (l.rfind("             fix:  ", 0) == 0) ++fixes;  // under the severity
  }
  EXPECT_EQ(fixes, 4u);
  // Wrapped continuation lines sit under the message text.
  std::size_t text_col = std::string("  [OVERFLOW] CRIT  ").size();
  bool saw_continuation = false;
  for (const auto& l : section) {
    if (l.rfind("  [", 0) == 0 || contains(l, "fix:")) continue;
    EXPECT_EQ(l.find_first_not_of(' '), text_col) << l;
    saw_continuation = true;
  }
  EXPECT_TRUE(saw_continuation);
}

TEST_F(ReportText, NoFindingsAndHiddenFindings) {
  std::string none = render(snap, {});
  EXPECT_TRUE(contains(none, "\nfindings\n  no findings\n"));
  EXPECT_EQ(count_of(none, "<-- !"), 0u);

  std::string hidden = render(snap, findings, TextOptions{.show_findings = false});
  EXPECT_FALSE(contains(hidden, "findings"));
  EXPECT_FALSE(contains(hidden, "[PUNT]"));
  EXPECT_FALSE(contains(hidden, "no findings"));
  // Markers still come from the findings given, even when their section is hidden.
  EXPECT_EQ(count_of(hidden, "<-- !"), 3u);
}

TEST(ReportTextEmpty, NoRingsSaysSoBeforeFindings) {
  Snapshot snap;
  snap.wall_ns = 3'000'000'000;
  snap.ncpus = 1;
  snap.target.mode = TargetMode::Command;
  snap.target.command = {"./myapp", "--fast"};
  aggregate(snap);
  std::string text = render(snap, {});
  auto lines = lines_of(text);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "uringscope report (3s, 1 cpu)");
  EXPECT_EQ(lines[2], "target: command ./myapp --fast");
  auto seen = text.find("no io_uring activity seen");
  auto fnd = text.find("no findings");
  ASSERT_NE(seen, std::string::npos);
  ASSERT_NE(fnd, std::string::npos);
  EXPECT_LT(seen, fnd);
  EXPECT_FALSE(contains(text, "ring #"));
  EXPECT_FALSE(contains(text, "kernel features off"));
}

TEST(ReportTextEmpty, RingWithoutOpsOrTimedRequests) {
  Snapshot snap;
  snap.target.mode = TargetMode::All;
  Ring ring;
  ring.id = 0;
  ring.fd = 3;
  ring.source = RingSource::Create;
  snap.rings.push_back(ring);
  OpStats pending;  // submitted, none completed yet: no latency to show
  pending.opcode = 22;
  pending.submitted = 4;
  Ring ring1 = ring;
  ring1.id = 1;
  ring1.ops = {pending};
  snap.rings.push_back(ring1);
  aggregate(snap);
  std::string text = render(snap, {});
  EXPECT_TRUE(contains(text, "target: all processes"));
  EXPECT_TRUE(contains(text, "(no requests seen)"));
  EXPECT_TRUE(contains(text, "sq=? cq=?"));
  auto lines = lines_of(text);
  std::string read = row(ring_block(lines, "ring #1"), "READ");
  EXPECT_EQ(count_of(read, " -"), 3u) << read;  // p50, p99, max
  EXPECT_TRUE(contains(read, "0.0%"));
}

TEST(ReportTextSections, MergedOpTableMarksOpsWithAFindingOnAnyRing) {
  Snapshot snap = report_fixture();
  std::vector<Finding> findings = report_findings();
  std::ostringstream out;
  render_op_table(out, snap.ops, std::nullopt, findings, "  ");
  auto lines = lines_of(out.str());
  // header + NOP, FSYNC, READ, WRITE, RECV merged over all rings
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_TRUE(ends_with(row(lines, "READ"), "<-- !"));
  EXPECT_EQ(count_of(out.str(), "<-- !"), 1u);
  EXPECT_TRUE(contains(row(lines, "RECV"), "5,000"));
}

}  // namespace
}  // namespace uringscope::report_test
