// SPDX-License-Identifier: MIT
// The compact view (-c) over a hand-built two-ring snapshot. Every expected line is
// derived by hand from the fixture's numbers, never copied from the renderer's output.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/views.h"
#include "uringscope/opcodes.h"

namespace uringscope::compact_test {
namespace {

// ring 0  myapp pid 100, fd 5
//         READ  600 submitted, 150 punted, 0 errors; latency 500 in [2^10,2^11),
//               100 in [2^20,2^21), max 1.9ms
//         WRITE 100 submitted, 0 punted, 2 errors; latency 100 in [2^12,2^13), max 8us
//         3 CQ overflows (a counter: must not show in the compact view)
// ring 1  dbw pid 200, fd 7
//         READ  400 submitted, 250 punted, 4 errors; latency 300 in [2^10,2^11),
//               100 in [2^20,2^21), max 2.09ms
//         FSYNC 50 submitted, 50 punted; latency 50 in [2^16,2^17), max 100us
//         12 untracked completions
//
// Merged, ascending opcode (FSYNC 3, READ 22, WRITE 23):
//   FSYNC    50  p50 rank 25 of 50 in [65536,131072): 65536 + 65536*0.5 = 98,304 -> 98.3us
//                p99 rank 50: 131,072, capped at max 100,000 -> 100us; max 100us;
//                punted 50/50 = 100.0%; errors 0
//   READ  1,000  buckets 800 in 2^10, 200 in 2^20; max 2.09ms
//                p50 rank 500: 1024 + 1024*500/800 = 1,664 -> 1.66us
//                p99 rank 990: 2^20 + 2^20*190/200 = 2,044,723 -> 2.04ms
//                punted (150+250)/1,000 = 40.0%; errors 0+4 = 4
//   WRITE   100  p50 rank 50: 4096 + 4096*0.5 = 6,144 -> 6.14us
//                p99 rank 99: 4096 + 4096*0.99 = 8,151, capped at max 8,000 -> 8us
//                punted 0.0%; errors 2
// Column widths: op 5, reqs 5 ("1,000"), p50/p99/max 6, punted 6, errors 6 (headers);
// gap 2, no indent; the PUNT finding about READ marks the READ row 3 blanks after the
// widest row (the header, 52 characters).

OpStats op(uint32_t opcode, uint64_t submitted, uint64_t punted, uint64_t errors) {
  OpStats o;
  o.opcode = opcode;
  o.submitted = submitted;
  o.completed = submitted;
  if (opcode_moves_data(opcode)) o.bytes = submitted * 4096;  // 4.0KiB per request
  o.punted = punted;
  o.errors = errors;
  return o;
}

constexpr uint32_t kFsync = 3, kRead = 22, kWrite = 23;

Snapshot fixture() {
  Snapshot s;
  s.wall_ns = 12'400'000'000;
  s.ncpus = 4;
  s.kernel.release = "6.18.44";
  s.kernel.tier = Tier::Full;
  s.kernel.features = {{"submit", true, "io_uring_submit_req"}};

  Ring r0;
  r0.id = 0;
  r0.pid = 100;
  r0.comm = "myapp";
  r0.fd = 5;
  r0.source = RingSource::Create;
  r0.counters.submissions = 700;
  r0.counters.completions = 700;
  r0.counters.cq_overflows = 3;
  OpStats read0 = op(kRead, 600, 150, 0);
  read0.latency.buckets[10] = 500;
  read0.latency.buckets[20] = 100;
  read0.latency.max_ns = 1'900'000;
  OpStats write0 = op(kWrite, 100, 0, 2);
  write0.latency.buckets[12] = 100;
  write0.latency.max_ns = 8'000;
  r0.ops = {read0, write0};

  Ring r1;
  r1.id = 1;
  r1.pid = 200;
  r1.comm = "dbw";
  r1.fd = 7;
  r1.source = RingSource::FdTable;
  r1.counters.submissions = 450;
  r1.counters.completions = 462;
  r1.counters.untracked_completions = 12;
  OpStats fsync1 = op(kFsync, 50, 50, 0);
  fsync1.latency.buckets[16] = 50;
  fsync1.latency.max_ns = 100'000;
  OpStats read1 = op(kRead, 400, 250, 4);
  read1.latency.buckets[10] = 300;
  read1.latency.buckets[20] = 100;
  read1.latency.max_ns = 2'090'000;
  r1.ops = {fsync1, read1};

  s.rings = {r0, r1};
  aggregate(s);
  return s;
}

std::vector<Finding> findings() {
  Finding punt;
  punt.tag = "PUNT";
  punt.severity = Severity::Warn;
  punt.ring = 1;
  punt.opcode = kRead;
  punt.message = "62% of READ requests on ring #1 went to io-wq.";
  punt.suggestion = "Use O_DIRECT.";
  Finding batch;
  batch.tag = "BATCH";
  batch.severity = Severity::Info;
  batch.ring = 0;
  batch.message = "Ring #0 averages 1.0 SQEs per enter.";
  batch.suggestion = "Queue more SQEs per submit.";
  return {punt, batch};
}

const std::string kTable =
    "op      reqs     p50     p99     max  punted  errors     bytes       B/s   B/req\n"
    "FSYNC     50  98.3us   100us   100us  100.0%       0         -         -       -\n"
    "READ   1,000  1.66us  2.04ms  2.09ms   40.0%       4    3.9MiB  322.6KiB  4.0KiB   <-- !\n"
    "WRITE    100  6.14us     8us     8us    0.0%       2  400.0KiB   32.3KiB  4.0KiB\n";

// 12 untracked completions (ring 1 only), wrapped at 76 - len("note: ") = 70 columns.
const std::string kNote =
    "note: 12 completions were untracked (submitted before attach, or dropped\n"
    "      from the in-flight table); latency statistics cover tracked requests\n"
    "      only.\n";

std::string render(const Snapshot& s, const std::vector<Finding>& f, bool show,
                   std::string_view filter = {}) {
  std::ostringstream out;
  render_compact(out, s, f, show, filter);
  return out.str();
}

TEST(ReportCompact, MergedTableWithoutFindings) {
  EXPECT_EQ(render(fixture(), findings(), false),
            "uringscope 12.4s: 2 rings, 2 processes, all rings merged\n"
            "\n" +
                kTable + kNote);
}

TEST(ReportCompact, HistogramsOnlyWhenAskedForAndOnlyForTimedOps) {
  const Snapshot s = fixture();
  EXPECT_EQ(render(s, {}, false).find("latency distribution"), std::string::npos);
  std::ostringstream out;
  render_compact(out, s, findings(), false, {}, true);
  const std::string text = out.str();
  // Under the table, before the untracked note: READ's 1,000 requests, not FSYNC's 50.
  const auto table_end = text.find(kTable) + kTable.size();
  ASSERT_NE(text.find(kTable), std::string::npos) << text;
  const std::string heading = "\nlatency distribution\n  READ (1,000 timed)\n";
  EXPECT_EQ(text.substr(table_end, heading.size()), heading) << text;
  EXPECT_EQ(text.find("FSYNC ("), std::string::npos);
  EXPECT_NE(text.find("distribution\n", table_end + 30), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - kNote.size()), kNote);
}

TEST(ReportCompact, FindingsFollowTheTable) {
  std::string text = render(fixture(), findings(), true);
  std::string head =
      "uringscope 12.4s: 2 rings, 2 processes, all rings merged\n\n" + kTable +
      kNote + "\nfindings\n";
  ASSERT_EQ(text.substr(0, head.size()), head);
  std::string rest = text.substr(head.size());
  EXPECT_NE(rest.find("[PUNT]"), std::string::npos);
  EXPECT_NE(rest.find("62% of READ requests on ring #1 went to io-wq."), std::string::npos);
  EXPECT_NE(rest.find("[BATCH]"), std::string::npos);
}

TEST(ReportCompact, NoRingBlocksNoCounters) {
  // Above the findings, whose messages name their ring themselves.
  std::string rendered = render(fixture(), findings(), true);
  std::string text = rendered.substr(0, rendered.find("\nfindings\n"));
  for (std::string_view absent : {"ring #", "submission", "counters", "CQ overflows",
                                  "io_uring_enter", "per-op latency", "myapp", "dbw"})
    EXPECT_EQ(text.find(absent), std::string::npos) << absent;
}

TEST(ReportCompact, NoFindingsSection) {
  std::vector<Finding> none;
  EXPECT_NE(render(fixture(), none, true).find("findings\n  no findings\n"), std::string::npos);
  EXPECT_EQ(render(fixture(), none, false).find("findings"), std::string::npos);
}

TEST(ReportCompact, OneRingOneProcess) {
  Snapshot s = fixture();
  s.rings.pop_back();
  aggregate(s);
  // READ alone: 600 reqs, 150 punted = 25.0%; no untracked completions, so no note.
  std::string text = render(s, {}, false);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), "uringscope 12.4s: 1 ring, 1 process\n");
  EXPECT_EQ(text.find("note:"), std::string::npos);
  EXPECT_NE(text.find("  25.0%"), std::string::npos);
}

TEST(ReportCompact, SameProcessCountedOnce) {
  Snapshot s = fixture();
  s.rings[1].pid = 100;
  std::string text = render(s, {}, false);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "uringscope 12.4s: 2 rings, 1 process, all rings merged\n");
}

TEST(ReportCompact, CatchAllRingMakesCountsALowerBound) {
  Snapshot s = fixture();
  s.rings[1].source = RingSource::CatchAll;
  s.rings[1].pid = 0;
  std::string text = render(s, {}, false);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "uringscope 12.4s: 1+ rings (ring table full), 1+ processes, all rings merged\n");
}

TEST(ReportCompact, NoActivity) {
  Snapshot s;
  s.wall_ns = 2'000'000'000;
  aggregate(s);
  Finding nodata;
  nodata.tag = "NODATA";
  nodata.message = "No io_uring activity.";
  EXPECT_EQ(render(s, {nodata}, false), "uringscope 2s: no io_uring activity seen\n");
  std::string text = render(s, {nodata}, true);
  EXPECT_TRUE(text.starts_with("uringscope 2s: no io_uring activity seen\n\nfindings\n")) << text;
  EXPECT_NE(text.find("[NODATA]"), std::string::npos);
}

TEST(ReportCompact, FeaturesOffAreNamed) {
  Snapshot s = fixture();
  s.kernel.features.push_back({"punt", false, "io_uring_queue_async_work missing"});
  s.kernel.features.push_back({"poll", false, "io_uring_poll_arm missing"});
  std::string text = render(s, {}, false);
  std::string first_two = text.substr(0, text.find("\n\n") + 1);
  EXPECT_EQ(first_two,
            "uringscope 12.4s: 2 rings, 2 processes, all rings merged\n"
            "kernel features off: punt, poll (the full report says why)\n");
}

TEST(ReportCompact, DisplayFilterIsNamedAndEmptyResultSaysSo) {
  Snapshot s = fixture();
  std::string text = render(s, {}, false, "op=READ");
  EXPECT_NE(text.find("\ndisplay filter: op=READ (text only; the JSON report is complete)\n\n"),
            std::string::npos);
  s.ops.clear();
  for (Ring& r : s.rings) r.ops.clear();
  text = render(s, {}, false, "op=NOP");
  EXPECT_NE(text.find("\n\n(no op matches the display filter)\n"), std::string::npos);
  EXPECT_EQ(text.find("op      reqs"), std::string::npos);
}

TEST(ReportCompact, RingsWithoutOps) {
  Snapshot s = fixture();
  for (Ring& r : s.rings) r.ops.clear();
  s.rings[1].counters.untracked_completions = 0;
  aggregate(s);
  EXPECT_EQ(render(s, {}, false),
            "uringscope 12.4s: 2 rings, 2 processes, all rings merged\n"
            "\n"
            "(no requests seen)\n");
}

}  // namespace
}  // namespace uringscope::compact_test
