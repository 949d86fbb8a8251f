// SPDX-License-Identifier: MIT
// The text report over a hand-built snapshot. Every expected string below is derived by
// hand from the fixture's numbers, never copied from the renderer's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "uringscope/opcodes.h"
#include "report/report.h"
#include "support/fixtures.h"

namespace uringscope::report_test {


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
                     line.rfind("leaks", 0) == 0 || line.rfind("io-wq workers:", 0) == 0 ||
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

// The op table of a ring block: its "op" header and the `rows` lines under it. The
// detail lines below the table also start with an op name, so rows are looked up here.
std::vector<std::string> op_table(const std::vector<std::string>& block, std::size_t rows) {
  auto header = std::find_if(block.begin(), block.end(), [](const std::string& l) {
    return l.rfind("    op ", 0) == 0;
  });
  if (header == block.end() || static_cast<std::size_t>(block.end() - header) <= rows) {
    ADD_FAILURE() << "no op table with " << rows << " rows";
    return {};
  }
  return std::vector<std::string>(header, header + 1 + static_cast<std::ptrdiff_t>(rows));
}

// The lines after the first line equal to `heading`, up to the next line indented no
// deeper than the heading (the next heading) or a blank line (the next section).
std::vector<std::string> section(const std::vector<std::string>& lines, std::string_view heading) {
  auto start = std::find(lines.begin(), lines.end(), heading);
  if (start == lines.end()) return {};
  std::size_t depth = heading.find_first_not_of(' ');
  std::vector<std::string> out;
  for (auto it = start + 1; it != lines.end(); ++it) {
    std::size_t start_col = it->find_first_not_of(' ');
    if (start_col == std::string::npos || start_col <= depth) break;
    out.push_back(*it);
  }
  return out;
}

// Runs of blanks collapsed to one, ends trimmed: compares a table row's words and numbers
// without restating its padding.
std::string squeeze(std::string_view line) {
  std::string out;
  for (char ch : line) {
    if (ch == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += ch;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
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
  // fio passes to_submit with SQ_WAKEUP: those enters only wake the thread, they do not
  // submit, so an SQPOLL ring has no batch per enter to show.
  snap.rings[1].counters.enter_submit_calls = 2;
  EXPECT_EQ(snap.rings[1].avg_batch(), 0.0);
  std::string woken = row(ring_block(lines_of(render(snap, findings)), "ring #1"), "SQEs");
  EXPECT_TRUE(contains(woken, "submitted by the SQPOLL thread")) << woken;
  EXPECT_FALSE(contains(woken, "avg batch")) << woken;
  EXPECT_FALSE(contains(sqes1, "<-- !"));
}

TEST_F(ReportText, PerOpRows) {
  auto ring0 = op_table(ring_block(lines, "ring #0"), 3);
  std::string header = row(ring0, "op");
  for (const char* col : {"reqs", "p50", "p99", "max", "punted", "errors", "bytes", "B/s", "B/req"})
    EXPECT_TRUE(contains(header, col)) << col;

  std::string read = row(ring0, "READ");
  for (const char* cell : {"1,102,238", "12.7us", "1.99ms", "9.1ms", "63.1%"})
    EXPECT_TRUE(contains(read, cell)) << cell << " in: " << read;
  EXPECT_TRUE(ends_with(read, "<-- !"));

  std::string write = row(ring0, "WRITE");
  EXPECT_TRUE(contains(write, "91,002"));
  EXPECT_TRUE(contains(write, "2.0%"));
  EXPECT_TRUE(contains(write, " 3 "));  // errors
  EXPECT_TRUE(contains(write, "44.4MiB"));  // 91,002 x 512 bytes
  EXPECT_TRUE(contains(write, " 3.6MiB "));  // over the 12.4 s window: 3,757,502 B/s
  EXPECT_TRUE(ends_with(write, " 512B"));   // per request, the last column
  EXPECT_TRUE(contains(read, "4.2GiB")) << read;
  EXPECT_TRUE(contains(row(ring0, "FSYNC"), "-"));  // moves no data
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
  auto ring0 = op_table(ring_block(lines, "ring #0"), 3);
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
  EXPECT_FALSE(contains(row(op_table(ring1, 1), "RECV"), "<-- !"));
}

TEST_F(ReportText, PuntOnAnotherRingOrOpDoesNotMark) {
  findings[1].ring = 1;  // PUNT READ now concerns ring 1, which has no READ
  std::string moved = render(snap, findings);
  auto ring0 = op_table(ring_block(lines_of(moved), "ring #0"), 3);
  EXPECT_FALSE(contains(row(ring0, "READ"), "<-- !"));
  findings[1].ring = 0;
  findings[1].opcode = 23;
  auto ring0b = op_table(ring_block(lines_of(render(snap, findings)), "ring #0"), 3);
  EXPECT_FALSE(contains(row(ring0b, "READ"), "<-- !"));
  EXPECT_TRUE(ends_with(row(ring0b, "WRITE"), "<-- !"));
}

TEST_F(ReportText, CountersShowOnlyNonZero) {
  // Ring 0 now has a counters block for its newer counters, but the four original
  // ones are zero there and stay out of it.
  auto ring0 = section(ring_block(lines, "ring #0"), "  counters");
  ASSERT_FALSE(ring0.empty());
  for (const std::string& l : ring0) {
    for (const char* label : {"CQ overflows", "multishot", "untracked", "in-flight table drops"})
      EXPECT_FALSE(contains(l, label)) << l;
  }
  // The catch-all ring has no counter set at all: no block, not even its heading.
  auto other = ring_block(lines, "other rings");
  ASSERT_FALSE(other.empty());
  for (const std::string& l : other) EXPECT_FALSE(contains(l, "counters")) << l;

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

TEST_F(ReportText, CheckLineSaysWhatWasCoveredOnlyWithCheck) {
  EXPECT_FALSE(contains(text, "--check:"));
  snap.hazards.checked = true;
  snap.hazards.ranges = 12345;
  snap.hazards.calls = 2;
  snap.hazards.unmap = 1;
  EXPECT_TRUE(contains(render(snap, findings),
                       "--check: 12,345 memory ranges of requests and 2 unmap/register calls "
                       "checked; hazards: overlap 0, buffer change 0, unmap 1"));
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

  TextOptions no_findings;
  no_findings.show_findings = false;
  std::string hidden = render(snap, findings, no_findings);
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
  // Ring #0 saw nothing: folded into the idle line, unless every ring is asked for.
  EXPECT_FALSE(contains(text, "ring #0 fd=3"));
  EXPECT_TRUE(contains(text, "idle rings (set up, no request seen; --rings all draws them)\n"
                             "  (unknown process): 1 ring: #0 fd=3\n")) << text;
  TextOptions every_ring;
  every_ring.full_rings = std::nullopt;
  const std::string all = render(snap, {}, every_ring);
  EXPECT_TRUE(contains(all, "(no requests seen)"));
  EXPECT_TRUE(contains(all, "sq=? cq=?"));
  EXPECT_FALSE(contains(all, "idle rings"));
  auto lines = lines_of(text);
  std::string read = row(ring_block(lines, "ring #1"), "READ");
  EXPECT_EQ(count_of(read, " -"), 4u) << read;  // p50, p99, max; B/s over no window
  EXPECT_TRUE(contains(read, "0.0%"));
}

TEST(ReportTextSections, MergedOpTableMarksOpsWithAFindingOnAnyRing) {
  Snapshot snap = report_fixture();
  std::vector<Finding> findings = report_findings();
  std::ostringstream out;
  render_op_table(out, snap.ops, std::nullopt, findings, snap.wall_ns, "  ");
  auto lines = lines_of(out.str());
  // header + NOP, FSYNC, READ, WRITE, RECV merged over all rings
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_TRUE(ends_with(row(lines, "READ"), "<-- !"));
  EXPECT_EQ(count_of(out.str(), "<-- !"), 1u);
  EXPECT_TRUE(contains(row(lines, "RECV"), "5,000"));
}


// --- the newer fields: op details, the grown counters block, leaks, workers.

// Findings for the newer tags, each on a row the fixture has numbers for.
std::vector<Finding> newer_findings() {
  auto finding = [](std::string tag, std::optional<uint32_t> ring, std::optional<uint32_t> op) {
    return Finding{std::move(tag), Severity::Warn, ring, op, "message", "suggestion", {}};
  };
  return {finding("LEAK", 0u, 22u),          finding("LEAK", 1u, std::nullopt),
          finding("SQPOLL", 1u, std::nullopt), finding("SHORT-WRITE", 0u, std::nullopt),
          finding("POLL-RETRY", 1u, 27u),      finding("ERRORS", 0u, 23u),
          finding("WORKERS", 0u, std::nullopt)};
}

std::vector<std::string> squeezed(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& l : lines) out.push_back(squeeze(l));
  return out;
}

TEST_F(ReportText, OpDetailsFollowTheTableUnderTheirOwnHeading) {
  auto ring0 = ring_block(lines, "ring #0");
  // "    READ punted 695,512: " is 4 + 21 columns: the continuation hangs under column 25.
  const std::string hang(25, ' ');
  EXPECT_EQ(section(ring0, "  per-op punts, errors, poll waits"),
            (std::vector<std::string>{
                "    FSYNC punted 16,304: 16,304 forced (IOSQE_ASYNC or blocking-only op)",
                "    READ punted 695,512: 690,000 regular file (likely page-cache miss),",
                hang + "5,512 -EAGAIN retry",
                "    READ 40 of 1,102,238 waited on poll (12 on regular files)",
                "    WRITE punted 1,820: 1,820 hashed buffered write",
                "    WRITE errors 3: EBADF 2, EINVAL 1; 1 rejected before issue",
            }));
  // Between the op table and the counters.
  auto heading = std::find(ring0.begin(), ring0.end(), "  per-op punts, errors, poll waits");
  auto table = std::find(ring0.begin(), ring0.end(), op_table(ring0, 3).back());
  auto counters = std::find(ring0.begin(), ring0.end(), "  counters");
  EXPECT_EQ(table + 1, heading);
  EXPECT_LT(heading, counters);

  EXPECT_EQ(section(ring_block(lines, "ring #1"), "  per-op punts, errors, poll waits"),
            (std::vector<std::string>{"    RECV 900 of 5,000 waited on poll"}));
  // Nothing punted, failed or polled on the catch-all ring: no heading either.
  for (const std::string& l : ring_block(lines, "other rings"))
    EXPECT_FALSE(contains(l, "per-op punts")) << l;
}

TEST_F(ReportText, PuntsWithoutAReasonAreCountedAsUnclassified) {
  snap.rings[0].ops[1].punt_reasons = {};  // READ: a kernel without punt attribution
  snap.rings[0].ops[0].punt_reasons.forced = 16'000;  // FSYNC: 304 of 16,304 unexplained
  auto details = section(ring_block(lines_of(render(snap, findings)), "ring #0"),
                         "  per-op punts, errors, poll waits");
  ASSERT_GE(details.size(), 3u);
  // 25 + "16,000 forced (IOSQE_ASYNC or blocking-only op)," (48) = 73 columns; the next
  // item would end at 90 > 76, so it wraps to the hang at column 25.
  EXPECT_EQ(details[0],
            "    FSYNC punted 16,304: 16,000 forced (IOSQE_ASYNC or blocking-only op),");
  EXPECT_EQ(details[1], std::string(25, ' ') + "304 unclassified");
  EXPECT_EQ(details[2], "    READ punted 695,512: 695,512 unclassified");
}

TEST_F(ReportText, ErrorLinesNameTheTopCodesThenTheRest) {
  OpStats& write = snap.rings[0].ops[2];
  write.errors = 40;
  // Out of order on purpose; 20 + 10 + 5 shown, ENOSPC's 3 and 2 unrecorded are "other".
  write.errnos = {{22, 10}, {9, 20}, {5, 5}, {28, 3}};
  write.failed = 0;
  auto details = [&] {
    return section(ring_block(lines_of(render(snap, findings)), "ring #0"),
                   "  per-op punts, errors, poll waits");
  };
  EXPECT_EQ(details().back(), "    WRITE errors 40: EBADF 20, EINVAL 10, EIO 5, 5 other");

  write.errnos.clear();  // the errno table had no room: the count alone
  EXPECT_EQ(details().back(), "    WRITE errors 40");

  write.errors = 0;
  write.failed = 2;  // rejected with no error CQE counted
  EXPECT_EQ(details().back(), "    WRITE 2 rejected before issue");
}

TEST_F(ReportText, CountersBlockCarriesTheNewerCounters) {
  EXPECT_EQ(squeezed(section(ring_block(lines, "ring #0"), "  counters")),
            (std::vector<std::string>{
                "requests rejected before issue 1",
                "waited on poll, then retried 40 12 on regular files",
                "short writes 17",
                "task work queued 1,100,000",
                "task work runs 600,000 1,100,000 items",
                "CQEs cancelled at owner exit 1",
                "io-wq workers (pid 31337, all rings) 64",
                "leaks suspected (stuck) 2",
            }));
  // 9.3s of 12.4s off-CPU = 75.0%.
  EXPECT_EQ(squeezed(section(ring_block(lines, "ring #1"), "  counters")),
            (std::vector<std::string>{
                "CQ overflows 7 <-- !",
                "untracked completions 12",
                "waited on poll, then retried 900",
                "task work queued 5,000",
                "task work runs 1,000 5,000 items",
                "io-wq workers (pid 4242, all rings) 2",
                "leaks pending (waiting on an event) 3",
                "SQPOLL thread (tid 4250) off-CPU 9.3s 75.0% of the window",
                "SQPOLL thread sleeps (idle) 9",
                "SQPOLL thread preemptions 35",
                "SQPOLL wake-up enter calls 8",
            }));
}

TEST_F(ReportText, CounterValuesShareOneRightAlignedColumn) {
  // Ring 0: indent 4, widest label "io-wq workers (pid 31337, all rings)" (36), gap 2,
  // widest value "1,100,000" (9): every value ends at column 50.
  for (const std::string& l : section(ring_block(lines, "ring #0"), "  counters")) {
    ASSERT_GT(l.size(), 50u) << l;
    EXPECT_NE(l[50], ' ') << l;
    EXPECT_TRUE(l.size() == 51 || l[51] == ' ') << l;
  }
}

TEST_F(ReportText, LocalTaskWorkLagAndPendingOnADeferTaskrunRing) {
  Ring& r0 = snap.rings[0];
  r0.setup_flags = (1u << 12) | (1u << 13);  // SINGLE_ISSUER | DEFER_TASKRUN
  r0.counters.local_task_work_runs = 3'000;
  r0.counters.local_task_work_items = 9'000;
  r0.counters.local_task_work_max_lag_ns = 4'500'000;
  r0.counters.local_task_work_pending_ns = 2'000'000;
  findings.push_back({"DEFER-TW", Severity::Warn, 0u, std::nullopt, "lags", "run it", {}});
  auto counters = [&] {
    return squeezed(section(ring_block(lines_of(render(snap, findings)), "ring #0"), "  counters"));
  };
  auto has = [](const std::vector<std::string>& rows, const std::string& want) {
    return std::find(rows.begin(), rows.end(), want) != rows.end();
  };
  auto c = counters();
  EXPECT_TRUE(has(c, "local task work runs 3,000 9,000 items"));
  EXPECT_TRUE(has(c, "local task work max lag 4.5ms <-- !"));
  EXPECT_TRUE(has(c, "local task work pending at end (age) 2ms"));

  // Local work that never ran: no lag to show, so DEFER-TW marks what is still pending.
  r0.counters.local_task_work_runs = r0.counters.local_task_work_items = 0;
  r0.counters.local_task_work_max_lag_ns = 0;
  r0.counters.local_task_work_pending_ns = 2'000'000'000;
  c = counters();
  EXPECT_TRUE(has(c, "local task work pending at end (age) 2s <-- !"));
  for (const std::string& row : c) {
    EXPECT_FALSE(contains(row, "max lag")) << row;
    EXPECT_FALSE(contains(row, "local task work runs")) << row;
  }
}

TEST_F(ReportText, SqpollBlockOnlyOnSqpollRings) {
  snap.rings[0].counters.sqpoll_offcpu_ns = 1'000'000;  // not an SQPOLL ring: not shown
  snap.rings[1].counters.sqpoll_offcpu_ns = 0;          // a thread that never slept
  snap.rings[1].counters.sqpoll_sleeps = 0;
  snap.rings[1].counters.sqpoll_preempts = 0;
  snap.rings[1].counters.sqpoll_wakeups = 0;
  auto text2 = render(snap, findings);
  for (const std::string& l : ring_block(lines_of(text2), "ring #0"))
    EXPECT_FALSE(contains(l, "off-CPU")) << l;
  // The thread was seen (tid 4250): zero off-CPU is news, so that line stays; the
  // other SQPOLL counters are zero and stay out.
  auto ring1 = squeezed(section(ring_block(lines_of(text2), "ring #1"), "  counters"));
  ASSERT_FALSE(ring1.empty());
  EXPECT_EQ(ring1.back(), "SQPOLL thread (tid 4250) off-CPU 0ns 0.0% of the window");
  EXPECT_EQ(std::count_if(ring1.begin(), ring1.end(),
                          [](const std::string& l) { return contains(l, "SQPOLL"); }),
            1);

  // No thread seen and nothing counted: nothing to say about it...
  snap.rings[1].sq_tid = 0;
  auto quiet = ring_block(lines_of(render(snap, findings)), "ring #1");
  for (const std::string& l : quiet) EXPECT_FALSE(contains(l, "off-CPU")) << l;
  // ...unless a finding is about it, which then has its line to mark.
  findings.push_back({"SQPOLL", Severity::Info, 1u, std::nullopt, "m", "s", {}});
  auto ring1b = squeezed(section(ring_block(lines_of(render(snap, findings)), "ring #1"),
                                 "  counters"));
  EXPECT_EQ(ring1b.back(), "SQPOLL thread off-CPU 0ns 0.0% of the window <-- !");
}

TEST_F(ReportText, AnSqpollThreadAsleepThroughoutIsNotZeroOffCpu) {
  // -p on an idle program: no switch, no submission, so no off-CPU time was measured;
  // printing 0ns would claim the thread was on a CPU the whole time.
  Ring& ring = snap.rings[1];
  for (OpStats& op : ring.ops) op.submitted = op.completed = 0;
  ring.counters = Counters{};
  auto lines = squeezed(section(ring_block(lines_of(render(snap, findings)), "ring #1"),
                                "  counters"));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(),
            "SQPOLL thread (tid 4250) off-CPU - not seen on a CPU in the window (asleep "
            "throughout)");
}

TEST_F(ReportText, HashedReadsAreNotCalledBufferedWrites) {
  // A READ is hashed only on an IOPOLL ring; "buffered write" would be wrong for it.
  snap.rings[0].setup_flags |= kSetupIopoll;
  OpStats& read = snap.rings[0].ops[1];
  ASSERT_EQ(read.opcode, 22u);
  read.punt_reasons = {.hashed = read.punted};
  auto details = section(ring_block(lines_of(render(snap, findings)), "ring #0"),
                         "  per-op punts, errors, poll waits");
  EXPECT_NE(std::find(details.begin(), details.end(),
                      "    READ punted 695,512: 695,512 hashed (serialized per file: IOPOLL ring)"),
            details.end());
}

TEST_F(ReportText, MarkersForTheNewerTags) {
  for (Finding& f : newer_findings()) findings.push_back(std::move(f));
  std::string marked = render(snap, findings);
  auto all = lines_of(marked);
  auto ring0 = ring_block(all, "ring #0");
  auto ring1 = ring_block(all, "ring #1");
  EXPECT_TRUE(ends_with(row(ring0, "short"), "<-- !"));                   // SHORT-WRITE
  EXPECT_TRUE(ends_with(row(ring0, "leaks"), "<-- !"));                   // LEAK ring 0
  EXPECT_TRUE(ends_with(row(ring0, "io-wq"), "<-- !"));                   // WORKERS ring 0
  EXPECT_TRUE(ends_with(row(op_table(ring0, 3), "WRITE"), "<-- !"));      // ERRORS WRITE
  EXPECT_TRUE(ends_with(row(ring1, "leaks"), "<-- !"));  // LEAK ring 1: only pending there
  EXPECT_TRUE(ends_with(row(op_table(ring1, 1), "RECV"), "<-- !"));      // POLL-RETRY RECV
  std::string offcpu;
  for (const std::string& l : ring1)
    if (contains(l, "off-CPU")) offcpu = l;
  EXPECT_TRUE(ends_with(offcpu, "<-- !")) << offcpu;                     // SQPOLL ring 1
  EXPECT_FALSE(contains(row(ring1, "io-wq"), "<-- !"));  // WORKERS was about ring 0's process
  // The run-level line of ring 0's process, not the other one.
  std::string pid31337, pid4242;
  for (const std::string& l : all) {
    if (l.rfind("io-wq workers: pid 31337", 0) == 0) pid31337 = l;
    if (l.rfind("io-wq workers: pid 4242", 0) == 0) pid4242 = l;
  }
  EXPECT_TRUE(ends_with(pid31337, "<-- !")) << pid31337;
  EXPECT_FALSE(contains(pid4242, "<-- !")) << pid4242;
  // 3 from before, 4 on ring 0, 3 on ring 1, 1 run-level.
  EXPECT_EQ(count_of(marked, "<-- !"), 11u);
}

TEST_F(ReportText, PollRetryWithoutAnOpMarksNoOpRow) {
  findings.push_back({"POLL-RETRY", Severity::Info, 1u, std::nullopt, "m", "s", {}});
  auto ring1 = ring_block(lines_of(render(snap, findings)), "ring #1");
  EXPECT_FALSE(contains(row(op_table(ring1, 1), "RECV"), "<-- !"));
}

TEST_F(ReportText, LeaksSection) {
  auto leaks = std::find(lines.begin(), lines.end(), "leaks (requests in flight longer than 5s)");
  ASSERT_NE(leaks, lines.end());
  // Columns: ring 4, op 4, age 5 (right-aligned), user_data 18, where 6, the state, and
  // the file, since one request's file is known ("-" where it is not).
  std::vector<std::string> want{
      "  2 suspected, 3 pending (waiting on an event); oldest 11.9s",
      "  ring  op      age  user_data           where              file",
      "  #0    READ  11.9s  0xdeadbeef00000001  io-wq              -",
      "  #1    RECV  10.5s  0x1000              poll    waiting    tcp 127.0.0.1:5432 -> 127.0.0.1:40122",
      "  #1    RECV  10.5s  0x1001              poll    waiting    -",
      "  #0    READ   8.2s  0x2a                issued  abandoned  -",
      "  #1    RECV     7s  0x1002              poll    waiting    -",
  };
  ASSERT_GT(lines.end() - leaks, static_cast<std::ptrdiff_t>(want.size()));
  auto after = leaks + 1 + static_cast<std::ptrdiff_t>(want.size());
  EXPECT_EQ(std::vector<std::string>(leaks + 1, after), want);
  EXPECT_EQ(leaks[want.size() + 1], "");  // all five listed: no "more" line
}

TEST_F(ReportText, LeaksWithoutKnownFilesHaveNoFileColumn) {
  for (PendingRequest& r : snap.leak.requests) r.file.clear();
  const auto text = lines_of(render(snap, findings));
  auto leaks = std::find(text.begin(), text.end(), "leaks (requests in flight longer than 5s)");
  ASSERT_NE(leaks, text.end());
  EXPECT_EQ(leaks[2], "  ring  op      age  user_data           where");
  EXPECT_EQ(leaks[3], "  #0    READ  11.9s  0xdeadbeef00000001  io-wq");
  EXPECT_EQ(leaks[5], "  #1    RECV  10.5s  0x1001              poll    waiting");
}

TEST_F(ReportText, LeaksListTheOldestTenThenCountTheRest) {
  LeakInfo& leak = snap.leak;
  leak.requests.clear();
  for (uint64_t i = 0; i < 12; ++i)
    leak.requests.push_back({.ring = 2, .opcode = 0, .age_ns = (20 - i) * 1'000'000'000,
                             .user_data = i});
  leak.suspected = 70;  // more than the 12 recorded
  leak.pending = 0;
  auto all = lines_of(render(snap, findings));
  auto start = std::find(all.begin(), all.end(), "leaks (requests in flight longer than 5s)");
  ASSERT_NE(start, all.end());
  std::vector<std::string> block(start, std::find(start, all.end(), ""));
  ASSERT_EQ(block.size(), 1u + 1 + 1 + 10 + 1);  // title, totals, header, 10 rows, more
  EXPECT_EQ(squeeze(block[3]), "other NOP 20s 0x0 issued");  // catch-all ring: "other"
  EXPECT_EQ(squeeze(block[12]), "other NOP 11s 0x9 issued");
  EXPECT_EQ(block.back(), "  ... and 60 more");
}

TEST_F(ReportText, NoLeaksNoSection) {
  snap.leak.suspected = snap.leak.pending = 0;
  snap.leak.requests.clear();
  EXPECT_FALSE(contains(render(snap, findings), "leaks ("));
  // Counted but not recorded, and no threshold known: the totals alone, no empty table
  // and no "more" line.
  snap.leak.pending = 1;
  snap.leak.threshold_ns = 0;
  EXPECT_TRUE(contains(render(snap, findings),
                       "\nleaks (requests in flight past the leak age)\n"
                       "  0 suspected, 1 pending (waiting on an event); oldest 11.9s\n\n"));
}

TEST_F(ReportText, RunLevelWorkersLines) {
  // Labels 33 and 35 wide, one blank, counts right-aligned in 2.
  auto first = std::find(lines.begin(), lines.end(), "io-wq workers: pid 31337 (myapp):   64");
  ASSERT_NE(first, lines.end());
  ASSERT_NE(first + 1, lines.end());
  EXPECT_EQ(first[1], "io-wq workers: pid 4242 (dbwriter):  2");
  EXPECT_EQ(first[-1], "");

  snap.workers = {{77, 5}};  // a process with no ring of its own: no comm to show
  EXPECT_TRUE(contains(render(snap, findings), "\nio-wq workers: pid 77: 5\n"));
  snap.workers.clear();
  EXPECT_FALSE(contains(render(snap, findings), "io-wq workers:"));
}

TEST_F(ReportText, RingLessWorkersFindingMarksByPidEvidence) {
  auto run_level = [&](const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const std::string& l : lines_of(render(snap, fs)))
      if (l.rfind("io-wq workers:", 0) == 0) out.push_back(l);
    return out;
  };
  Finding workers{"WORKERS", Severity::Warn, std::nullopt, std::nullopt, "m", "s",
                  {{"pid", int64_t{4242}}}};
  auto by_pid = run_level({workers});
  ASSERT_EQ(by_pid.size(), 2u);
  EXPECT_FALSE(contains(by_pid[0], "<-- !"));
  EXPECT_TRUE(ends_with(by_pid[1], "<-- !"));

  workers.evidence.clear();  // about the whole run: every process's line
  auto whole = run_level({workers});
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_TRUE(ends_with(whole[0], "<-- !"));
  EXPECT_TRUE(ends_with(whole[1], "<-- !"));
}

TEST_F(ReportText, ToolLossesIncludeErrnoAndThreadTables) {
  snap.tool = {};
  snap.tool.errno_full = 4;
  snap.tool.threads_full = 1;
  auto losses = section(lines_of(render(snap, findings)), "tool losses");
  EXPECT_EQ(squeezed(losses),
            (std::vector<std::string>{"error CQEs whose code was not recorded (errno table full) 4",
                                      "io threads not recorded (thread table full) 1"}));
}

TEST_F(ReportText, RunSectionsInOrder) {
  auto at = [&](std::string_view needle) { return text.find(needle); };
  ASSERT_NE(at("\nleaks ("), std::string::npos);
  EXPECT_LT(at("\nother rings"), at("\nleaks ("));
  EXPECT_LT(at("\nleaks ("), at("\nio-wq workers: "));
  EXPECT_LT(at("\nio-wq workers: "), at("\ntool losses"));
  EXPECT_LT(at("\ntool losses"), at("\nfindings"));
}

}  // namespace
}  // namespace uringscope::report_test
