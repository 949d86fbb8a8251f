// SPDX-License-Identifier: MIT
// The rules engine on hand-built snapshots. Every expected number is worked out in the
// test from the inputs, never copied from what the code printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "support/fixtures.h"
#include "uringscope/findings.h"
#include "uringscope/opcodes.h"
#include "rules/thresholds.h"

// Snapshots are built with designated initializers naming only the fields a test is
// about; the rest take their default member initializers. GCC before 14 still warns
// about every omitted member under -Wextra, which would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 14
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif

namespace uringscope {
namespace {

constexpr uint32_t kNop = 0;
constexpr uint32_t kFsync = 3;
constexpr uint32_t kPollAdd = 6;
constexpr uint32_t kPollRemove = 7;
constexpr uint32_t kTimeout = 11;
constexpr uint32_t kTimeoutRemove = 12;
constexpr uint32_t kAccept = 13;
constexpr uint32_t kAsyncCancel = 14;
constexpr uint32_t kLinkTimeout = 15;
constexpr uint32_t kOpenat = 18;
constexpr uint32_t kRead = 22;
constexpr uint32_t kWrite = 23;
constexpr uint32_t kSend = 26;
constexpr uint32_t kRecv = 27;
// The tests' own UAPI values, checked against the constants the code names from the
// opcode table.
static_assert(op::kFsync == kFsync && op::kPollAdd == kPollAdd &&
              op::kPollRemove == kPollRemove && op::kTimeout == kTimeout &&
              op::kTimeoutRemove == kTimeoutRemove && op::kAccept == kAccept &&
              op::kAsyncCancel == kAsyncCancel && op::kLinkTimeout == kLinkTimeout &&
              op::kOpenat == kOpenat && op::kRead == kRead && op::kWrite == kWrite &&
              op::kSend == kSend && op::kRecv == kRecv);
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint32_t kSetupSingleIssuer = 1u << 12;

// A ring that submitted `sqes` SQEs in `calls` submitting enter calls, all completed.
Ring busy_ring(uint32_t id, uint64_t calls, uint64_t sqes) {
  return Ring{
      .id = id,
      .fd = static_cast<int32_t>(5 + id),
      .sq_entries = 256,
      .cq_entries = 512,
      .counters = {.enter_calls = calls,
                   .enter_submit_calls = calls,
                   .to_submit_sum = sqes,
                   .submissions = sqes,
                   .completions = sqes},
  };
}

OpStats op_row(uint32_t opcode, uint64_t submitted, uint64_t punted) {
  return OpStats{
      .opcode = opcode, .submitted = submitted, .completed = submitted, .punted = punted};
}

// A ring that only carries op rows (quiet enter counters, so BATCH stays out of it).
Ring ring_with_ops(uint32_t id, std::vector<OpStats> ops) {
  Ring ring{.id = id};
  for (const OpStats& op : ops) {
    ring.counters.submissions += op.submitted;
    ring.counters.completions += op.completed;
    ring.counters.punted += op.punted;
  }
  ring.ops = std::move(ops);
  return ring;
}

Snapshot snapshot_of(std::vector<Ring> rings, uint64_t wall_ns = kSecond) {
  Snapshot s{.tool_version = "test", .wall_ns = wall_ns, .ncpus = 8};
  s.rings = std::move(rings);
  aggregate(s);
  return s;
}

std::vector<Finding> with_tag(const std::vector<Finding>& all, std::string_view tag) {
  std::vector<Finding> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [tag](const Finding& f) { return f.tag == tag; });
  return out;
}

const Evidence* find_evidence(const Finding& f, std::string_view key) {
  auto it = std::find_if(f.evidence.begin(), f.evidence.end(),
                         [key](const Evidence& e) { return e.key == key; });
  return it == f.evidence.end() ? nullptr : &*it;
}

int64_t ev_int(const Finding& f, std::string_view key) {
  const Evidence* e = find_evidence(f, key);
  if (!e || !std::holds_alternative<int64_t>(e->value)) {
    ADD_FAILURE() << f.tag << ": no integer evidence " << key;
    return -1;
  }
  return std::get<int64_t>(e->value);
}

double ev_real(const Finding& f, std::string_view key) {
  const Evidence* e = find_evidence(f, key);
  if (!e || !std::holds_alternative<double>(e->value)) {
    ADD_FAILURE() << f.tag << ": no real evidence " << key;
    return -1;
  }
  return std::get<double>(e->value);
}

std::string ev_text(const Finding& f, std::string_view key) {
  const Evidence* e = find_evidence(f, key);
  if (!e || !std::holds_alternative<std::string>(e->value)) {
    ADD_FAILURE() << f.tag << ": no text evidence " << key;
    return {};
  }
  return std::get<std::string>(e->value);
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// --- basics -------------------------------------------------------------------------

TEST(Rules, SeverityNames) {
  EXPECT_EQ(severity_name(Severity::Info), "INFO");
  EXPECT_EQ(severity_name(Severity::Warn), "WARN");
  EXPECT_EQ(severity_name(Severity::Crit), "CRIT");
}

// --- PUNT ---------------------------------------------------------------------------

TEST(Punt, FiresPerOpWithEvidence) {
  OpStats read = op_row(kRead, 200, 50);  // 50 / 200 = 25 %
  read.latency.buckets[10] = 100;         // [1024, 2048)
  read.latency.sum_ns = 150'000;
  read.latency.max_ns = 5'000;
  Snapshot s = snapshot_of({ring_with_ops(0, {read})});

  auto punts = with_tag(evaluate(s), "PUNT");
  // One ring, one op: the all-rings parent would repeat the row, so only the row fires.
  ASSERT_EQ(punts.size(), 1u);
  const Finding& f = punts[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_EQ(f.opcode, kRead);
  EXPECT_DOUBLE_EQ(ev_real(f, "punt_pct"), 25.0);
  EXPECT_EQ(ev_int(f, "punted"), 50);
  EXPECT_EQ(ev_int(f, "submitted"), 200);
  EXPECT_EQ(ev_int(f, "p99_ns"), 2037);  // rank 99 of 100: 1024 + 1024 * 0.99 = 2037.76
  EXPECT_TRUE(contains(f.message, "READ")) << f.message;
  EXPECT_TRUE(contains(f.message, "25.0%")) << f.message;
  EXPECT_TRUE(contains(f.message, "io-wq")) << f.message;
  // the p99, human-readable: 2037 ns to three significant digits
  EXPECT_TRUE(contains(f.message, "p99 2.04us")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "O_DIRECT")) << f.suggestion;
  // No punt reasons in the row (a legacy kernel): the advice is hedged.
  EXPECT_TRUE(contains(f.suggestion, "Likely")) << f.suggestion;
  EXPECT_EQ(ev_text(f, "reason"), "unknown");
}

TEST(Punt, NoLatencySampleIsNotPrintedAsZero) {
  Snapshot s = snapshot_of({ring_with_ops(0, {op_row(kRead, 100, 100)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_int(punts[0], "p99_ns"), 0);
  EXPECT_FALSE(contains(punts[0].message, "p99")) << punts[0].message;
}

TEST(Punt, SuggestionFollowsOpKind) {
  Snapshot s = snapshot_of(
      {ring_with_ops(0, {op_row(kWrite, 100, 40), op_row(kSend, 100, 40)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  // 80 of 200 overall (40 %) is a parent with two rows below it.
  ASSERT_EQ(punts.size(), 3u);
  EXPECT_EQ(punts[1].opcode, kWrite);
  EXPECT_TRUE(contains(punts[1].suggestion, "inode")) << punts[1].suggestion;
  EXPECT_TRUE(contains(punts[1].suggestion, "O_DIRECT")) << punts[1].suggestion;
  EXPECT_EQ(punts[2].opcode, kSend);
  EXPECT_TRUE(contains(punts[2].suggestion, "IOSQE_ASYNC")) << punts[2].suggestion;
}

TEST(Punt, ThresholdIsInclusive) {
  // 10 of 100 is exactly 10 %: fires. 9 of 100 does not.
  auto at = with_tag(evaluate(snapshot_of({ring_with_ops(0, {op_row(kRead, 100, 10)})})), "PUNT");
  ASSERT_EQ(at.size(), 1u);
  EXPECT_DOUBLE_EQ(ev_real(at[0], "punt_pct"), 10.0);

  auto below = evaluate(snapshot_of({ring_with_ops(0, {op_row(kRead, 100, 9)})}));
  EXPECT_TRUE(with_tag(below, "PUNT").empty());
}

TEST(Punt, TooFewRequestsStaySilent) {
  // 63 requests, every one punted: still too small a sample.
  auto few = evaluate(snapshot_of({ring_with_ops(0, {op_row(kRead, 63, 63)})}));
  EXPECT_TRUE(with_tag(few, "PUNT").empty());

  // 64 requests, 7 punted: 10.9375 %.
  auto enough = with_tag(evaluate(snapshot_of({ring_with_ops(0, {op_row(kRead, 64, 7)})})),
                         "PUNT");
  ASSERT_EQ(enough.size(), 1u);
  EXPECT_DOUBLE_EQ(ev_real(enough[0], "punt_pct"), 10.9375);
}

TEST(Punt, OpsWithoutAnInlinePathAreNotCounted) {
  // FSYNC always runs in io-wq; READ next to it never punted.
  Snapshot s =
      snapshot_of({ring_with_ops(0, {op_row(kFsync, 1000, 1000), op_row(kRead, 1000, 0)})});
  EXPECT_TRUE(with_tag(evaluate(s), "PUNT").empty());
}

TEST(Punt, ParentFirstThenRowsPerRing) {
  // ring 0: READ 30 / 100 = 30 %; ring 1: WRITE 30 / 300 = 10 %.
  // All rings: 60 / 400 = 15 %.
  Snapshot s = snapshot_of({ring_with_ops(0, {op_row(kRead, 100, 30)}),
                            ring_with_ops(1, {op_row(kWrite, 300, 30)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 3u);

  EXPECT_FALSE(punts[0].ring.has_value());
  EXPECT_FALSE(punts[0].opcode.has_value());
  EXPECT_DOUBLE_EQ(ev_real(punts[0], "punt_pct"), 15.0);
  EXPECT_EQ(ev_int(punts[0], "punted"), 60);
  EXPECT_EQ(ev_int(punts[0], "submitted"), 400);
  EXPECT_TRUE(contains(punts[0].message, "15.0%")) << punts[0].message;

  EXPECT_EQ(punts[1].ring, 0u);
  EXPECT_EQ(punts[1].opcode, kRead);
  EXPECT_DOUBLE_EQ(ev_real(punts[1], "punt_pct"), 30.0);
  EXPECT_EQ(punts[2].ring, 1u);
  EXPECT_EQ(punts[2].opcode, kWrite);
  EXPECT_DOUBLE_EQ(ev_real(punts[2], "punt_pct"), 10.0);
}

TEST(Punt, ParentAloneWhenPuntsAreSpreadThin) {
  // Two ops of 40 requests, each under the 64-request floor, 10 punted each:
  // 20 / 80 = 25 % over all rings.
  Snapshot s = snapshot_of({ring_with_ops(0, {op_row(kRead, 40, 10), op_row(kWrite, 40, 10)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_FALSE(punts[0].ring.has_value());
  EXPECT_DOUBLE_EQ(ev_real(punts[0], "punt_pct"), 25.0);
  EXPECT_EQ(ev_int(punts[0], "punted"), 20);
  EXPECT_EQ(ev_int(punts[0], "submitted"), 80);
}

TEST(Punt, RowWithoutParentWhenOverallShareIsLow) {
  // READ 20 / 100 = 20 %, but with 900 NOPs the overall share is 20 / 1000 = 2 %.
  Snapshot s = snapshot_of({ring_with_ops(0, {op_row(kNop, 900, 0), op_row(kRead, 100, 20)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(punts[0].ring, 0u);
  EXPECT_EQ(punts[0].opcode, kRead);
}

TEST(Punt, SameOpOnTwoRingsKeepsTheParent) {
  // READ on two rings, 20 of 100 each: the parent (40 / 200 = 20 %) sums two rows.
  Snapshot s = snapshot_of({ring_with_ops(0, {op_row(kRead, 100, 20)}),
                            ring_with_ops(1, {op_row(kRead, 100, 20)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 3u);
  EXPECT_FALSE(punts[0].ring.has_value());
  EXPECT_EQ(ev_int(punts[0], "punted"), 40);
  EXPECT_EQ(ev_int(punts[0], "submitted"), 200);
}

OpStats punted_row(uint32_t opcode, uint64_t submitted, PuntReasons reasons) {
  OpStats op = op_row(opcode, submitted,
                      reasons.forced + reasons.hashed + reasons.regular_file + reasons.eagain);
  op.punt_reasons = reasons;
  return op;
}

TEST(Punt, NamesTheDominantReasonAndItsFix) {
  // 50 of 200 READs punted: 10 forced, 40 on a regular file (page-cache misses).
  Snapshot s = snapshot_of(
      {ring_with_ops(0, {punted_row(kRead, 200, {.forced = 10, .regular_file = 40})})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  const Finding& f = punts[0];
  EXPECT_EQ(ev_text(f, "reason"), "regular_file");
  EXPECT_EQ(ev_int(f, "forced"), 10);
  EXPECT_EQ(ev_int(f, "hashed"), 0);
  EXPECT_EQ(ev_int(f, "regular_file"), 40);
  EXPECT_EQ(ev_int(f, "eagain"), 0);
  EXPECT_EQ(ev_int(f, "punted"), 50);
  EXPECT_DOUBLE_EQ(ev_real(f, "punt_pct"), 25.0);
  // largest reason first in the breakdown
  EXPECT_TRUE(contains(f.message, "regular file, would block 40; IOSQE_ASYNC 10")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "O_DIRECT")) << f.suggestion;
  EXPECT_TRUE(contains(f.suggestion, "POSIX_FADV_WILLNEED")) << f.suggestion;
  // the reason is known: no hedging
  EXPECT_FALSE(contains(f.suggestion, "Likely")) << f.suggestion;
}

TEST(Punt, ForcedPuntsSayDropIosqeAsync) {
  // The injector's punt scenario: every READ carries IOSQE_ASYNC.
  Snapshot s = snapshot_of({ring_with_ops(0, {punted_row(kRead, 1000, {.forced = 1000})})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_text(punts[0], "reason"), "forced");
  EXPECT_DOUBLE_EQ(ev_real(punts[0], "punt_pct"), 100.0);
  EXPECT_TRUE(contains(punts[0].suggestion, "Drop IOSQE_ASYNC")) << punts[0].suggestion;
  EXPECT_TRUE(contains(punts[0].suggestion, "READ requests")) << punts[0].suggestion;
}

TEST(Punt, ForcedOpensBlameTheKernelFirst) {
  // Node's writeFile(): every OPENAT has O_CREAT|O_TRUNC, which the kernel forces to io-wq
  // with the very bit IOSQE_ASYNC sets. "Drop IOSQE_ASYNC" would send the reader astray.
  Snapshot s = snapshot_of({ring_with_ops(0, {punted_row(kOpenat, 500, {.forced = 500})})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_text(punts[0], "reason"), "forced");
  EXPECT_TRUE(contains(punts[0].suggestion, "O_CREAT, O_TRUNC")) << punts[0].suggestion;
  EXPECT_FALSE(contains(punts[0].suggestion, "Drop IOSQE_ASYNC")) << punts[0].suggestion;
  EXPECT_TRUE(contains(punts[0].message, "(by reason: O_CREAT/O_TRUNC or IOSQE_ASYNC 500)"))
      << punts[0].message;

  // The all-rings row sums forced punts of opens and of other ops: it cannot blame the
  // program alone either.
  Snapshot both = snapshot_of({ring_with_ops(0, {punted_row(kOpenat, 500, {.forced = 500})}),
                               ring_with_ops(1, {punted_row(kRead, 500, {.forced = 500})})});
  auto rows = with_tag(evaluate(both), "PUNT");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows[0].ring.has_value());
  EXPECT_TRUE(contains(rows[0].message, "(by reason: O_CREAT/O_TRUNC or IOSQE_ASYNC 1,000)"))
      << rows[0].message;
  // Without an open among them, it is IOSQE_ASYNC as before.
  Snapshot reads = snapshot_of({ring_with_ops(0, {punted_row(kRead, 500, {.forced = 500})}),
                                ring_with_ops(1, {punted_row(kRead, 500, {.forced = 500})})});
  auto read_rows = with_tag(evaluate(reads), "PUNT");
  ASSERT_FALSE(read_rows.empty());
  EXPECT_TRUE(contains(read_rows[0].message, "(by reason: IOSQE_ASYNC 1,000)"))
      << read_rows[0].message;
}

TEST(Punt, HashedReadsOnAnIopollRingAreNotBufferedWrites) {
  // fio with hipri=1: io-wq hashes every file request of an IOPOLL ring, reads too.
  Ring ring = ring_with_ops(0, {punted_row(kRead, 1000, {.hashed = 400})});
  ring.setup_flags = kSetupIopoll;
  auto punts = with_tag(evaluate(snapshot_of({ring})), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_text(punts[0], "reason"), "hashed");
  EXPECT_TRUE(contains(punts[0].message, "hashed (serialized per file: IOPOLL ring) 400"))
      << punts[0].message;
  EXPECT_FALSE(contains(punts[0].message, "buffered write")) << punts[0].message;
  EXPECT_TRUE(contains(punts[0].suggestion, "poll queues")) << punts[0].suggestion;
  // Writes on the same ring keep the buffered-write reading.
  ring.ops = {punted_row(kWrite, 1000, {.hashed = 400})};
  auto writes = with_tag(evaluate(snapshot_of({ring})), "PUNT");
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(contains(writes[0].message, "hashed buffered write 400")) << writes[0].message;
}

TEST(Punt, EachReasonHasItsOwnFix) {
  // WRITE: 60 hashed of 100; SEND: 70 -EAGAIN of 100; OPENAT: 80 regular-file of 100.
  Snapshot s = snapshot_of({ring_with_ops(0, {punted_row(kOpenat, 100, {.regular_file = 80}),
                                              punted_row(kWrite, 100, {.hashed = 60}),
                                              punted_row(kSend, 100, {.eagain = 70})})});
  auto punts = with_tag(evaluate(s), "PUNT");
  // parent (210 / 300 = 70 %) and three rows, ascending opcode
  ASSERT_EQ(punts.size(), 4u);
  EXPECT_FALSE(punts[0].ring.has_value());
  EXPECT_EQ(ev_int(punts[0], "punted"), 210);
  EXPECT_EQ(ev_int(punts[0], "regular_file"), 80);
  EXPECT_EQ(ev_int(punts[0], "hashed"), 60);
  EXPECT_EQ(ev_int(punts[0], "eagain"), 70);
  EXPECT_EQ(ev_text(punts[0], "reason"), "regular_file");
  EXPECT_TRUE(contains(punts[0].suggestion, "cause and its fix")) << punts[0].suggestion;

  EXPECT_EQ(punts[1].opcode, kOpenat);
  EXPECT_EQ(ev_text(punts[1], "reason"), "regular_file");
  // not a read: the page-cache advice would be wrong
  EXPECT_TRUE(contains(punts[1].suggestion, "fallocate")) << punts[1].suggestion;
  EXPECT_FALSE(contains(punts[1].suggestion, "page cache")) << punts[1].suggestion;

  EXPECT_EQ(punts[2].opcode, kWrite);
  EXPECT_EQ(ev_text(punts[2], "reason"), "hashed");
  EXPECT_TRUE(contains(punts[2].suggestion, "inode")) << punts[2].suggestion;
  EXPECT_TRUE(contains(punts[2].suggestion, "O_DIRECT")) << punts[2].suggestion;

  EXPECT_EQ(punts[3].opcode, kSend);
  EXPECT_EQ(ev_text(punts[3], "reason"), "eagain");
  EXPECT_TRUE(contains(punts[3].suggestion, "-EAGAIN")) << punts[3].suggestion;
  for (const Finding& f : punts) EXPECT_FALSE(contains(f.suggestion, "Likely")) << f.suggestion;
}

TEST(Punt, TiedReasonsNameIosqeAsync) {
  // 20 forced, 20 hashed: the one the program sets itself wins the tie.
  Snapshot s = snapshot_of(
      {ring_with_ops(0, {punted_row(kWrite, 100, {.forced = 20, .hashed = 20})})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_text(punts[0], "reason"), "forced");
}

TEST(Punt, UnknownReasonsKeepTheHedge) {
  // A legacy kernel: punts counted, reasons all zero.
  Snapshot s = snapshot_of({ring_with_ops(0, {op_row(kWrite, 100, 40)})});
  auto punts = with_tag(evaluate(s), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_text(punts[0], "reason"), "unknown");
  EXPECT_EQ(ev_int(punts[0], "forced"), 0);
  EXPECT_TRUE(contains(punts[0].suggestion, "Likely")) << punts[0].suggestion;
  EXPECT_FALSE(contains(punts[0].message, "by reason")) << punts[0].message;
}

// --- BATCH --------------------------------------------------------------------------

TEST(Batch, WarnsBelowOneAndAHalf) {
  // 1200 SQEs over 1000 calls in 1 s: 1.2 per call, 1000 calls/s.
  auto batch = with_tag(evaluate(snapshot_of({busy_ring(0, 1000, 1200)})), "BATCH");
  ASSERT_EQ(batch.size(), 1u);
  const Finding& f = batch[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_FALSE(f.opcode.has_value());
  EXPECT_DOUBLE_EQ(ev_real(f, "avg_batch"), 1.2);
  EXPECT_EQ(ev_int(f, "enter_submit_calls"), 1000);
  EXPECT_EQ(ev_int(f, "sqes"), 1200);
  EXPECT_TRUE(contains(f.message, "1.20")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "io_uring_submit")) << f.suggestion;
}

TEST(Batch, InfoBetweenOneAndAHalfAndTwo) {
  // 1800 / 1000 = 1.8 per call.
  auto batch = with_tag(evaluate(snapshot_of({busy_ring(0, 1000, 1800)})), "BATCH");
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].severity, Severity::Info);
  EXPECT_DOUBLE_EQ(ev_real(batch[0], "avg_batch"), 1.8);
}

TEST(Batch, BoundariesBelongToTheMilderSide) {
  // Exactly 1.5 is INFO, exactly 2.0 is silent.
  auto at_warn = with_tag(evaluate(snapshot_of({busy_ring(0, 1000, 1500)})), "BATCH");
  ASSERT_EQ(at_warn.size(), 1u);
  EXPECT_EQ(at_warn[0].severity, Severity::Info);
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({busy_ring(0, 1000, 2000)})), "BATCH").empty());
}

TEST(Batch, SqpollRingIsExempt) {
  Ring ring = busy_ring(0, 1000, 1000);
  ring.setup_flags = kSetupSqpoll;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring})), "BATCH").empty());
}

TEST(Batch, NeedsABusyRing) {
  // 199 calls of one SQE each in 0.1 s (1990 calls/s): too few calls.
  EXPECT_TRUE(
      with_tag(evaluate(snapshot_of({busy_ring(0, 199, 199)}, kSecond / 10)), "BATCH").empty());
  // 200 calls of one: fires, at 1.0 per call.
  auto at_floor = with_tag(evaluate(snapshot_of({busy_ring(0, 200, 200)}, kSecond / 10)), "BATCH");
  ASSERT_EQ(at_floor.size(), 1u);
  EXPECT_EQ(at_floor[0].severity, Severity::Warn);
  EXPECT_DOUBLE_EQ(ev_real(at_floor[0], "enter_submit_per_s"), 2000.0);
}

TEST(Batch, LowCallRateIsExempt) {
  // 1000 calls of one SQE over 10 s: 100 calls/s, not worth batching.
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({busy_ring(0, 1000, 1000)}, 10 * kSecond)), "BATCH")
                  .empty());
  // The same ring with the window length unknown: the rate check is skipped.
  auto unknown = with_tag(evaluate(snapshot_of({busy_ring(0, 1000, 1000)}, 0)), "BATCH");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(find_evidence(unknown[0], "enter_submit_per_s"), nullptr);
}

TEST(Batch, UnseenSubmissionsAreNotReadAsSingleBatches) {
  // Enter calls counted but no SQEs seen (submit tracepoint missing): 0 per call is a
  // gap in the tool, not a program that submits nothing.
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({busy_ring(0, 5000, 0)})), "BATCH").empty());
}

TEST(Batch, MessageUsesHumanNumbers) {
  // 1,209,544 SQEs over 1,204,332 calls: 1.0043 per call.
  auto batch =
      with_tag(evaluate(snapshot_of({busy_ring(0, 1'204'332, 1'209'544)}, 12 * kSecond)), "BATCH");
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_TRUE(contains(batch[0].message, "1,204,332")) << batch[0].message;
  EXPECT_TRUE(contains(batch[0].message, "1,209,544")) << batch[0].message;
  EXPECT_TRUE(contains(batch[0].message, "1.00 SQEs")) << batch[0].message;
}

// --- OVERFLOW -----------------------------------------------------------------------

TEST(Overflow, AnyOverflowIsCritical) {
  // The injector's overflow scenario: 64 NOPs into a 16-entry CQ, 48 overflowed.
  Ring ring = busy_ring(0, 8, 64);
  ring.sq_entries = 8;
  ring.cq_entries = 16;
  ring.counters.cq_overflows = 48;
  auto overflow = with_tag(evaluate(snapshot_of({ring})), "OVERFLOW");
  ASSERT_EQ(overflow.size(), 1u);
  const Finding& f = overflow[0];
  EXPECT_EQ(f.severity, Severity::Crit);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_FALSE(f.opcode.has_value());
  EXPECT_EQ(ev_int(f, "cq_overflows"), 48);
  EXPECT_EQ(ev_int(f, "cq_entries"), 16);
  EXPECT_EQ(ev_int(f, "sq_entries"), 8);
  EXPECT_EQ(ev_int(f, "completions"), 64);
  EXPECT_TRUE(contains(f.message, "16-entry CQ")) << f.message;
  EXPECT_TRUE(contains(f.message, "75.0% of 64")) << f.message;  // 48 / 64
  EXPECT_TRUE(contains(f.suggestion, "IORING_SETUP_CQSIZE")) << f.suggestion;

  ring.counters.cq_overflows = 1;
  EXPECT_EQ(with_tag(evaluate(snapshot_of({ring})), "OVERFLOW").size(), 1u);
}

TEST(Overflow, SilentWithoutOverflow) {
  Ring ring = busy_ring(0, 8, 64);
  ring.cq_entries = 16;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring})), "OVERFLOW").empty());
}

TEST(Overflow, PerRing) {
  Ring a = busy_ring(0, 10, 320);
  Ring b = busy_ring(1, 10, 320);
  b.counters.cq_overflows = 5;
  auto overflow = with_tag(evaluate(snapshot_of({a, b})), "OVERFLOW");
  ASSERT_EQ(overflow.size(), 1u);
  EXPECT_EQ(overflow[0].ring, 1u);
  EXPECT_EQ(ev_int(overflow[0], "cq_entries"), 512);
}

// --- WORKERS ------------------------------------------------------------------------

Ring owned_ring(uint32_t id, uint32_t pid, std::vector<OpStats> ops) {
  Ring ring = ring_with_ops(id, std::move(ops));
  ring.pid = pid;
  ring.comm = "db";
  return ring;
}

TEST(Workers, FiresPerProcessAndNamesTheOpsThatFedIt) {
  // 8 CPUs: limit max(16, 4 * 8) = 32. pid 100 ran 40 workers; its two rings punted READ
  // 500 + 100, FSYNC 300 and WRITE 100. pid 200's punts are not its business.
  Snapshot s = snapshot_of(
      {owned_ring(0, 100, {op_row(kNop, 50, 0), op_row(kFsync, 300, 300), op_row(kRead, 500, 500)}),
       owned_ring(1, 100, {op_row(kRead, 100, 100), op_row(kWrite, 100, 100)}),
       owned_ring(2, 200, {op_row(kRead, 9999, 9999)})});
  s.workers = {{.pid = 100, .distinct = 40}, {.pid = 200, .distinct = 3}};
  auto workers = with_tag(evaluate(s), "WORKERS");
  ASSERT_EQ(workers.size(), 1u);
  const Finding& f = workers[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 0u);  // the process's first ring
  EXPECT_FALSE(f.opcode.has_value());
  EXPECT_EQ(ev_int(f, "workers"), 40);
  EXPECT_EQ(ev_int(f, "limit"), 32);
  EXPECT_EQ(ev_int(f, "ncpus"), 8);
  EXPECT_EQ(ev_int(f, "pid"), 100);
  EXPECT_EQ(ev_int(f, "punted"), 1000);
  EXPECT_EQ(ev_text(f, "fed_by"), "READ 600, FSYNC 300, WRITE 100");
  EXPECT_TRUE(contains(f.message, "pid 100 (db)")) << f.message;
  EXPECT_TRUE(contains(f.message, "limit of 32 (max(16, 4 x 8 CPUs))")) << f.message;
  EXPECT_TRUE(contains(f.message, "READ 600, FSYNC 300, WRITE 100")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "IORING_REGISTER_IOWQ_MAX_WORKERS")) << f.suggestion;
  EXPECT_TRUE(contains(f.suggestion, "{8, 8}")) << f.suggestion;
}

TEST(Workers, LimitIsPerCpuWithAFloor) {
  auto fires = [](unsigned ncpus, uint64_t distinct) {
    Snapshot s = snapshot_of({owned_ring(0, 7, {op_row(kRead, 100, 0)})});
    s.ncpus = ncpus;
    s.workers = {{.pid = 7, .distinct = distinct}};
    return !with_tag(evaluate(s), "WORKERS").empty();
  };
  EXPECT_FALSE(fires(8, 31));  // 4 x 8 = 32
  EXPECT_TRUE(fires(8, 32));
  EXPECT_FALSE(fires(2, 15));  // 4 x 2 = 8, the floor of 16 rules
  EXPECT_TRUE(fires(2, 16));
  EXPECT_FALSE(fires(0, 15));  // CPU count unknown: the floor alone
  EXPECT_TRUE(fires(0, 16));
}

TEST(Workers, ProcessWithoutRings) {
  Snapshot s = snapshot_of({owned_ring(0, 100, {op_row(kRead, 100, 0)})});
  s.workers = {{.pid = 300, .distinct = 500}};
  auto workers = with_tag(evaluate(s), "WORKERS");
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_FALSE(workers[0].ring.has_value());
  EXPECT_EQ(ev_int(workers[0], "punted"), 0);
  EXPECT_EQ(ev_text(workers[0], "fed_by"), "");
  EXPECT_TRUE(contains(workers[0].message, "No request")) << workers[0].message;
  EXPECT_EQ(ev_int(workers[0], "limit"), 32);
}

TEST(Workers, SilentWithoutWorkerRecords) {
  // Punts alone are PUNT's business, not WORKERS'.
  Snapshot s = snapshot_of({owned_ring(0, 100, {op_row(kRead, 1000, 1000)})});
  EXPECT_TRUE(with_tag(evaluate(s), "WORKERS").empty());
}

// --- SQPOLL -------------------------------------------------------------------------

// An SQPOLL ring whose thread (tid 4242) was seen, with `sqes` SQEs submitted by it.
Ring sqpoll_ring(uint64_t sqes) {
  Ring ring{.id = 0,
            .sq_tid = 4242,
            .sq_entries = 64,
            .cq_entries = 128,
            .setup_flags = kSetupSqpoll};
  ring.counters.submissions = sqes;
  ring.counters.completions = sqes;
  ring.ops = {op_row(kNop, sqes, 0)};
  return ring;
}

TEST(Sqpoll, WarnsWhenAsleepAndWokenForSmallBursts) {
  // 10 s window, off-CPU 8 s (80 %), 500 wakeups for 2,000 SQEs (4 per wakeup).
  Ring ring = sqpoll_ring(2000);
  ring.counters.sqpoll_offcpu_ns = 8 * kSecond;
  ring.counters.sqpoll_wakeups = 500;
  ring.counters.sqpoll_sleeps = 500;
  ring.counters.sqpoll_preempts = 3;
  auto sq = with_tag(evaluate(snapshot_of({ring}, 10 * kSecond)), "SQPOLL");
  ASSERT_EQ(sq.size(), 1u);
  const Finding& f = sq[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_DOUBLE_EQ(ev_real(f, "offcpu_pct"), 80.0);
  EXPECT_EQ(ev_int(f, "sqpoll_offcpu_ns"), 8'000'000'000);
  EXPECT_EQ(ev_int(f, "wall_ns"), 10'000'000'000);
  EXPECT_EQ(ev_int(f, "sqpoll_wakeups"), 500);
  EXPECT_DOUBLE_EQ(ev_real(f, "sqes_per_wakeup"), 4.0);
  EXPECT_EQ(ev_int(f, "sqpoll_sleeps"), 500);
  EXPECT_EQ(ev_int(f, "sqpoll_preempts"), 3);
  EXPECT_TRUE(contains(f.message, "80.0%")) << f.message;
  EXPECT_TRUE(contains(f.message, "500 times")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "sq_thread_idle")) << f.suggestion;
}

TEST(Sqpoll, WarnThresholds) {
  auto sev = [](uint64_t offcpu_ns, uint64_t wakeups, uint64_t sqes) -> std::string {
    Ring ring = sqpoll_ring(sqes);
    ring.counters.sqpoll_offcpu_ns = offcpu_ns;
    ring.counters.sqpoll_wakeups = wakeups;
    ring.counters.sqpoll_sleeps = wakeups;
    auto sq = with_tag(evaluate(snapshot_of({ring}, 10 * kSecond)), "SQPOLL");
    return sq.empty() ? "-" : std::string(severity_name(sq[0].severity));
  };
  EXPECT_EQ(sev(5 * kSecond, 100, 1500), "WARN");      // 50 %, 100 wakeups, 15 per wakeup
  EXPECT_EQ(sev(5 * kSecond - 1, 100, 1500), "-");     // just under half the window
  EXPECT_EQ(sev(5 * kSecond, 99, 1485), "-");          // 99 wakeups: 9.9 a second
  EXPECT_EQ(sev(5 * kSecond, 100, 1600), "-");         // 16 per wakeup: big bursts are fine
  EXPECT_EQ(sev(9 * kSecond, 1000, 1000 * 64), "-");   // asleep, but 64 SQEs per wakeup
}

// The wake-up guard is a rate with a floor: a short run is judged like a long one.
TEST(Sqpoll, TheWakeupGuardIsARate) {
  auto sev = [](uint64_t wall_ns, uint64_t wakeups) -> std::string {
    Ring ring = sqpoll_ring(wakeups * 4);  // 4 SQEs per wakeup
    ring.counters.sqpoll_offcpu_ns = wall_ns * 3 / 4;
    ring.counters.sqpoll_wakeups = wakeups;
    ring.counters.sqpoll_sleeps = wakeups;
    auto sq = with_tag(evaluate(snapshot_of({ring}, wall_ns)), "SQPOLL");
    return sq.empty() ? "-" : std::string(severity_name(sq[0].severity));
  };
  EXPECT_EQ(sev(2 * kSecond, 20), "WARN");   // 10 a second over 2 s
  EXPECT_EQ(sev(2 * kSecond, 19), "-");      // 9.5 a second, 4 SQEs a wakeup
  EXPECT_EQ(sev(1 * kSecond / 2, 4), "-");   // the floor of 4, but 8 a second
  EXPECT_EQ(sev(1 * kSecond / 4, 4), "WARN");  // the floor, at 16 a second
  EXPECT_EQ(sev(1 * kSecond / 8, 3), "-");   // 24 a second, but under the floor of 4
}

// A wake-up for nearly every submission is named at any rate: INFO while the rate is low
// (the cost is small), WARN from sqpoll_min_wakeup_rate on.
TEST(Sqpoll, AWakeupForNearlyEverySubmission) {
  auto sev = [](uint64_t wall_ns, uint64_t wakeups, uint64_t sqes) -> std::string {
    Ring ring = sqpoll_ring(sqes);
    ring.counters.sqpoll_offcpu_ns = wall_ns * 79 / 100;
    ring.counters.sqpoll_wakeups = wakeups;
    ring.counters.sqpoll_sleeps = wakeups;
    auto sq = with_tag(evaluate(snapshot_of({ring}, wall_ns)), "SQPOLL");
    return sq.empty() ? "-" : std::string(severity_name(sq[0].severity));
  };
  EXPECT_EQ(sev(6 * kSecond, 11, 12), "INFO");   // the sparse case: 1.8 a second
  EXPECT_EQ(sev(6 * kSecond, 11, 22), "INFO");   // two SQEs a wakeup
  EXPECT_EQ(sev(6 * kSecond, 11, 23), "-");      // more: small bursts at a low rate
  EXPECT_EQ(sev(6 * kSecond, 3, 3), "-");        // under the floor of 4
  EXPECT_EQ(sev(6 * kSecond, 120, 120), "WARN");  // 20 a second
}

// Shares of the ring's life, not of the window: a ring created 1.2 s into a 2 s run whose
// thread slept 0.6 s of its 0.8 s is asleep 75 % of the time it existed.
TEST(Sqpoll, TheOffCpuShareIsOfTheTimeTheRingExisted) {
  Ring ring = sqpoll_ring(160);
  ring.observed_ns = 800'000'000;
  ring.counters.sqpoll_offcpu_ns = 600'000'000;
  ring.counters.sqpoll_wakeups = 40;
  ring.counters.sqpoll_sleeps = 40;
  auto sq = with_tag(evaluate(snapshot_of({ring}, 2 * kSecond)), "SQPOLL");
  ASSERT_EQ(sq.size(), 1u);
  EXPECT_DOUBLE_EQ(ev_real(sq[0], "offcpu_pct"), 75.0);
  EXPECT_EQ(ev_int(sq[0], "observed_ns"), 800'000'000);
  EXPECT_TRUE(contains(sq[0].message, "of the 800ms the ring was watched")) << sq[0].message;
  // Read as a share of the whole window (30 %), it would have been quiet.
  ring.observed_ns = 0;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring}, 2 * kSecond)), "SQPOLL").empty());
}

TEST(Sqpoll, InfoWhenTheThreadNeverSlept) {
  Ring ring = sqpoll_ring(1'000'000);
  ring.counters.sqpoll_offcpu_ns = 50 * kMs;
  ring.counters.sqpoll_preempts = 12;
  auto sq = with_tag(evaluate(snapshot_of({ring}, 5 * kSecond)), "SQPOLL");
  ASSERT_EQ(sq.size(), 1u);
  const Finding& f = sq[0];
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_EQ(ev_int(f, "sqpoll_sleeps"), 0);
  EXPECT_EQ(ev_int(f, "sqpoll_preempts"), 12);
  EXPECT_EQ(ev_int(f, "wall_ns"), 5'000'000'000);
  EXPECT_TRUE(contains(f.message, "never went to sleep")) << f.message;
  EXPECT_TRUE(contains(f.message, "1.0%")) << f.message;  // 50 ms of 5 s
  EXPECT_TRUE(contains(f.suggestion, "IORING_SETUP_SQ_AFF")) << f.suggestion;
}

TEST(Sqpoll, NeverSleptNeedsALongEnoughWindow) {
  Ring ring = sqpoll_ring(1000);
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring}, 5 * kSecond - 1)), "SQPOLL").empty());
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring}, 0)), "SQPOLL").empty());
  ring.counters.sqpoll_sleeps = 1;  // slept once: not a core burnt
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring}, 60 * kSecond)), "SQPOLL").empty());
}

TEST(Sqpoll, AThreadAsleepThroughTheWindowIsNotBusy) {
  // -p on an idle program: the SQPOLL thread sleeps from before the window to after it,
  // so sched_switch never fires for it and every counter stays zero.
  Ring idle = sqpoll_ring(0);
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({idle}, 6 * kSecond)), "SQPOLL").empty());
  // One preemption is proof that it ran, and with no sleep it was polling.
  idle.counters.sqpoll_preempts = 1;
  EXPECT_EQ(with_tag(evaluate(snapshot_of({idle}, 6 * kSecond)), "SQPOLL").size(), 1u);
}

TEST(Sqpoll, NeedsAnSqpollRingWhoseThreadWasSeen) {
  // Numbers that would WARN, on a ring whose SQPOLL thread was never seen...
  Ring unseen = sqpoll_ring(2000);
  unseen.sq_tid = 0;
  unseen.counters.sqpoll_offcpu_ns = 8 * kSecond;
  unseen.counters.sqpoll_wakeups = 500;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({unseen}, 10 * kSecond)), "SQPOLL").empty());
  // ... and with sleeps == 0 (which would be INFO): zeros of a thread never seen.
  unseen.counters = {.submissions = 2000, .completions = 2000};
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({unseen}, 10 * kSecond)), "SQPOLL").empty());

  // A plain ring never gets SQPOLL findings, whatever its counters say.
  Ring plain = sqpoll_ring(2000);
  plain.setup_flags = 0;
  plain.counters.sqpoll_offcpu_ns = 8 * kSecond;
  plain.counters.sqpoll_wakeups = 500;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({plain}, 10 * kSecond)), "SQPOLL").empty());
}

// --- DEFER-TW -----------------------------------------------------------------------

Ring defer_ring(uint64_t task_adds, uint64_t runs) {
  Ring ring = busy_ring(0, 100, 3200);
  ring.setup_flags = kSetupDeferTaskrun | kSetupSingleIssuer;
  ring.counters.task_adds = task_adds;
  ring.counters.local_task_work_runs = runs;
  ring.counters.local_task_work_items = runs ? task_adds : 0;
  return ring;
}

TEST(DeferTw, LocalWorkThatNeverRan) {
  // 50 completions queued; nothing ran; the first has waited 2 s at the end.
  Ring ring = defer_ring(50, 0);
  ring.counters.local_task_work_pending_ns = 2 * kSecond;
  auto dtw = with_tag(evaluate(snapshot_of({ring}, 3 * kSecond)), "DEFER-TW");
  ASSERT_EQ(dtw.size(), 1u);
  const Finding& f = dtw[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_EQ(ev_int(f, "task_adds"), 50);
  EXPECT_EQ(ev_int(f, "local_task_work_runs"), 0);
  EXPECT_EQ(ev_int(f, "local_task_work_pending_ns"), 2'000'000'000);
  EXPECT_EQ(ev_int(f, "lag_threshold_ns"), 100'000'000);
  EXPECT_TRUE(contains(f.message, "never ran")) << f.message;
  EXPECT_TRUE(contains(f.message, "2s")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "io_uring_wait_cqe")) << f.suggestion;
  EXPECT_TRUE(contains(f.suggestion, "io_uring_get_events")) << f.suggestion;

  // No pending age recorded: still never ran.
  ring.counters.local_task_work_pending_ns = 0;
  EXPECT_EQ(with_tag(evaluate(snapshot_of({ring}, 3 * kSecond)), "DEFER-TW").size(), 1u);
}

TEST(DeferTw, WorkQueuedJustBeforeTheEndIsNoSign) {
  // Nothing ran yet, but the work is only 10 ms old.
  Ring ring = defer_ring(3, 0);
  ring.counters.local_task_work_pending_ns = 10 * kMs;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring})), "DEFER-TW").empty());
}

TEST(DeferTw, LagFromOneHundredMilliseconds) {
  Ring ring = defer_ring(1000, 800);
  ring.counters.local_task_work_max_lag_ns = 100 * kMs;
  auto dtw = with_tag(evaluate(snapshot_of({ring})), "DEFER-TW");
  ASSERT_EQ(dtw.size(), 1u);
  EXPECT_EQ(ev_int(dtw[0], "local_task_work_max_lag_ns"), 100'000'000);
  EXPECT_TRUE(contains(dtw[0].message, "waited up to 100ms")) << dtw[0].message;

  ring.counters.local_task_work_max_lag_ns = 100 * kMs - 1;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring})), "DEFER-TW").empty());

  // Work still waiting at the end for 250 ms counts too.
  ring.counters.local_task_work_pending_ns = 250 * kMs;
  auto pending = with_tag(evaluate(snapshot_of({ring})), "DEFER-TW");
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_TRUE(contains(pending[0].message, "still waiting")) << pending[0].message;
}

TEST(DeferTw, SilentWhenLocalWorkCannotBeSeen) {
  // task_adds with no local runs reads as "never ran", unless the kernel could not report
  // local runs at all.
  Ring ring = ring_with_ops(0, {});
  ring.setup_flags = kSetupDeferTaskrun;
  ring.counters.task_adds = 10;
  Snapshot s = snapshot_of({ring});
  s.kernel.features = {{"local_work", false, "no io_uring_local_work_run tracepoint"}};
  EXPECT_TRUE(with_tag(evaluate(s), "DEFER-TW").empty());
  s.kernel.features = {{"local_work", true, "io_uring_local_work_run(ctx, count, loops)"}};
  EXPECT_EQ(with_tag(evaluate(s), "DEFER-TW").size(), 1u);
}

TEST(DeferTw, OnlyDeferTaskrunRingsWithTaskWork) {
  Ring plain = defer_ring(50, 0);
  plain.setup_flags = 0;
  plain.counters.local_task_work_pending_ns = 2 * kSecond;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({plain})), "DEFER-TW").empty());

  Ring idle = defer_ring(0, 0);
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({idle})), "DEFER-TW").empty());
}

// --- SHORT-WRITE --------------------------------------------------------------------

TEST(ShortWrite, InfoWithTheShareOfWrites) {
  Ring ring = ring_with_ops(0, {op_row(kRead, 300, 0), op_row(kWrite, 100, 5)});
  ring.counters.short_writes = 5;
  auto sw = with_tag(evaluate(snapshot_of({ring})), "SHORT-WRITE");
  ASSERT_EQ(sw.size(), 1u);
  const Finding& f = sw[0];
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_EQ(ev_int(f, "short_writes"), 5);
  EXPECT_EQ(ev_int(f, "writes"), 100);
  EXPECT_DOUBLE_EQ(ev_real(f, "short_write_pct"), 5.0);
  EXPECT_TRUE(contains(f.message, "5.0% of 100")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "O_DIRECT")) << f.suggestion;
}

TEST(ShortWrite, SilentWithoutShortWrites) {
  Ring ring = ring_with_ops(0, {op_row(kWrite, 100, 0)});
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring})), "SHORT-WRITE").empty());
  // No write op row seen: no share, just the count.
  Ring no_rows{.id = 0};
  no_rows.counters.short_writes = 2;
  auto sw = with_tag(evaluate(snapshot_of({no_rows})), "SHORT-WRITE");
  ASSERT_EQ(sw.size(), 1u);
  EXPECT_EQ(find_evidence(sw[0], "short_write_pct"), nullptr);
}

// --- POLL-RETRY ---------------------------------------------------------------------

OpStats polled_row(uint32_t opcode, uint64_t submitted, uint64_t armed, uint64_t regular = 0) {
  OpStats op = op_row(opcode, submitted, 0);
  op.poll_armed = armed;
  op.poll_armed_regular = regular;
  return op;
}

TEST(PollRetry, SocketsAreInfo) {
  // 600 of 1,000 RECVs waited for data.
  auto pr = with_tag(evaluate(snapshot_of({ring_with_ops(0, {polled_row(kRecv, 1000, 600)})})),
                     "POLL-RETRY");
  ASSERT_EQ(pr.size(), 1u);
  const Finding& f = pr[0];
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_EQ(f.opcode, kRecv);
  EXPECT_DOUBLE_EQ(ev_real(f, "poll_pct"), 60.0);
  EXPECT_EQ(ev_int(f, "poll_armed"), 600);
  EXPECT_EQ(ev_int(f, "submitted"), 1000);
  EXPECT_TRUE(contains(f.message, "Normal for sockets")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "multishot")) << f.suggestion;
}

TEST(PollRetry, InfoThresholds) {
  auto fires = [](uint64_t submitted, uint64_t armed) {
    Snapshot s = snapshot_of({ring_with_ops(0, {polled_row(kRecv, submitted, armed)})});
    return !with_tag(evaluate(s), "POLL-RETRY").empty();
  };
  EXPECT_TRUE(fires(1000, 500));   // exactly 50 %
  EXPECT_FALSE(fires(1000, 499));
  EXPECT_FALSE(fires(63, 63));     // too few requests
  EXPECT_TRUE(fires(64, 32));
}

TEST(PollRetry, SendsGetSendAdvice) {
  auto pr = with_tag(evaluate(snapshot_of({ring_with_ops(0, {polled_row(kSend, 100, 80)})})),
                     "POLL-RETRY");
  ASSERT_EQ(pr.size(), 1u);
  EXPECT_TRUE(contains(pr[0].message, "buffer space")) << pr[0].message;
  EXPECT_TRUE(contains(pr[0].suggestion, "SO_SNDBUF")) << pr[0].suggestion;
}

TEST(PollRetry, RegularFilesAreNewsForDisk) {
  // 16 READs on regular files waited on poll: WARN even on a small op.
  auto pr = with_tag(evaluate(snapshot_of({ring_with_ops(0, {polled_row(kRead, 20, 16, 16)})})),
                     "POLL-RETRY");
  ASSERT_EQ(pr.size(), 1u);
  const Finding& f = pr[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.opcode, kRead);
  EXPECT_EQ(ev_int(f, "poll_armed_regular"), 16);
  EXPECT_EQ(ev_int(f, "poll_armed"), 16);
  EXPECT_EQ(ev_int(f, "submitted"), 20);
  EXPECT_TRUE(contains(f.message, "regular files")) << f.message;
  EXPECT_TRUE(contains(f.message, "FUSE")) << f.message;

  // 15 is a program reading a special file now and then.
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring_with_ops(0, {polled_row(kRead, 20, 15, 15)})})),
                       "POLL-RETRY")
                  .empty());
}

TEST(PollRetry, OneFindingPerRow) {
  // Both the share and the regular-file count cross: the WARN says it all.
  auto pr = with_tag(evaluate(snapshot_of({ring_with_ops(0, {polled_row(kRead, 1000, 900, 900)})})),
                     "POLL-RETRY");
  ASSERT_EQ(pr.size(), 1u);
  EXPECT_EQ(pr[0].severity, Severity::Warn);
}

// --- ERRORS -------------------------------------------------------------------------

OpStats failing_row(uint32_t opcode, uint64_t completed, std::vector<ErrnoCount> errnos,
                    uint64_t unrecorded = 0) {
  OpStats op = op_row(opcode, completed, 0);
  op.errors = unrecorded;
  for (const ErrnoCount& e : errnos) op.errors += e.count;
  op.errnos = std::move(errnos);
  return op;
}

TEST(Errors, NamesTheUnexpectedCodes) {
  // 1,000 READs: 100 EBADF, 20 ECANCELED. Unexpected 100 / 1000 = 10 %.
  Snapshot s = snapshot_of({ring_with_ops(
      0, {failing_row(kRead, 1000,
                      {{.err = EBADF, .count = 100}, {.err = ECANCELED, .count = 20}})})});
  auto errors = with_tag(evaluate(s), "ERRORS");
  ASSERT_EQ(errors.size(), 1u);
  const Finding& f = errors[0];
  EXPECT_EQ(f.severity, Severity::Warn);
  EXPECT_EQ(f.ring, 0u);
  EXPECT_EQ(f.opcode, kRead);
  EXPECT_DOUBLE_EQ(ev_real(f, "error_pct"), 10.0);
  EXPECT_EQ(ev_int(f, "errors"), 120);
  EXPECT_EQ(ev_int(f, "unexpected_errors"), 100);
  EXPECT_EQ(ev_int(f, "completed"), 1000);
  EXPECT_EQ(ev_int(f, "failed"), 0);
  EXPECT_EQ(ev_text(f, "top_errno"), "EBADF");
  EXPECT_EQ(ev_int(f, "top_errno_count"), 100);
  EXPECT_EQ(ev_text(f, "top_errnos"), "EBADF 100");
  EXPECT_TRUE(contains(f.message, "100 of 1,000 READ completions (10.0%)")) << f.message;
  EXPECT_FALSE(contains(f.message, "ECANCELED")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "EBADF: the fd was closed")) << f.suggestion;
}

TEST(Errors, AtMostThreeCodes) {
  // EINVAL 50, EFAULT 30, ENOBUFS 20, EIO 10 of 1,000: 110 unexpected, 11 %.
  Snapshot s = snapshot_of({ring_with_ops(0, {failing_row(kRecv, 1000,
                                                          {{.err = EINVAL, .count = 50},
                                                           {.err = EFAULT, .count = 30},
                                                           {.err = ENOBUFS, .count = 20},
                                                           {.err = EIO, .count = 10}})})});
  auto errors = with_tag(evaluate(s), "ERRORS");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_DOUBLE_EQ(ev_real(errors[0], "error_pct"), 11.0);
  EXPECT_EQ(ev_text(errors[0], "top_errnos"), "EINVAL 50, EFAULT 30, ENOBUFS 20");
  EXPECT_TRUE(contains(errors[0].message, "ENOBUFS 20, ...")) << errors[0].message;
  EXPECT_FALSE(contains(errors[0].message, "EIO")) << errors[0].message;
  EXPECT_TRUE(contains(errors[0].suggestion, "IORING_REGISTER_PROBE")) << errors[0].suggestion;
  EXPECT_TRUE(contains(errors[0].suggestion, "io_uring_buf_ring_add")) << errors[0].suggestion;
}

TEST(Errors, ExpectedCodesAreNotErrors) {
  auto silent = [](uint32_t opcode, int err) {
    Snapshot s = snapshot_of(
        {ring_with_ops(0, {failing_row(opcode, 100, {{.err = err, .count = 100}})})});
    return with_tag(evaluate(s), "ERRORS").empty();
  };
  EXPECT_TRUE(silent(kRead, ECANCELED));
  EXPECT_TRUE(silent(kPollAdd, ECANCELED));
  EXPECT_TRUE(silent(kTimeout, ETIME));
  EXPECT_TRUE(silent(kLinkTimeout, ETIME));
  EXPECT_TRUE(silent(kAsyncCancel, ENOENT));
  EXPECT_TRUE(silent(kAsyncCancel, EALREADY));
  EXPECT_TRUE(silent(kPollRemove, ENOENT));
  EXPECT_TRUE(silent(kTimeoutRemove, EALREADY));
  // ... only where they are expected.
  EXPECT_FALSE(silent(kRead, ETIME));
  EXPECT_FALSE(silent(kOpenat, ENOENT));
  EXPECT_FALSE(silent(kTimeout, ENOENT));
}

TEST(Errors, Thresholds) {
  auto fires = [](uint64_t completed, uint64_t bad) {
    Snapshot s = snapshot_of({ring_with_ops(
        0, {failing_row(kSend, completed, {{.err = ECONNRESET, .count = bad}})})});
    return !with_tag(evaluate(s), "ERRORS").empty();
  };
  EXPECT_FALSE(fires(10, 9));    // 90 %, but only 9
  EXPECT_TRUE(fires(10, 10));
  EXPECT_TRUE(fires(200, 10));   // exactly 5 %
  EXPECT_FALSE(fires(201, 10));  // 4.98 %
}

TEST(Errors, RejectedBeforeIssue) {
  // The injector's badop scenario: 100 SQEs with an unknown opcode, all -EINVAL.
  OpStats op = failing_row(kOpcodeOther, 100, {{.err = EINVAL, .count = 100}});
  op.failed = 100;
  auto errors = with_tag(evaluate(snapshot_of({ring_with_ops(0, {op})})), "ERRORS");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(ev_int(errors[0], "failed"), 100);
  EXPECT_EQ(ev_text(errors[0], "top_errno"), "EINVAL");
  EXPECT_DOUBLE_EQ(ev_real(errors[0], "error_pct"), 100.0);
  EXPECT_TRUE(contains(errors[0].message, "100 were rejected before issue")) << errors[0].message;
  EXPECT_TRUE(contains(errors[0].suggestion, "io_uring_get_probe")) << errors[0].suggestion;

  // Rejected with another code: the probe advice is added.
  OpStats other = failing_row(kRead, 100, {{.err = EBADF, .count = 20}});
  other.failed = 20;
  auto e2 = with_tag(evaluate(snapshot_of({ring_with_ops(0, {other})})), "ERRORS");
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_TRUE(contains(e2[0].suggestion, "rejected before issue")) << e2[0].suggestion;
}

TEST(Errors, UnrecordedCodesCountAsUnexpected) {
  // 30 errors, no code recorded (errno table full).
  Snapshot s = snapshot_of({ring_with_ops(0, {failing_row(kRead, 100, {}, 30)})});
  auto errors = with_tag(evaluate(s), "ERRORS");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(ev_int(errors[0], "unexpected_errors"), 30);
  EXPECT_EQ(find_evidence(errors[0], "top_errno"), nullptr);
  EXPECT_TRUE(contains(errors[0].message, "not recorded")) << errors[0].message;
  EXPECT_TRUE(contains(errors[0].suggestion, "man pages")) << errors[0].suggestion;
}

// --- LEAK ---------------------------------------------------------------------------

PendingRequest pending(uint32_t ring, uint32_t opcode, uint64_t age_ns, uint64_t user_data,
                       RequestWhere where, bool waiting = false, bool abandoned = false) {
  return PendingRequest{.ring = ring,
                        .opcode = opcode,
                        .age_ns = age_ns,
                        .user_data = user_data,
                        .where = where,
                        .abandoned = abandoned,
                        .waiting = waiting};
}

TEST(Leak, ParentThenOneRowPerRingAndOp) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320), busy_ring(1, 10, 320)}, 60 * kSecond);
  s.leak = LeakInfo{
      .threshold_ns = 10 * kSecond,
      .suspected = 3,
      .pending = 1,
      .oldest_ns = 40 * kSecond,
      .requests = {pending(0, kRecv, 40 * kSecond, 0x99, RequestWhere::Poll, true),
                   pending(0, kOpenat, 30 * kSecond, 0x10, RequestWhere::IoWq),
                   pending(0, kOpenat, 20 * kSecond, 0x11, RequestWhere::IoWq),
                   pending(1, kRead, 15 * kSecond, 0x20, RequestWhere::Issued, false, true)},
  };
  auto leak = with_tag(evaluate(s), "LEAK");
  ASSERT_EQ(leak.size(), 3u);

  const Finding& parent = leak[0];
  EXPECT_EQ(parent.severity, Severity::Warn);
  EXPECT_FALSE(parent.ring.has_value());
  EXPECT_FALSE(parent.opcode.has_value());
  EXPECT_EQ(ev_int(parent, "suspected"), 3);
  EXPECT_EQ(ev_int(parent, "pending"), 1);
  EXPECT_EQ(ev_int(parent, "oldest_ns"), 30'000'000'000);  // the oldest suspected, not the RECV
  EXPECT_EQ(ev_int(parent, "threshold_ns"), 10'000'000'000);
  EXPECT_TRUE(contains(parent.message, "leak age (10s)")) << parent.message;

  const Finding& open = leak[1];
  EXPECT_EQ(open.severity, Severity::Warn);
  EXPECT_EQ(open.ring, 0u);
  EXPECT_EQ(open.opcode, kOpenat);
  EXPECT_EQ(ev_int(open, "count"), 2);
  EXPECT_EQ(ev_int(open, "oldest_ns"), 30'000'000'000);
  EXPECT_EQ(ev_text(open, "user_data"), "0x10, 0x11");
  EXPECT_EQ(ev_text(open, "where"), "io-wq 2");
  EXPECT_EQ(ev_int(open, "abandoned"), 0);
  EXPECT_TRUE(contains(open.suggestion, "io_uring_prep_cancel64")) << open.suggestion;
  EXPECT_TRUE(contains(open.suggestion, "IOSQE_IO_LINK")) << open.suggestion;

  const Finding& read = leak[2];
  EXPECT_EQ(read.ring, 1u);
  EXPECT_EQ(read.opcode, kRead);
  EXPECT_EQ(ev_int(read, "abandoned"), 1);
  EXPECT_EQ(ev_text(read, "where"), "issued 1");
  EXPECT_TRUE(contains(read.message, "abandoned")) << read.message;
  EXPECT_TRUE(contains(read.suggestion, "before exit")) << read.suggestion;
  EXPECT_FALSE(contains(read.suggestion, "linked timeout")) << read.suggestion;
}

TEST(Leak, AtMostFourUserDataPerRow) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320)});
  s.leak.threshold_ns = kSecond;
  s.leak.suspected = 6;
  for (uint64_t i = 0; i < 6; ++i)
    s.leak.requests.push_back(pending(0, kRead, (10 - i) * kSecond, 0xa0 + i,
                                      i < 4 ? RequestWhere::IoWq : RequestWhere::Issued));
  auto leak = with_tag(evaluate(s), "LEAK");
  ASSERT_EQ(leak.size(), 2u);
  EXPECT_EQ(ev_int(leak[1], "count"), 6);
  EXPECT_EQ(ev_text(leak[1], "user_data"), "0xa0, 0xa1, 0xa2, 0xa3");  // the oldest four
  EXPECT_EQ(ev_text(leak[1], "where"), "issued 2, io-wq 4");
  EXPECT_EQ(ev_int(leak[1], "oldest_ns"), 10'000'000'000);
}

TEST(Leak, SuspectedWithoutRecords) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320)});
  s.leak = LeakInfo{
      .threshold_ns = kSecond, .suspected = 2, .pending = 0, .oldest_ns = 7 * kSecond};
  auto leak = with_tag(evaluate(s), "LEAK");
  ASSERT_EQ(leak.size(), 1u);
  EXPECT_EQ(ev_int(leak[0], "oldest_ns"), 7'000'000'000);
  EXPECT_TRUE(contains(leak[0].suggestion, "leaks_suspected")) << leak[0].suggestion;
}

TEST(Leak, OnlyWaitingRequestsAreInfo) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320)});
  s.leak = LeakInfo{
      .threshold_ns = 5 * kSecond,
      .suspected = 0,
      .pending = 3,
      .oldest_ns = 9 * kSecond,
      .requests = {pending(0, kRecv, 9 * kSecond, 1, RequestWhere::Poll, true),
                   pending(0, kAccept, 8 * kSecond, 2, RequestWhere::Poll, true),
                   pending(0, kRecv, 6 * kSecond, 3, RequestWhere::Poll, true)},
  };
  auto leak = with_tag(evaluate(s), "LEAK");
  ASSERT_EQ(leak.size(), 1u);
  const Finding& f = leak[0];
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_FALSE(f.ring.has_value());
  EXPECT_EQ(ev_int(f, "pending"), 3);
  EXPECT_EQ(ev_int(f, "oldest_ns"), 9'000'000'000);
  EXPECT_EQ(ev_int(f, "threshold_ns"), 5'000'000'000);
  EXPECT_EQ(ev_text(f, "ops"), "RECV 2, ACCEPT 1");
  EXPECT_TRUE(contains(f.message, "idle sockets")) << f.message;
  EXPECT_TRUE(contains(f.message, "a hang if the program is waiting on them")) << f.message;
}

TEST(Leak, SilentWithNothingOld) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320)});
  s.leak.threshold_ns = 5 * kSecond;
  EXPECT_TRUE(with_tag(evaluate(s), "LEAK").empty());
}

// --- TOOL ---------------------------------------------------------------------------

TEST(Tool, UntrackedCompletionsFromOnePercent) {
  Ring ring = busy_ring(0, 100, 3200);  // 32 per call: no BATCH
  ring.counters.completions = 1000;
  ring.counters.untracked_completions = 10;  // 10 / 1000 = 1 %
  auto tool = with_tag(evaluate(snapshot_of({ring})), "TOOL");
  ASSERT_EQ(tool.size(), 1u);
  const Finding& f = tool[0];
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_FALSE(f.ring.has_value());
  EXPECT_EQ(ev_int(f, "untracked_completions"), 10);
  EXPECT_EQ(ev_int(f, "completions"), 1000);
  EXPECT_DOUBLE_EQ(ev_real(f, "untracked_pct"), 1.0);
  EXPECT_TRUE(contains(f.message, "tracked requests only")) << f.message;

  ring.counters.untracked_completions = 9;  // 0.9 %
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({ring})), "TOOL").empty());
}

TEST(Tool, UntrackedShareIsOverAllRings) {
  // 8 of 400 on ring 0 (2 %) but 8 of 1000 overall (0.8 %): the share is the report's.
  Ring a = busy_ring(0, 10, 400);
  a.counters.untracked_completions = 8;
  Ring b = busy_ring(1, 10, 600);
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({a, b})), "TOOL").empty());
}

TEST(Tool, OneFindingPerCause) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320)});
  s.rings[0].counters.inflight_map_drops = 3;
  s.tool = ToolStats{.rings_full = 1,
                     .opstats_full = 2,
                     .op_out_of_range = 4,
                     .enter_no_ring = 17,
                     .overflow_no_req = 5,
                     .errno_full = 6,
                     .threads_full = 7};
  auto tool = with_tag(evaluate(s), "TOOL");
  ASSERT_EQ(tool.size(), 8u);
  std::set<std::string> keys;
  for (const Finding& f : tool) {
    EXPECT_EQ(f.severity, Severity::Info);
    EXPECT_TRUE(contains(f.message, "tracked requests only")) << f.message;
    ASSERT_EQ(f.evidence.size(), 1u);
    keys.insert(f.evidence[0].key);
  }
  EXPECT_EQ(keys, (std::set<std::string>{"inflight_map_drops", "rings_full", "opstats_full",
                                         "op_out_of_range", "overflow_no_req",
                                         "enter_no_ring", "errno_full", "threads_full"}));
  EXPECT_EQ(ev_int(tool[0], "inflight_map_drops"), 3);
  for (const Finding& f : tool) {
    if (f.evidence[0].key == "errno_full") {
      EXPECT_EQ(ev_int(f, "errno_full"), 6);
      EXPECT_TRUE(contains(f.message, "ERRORS")) << f.message;
    }
    if (f.evidence[0].key == "threads_full") {
      EXPECT_EQ(ev_int(f, "threads_full"), 7);
      EXPECT_TRUE(contains(f.message, "worker counts read low")) << f.message;
    }
  }
}

TEST(Tool, AFewUnresolvedEntersAreExpected) {
  Snapshot s = snapshot_of({busy_ring(0, 10, 320)});
  s.tool.enter_no_ring = 16;
  EXPECT_TRUE(with_tag(evaluate(s), "TOOL").empty());
}

// --- NODATA -------------------------------------------------------------------------

TEST(NoData, NoRingsAtAll) {
  auto findings = evaluate(snapshot_of({}, 10 * kSecond));
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.tag, "NODATA");
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_FALSE(f.ring.has_value());
  EXPECT_EQ(ev_int(f, "rings"), 0);
  EXPECT_EQ(ev_int(f, "wall_ns"), 10'000'000'000);
  EXPECT_TRUE(contains(f.message, "10.0 s")) << f.message;
  EXPECT_TRUE(contains(f.suggestion, "seccomp")) << f.suggestion;
  EXPECT_TRUE(contains(f.suggestion, "UV_USE_IO_URING=1")) << f.suggestion;
  EXPECT_TRUE(contains(f.suggestion, "-d")) << f.suggestion;
}

TEST(NoData, IdleRingsCountAsNothing) {
  Ring idle{.id = 0, .fd = 7, .sq_entries = 64, .cq_entries = 128, .source = RingSource::FdTable};
  auto nodata = with_tag(evaluate(snapshot_of({idle, Ring{.id = 1}})), "NODATA");
  ASSERT_EQ(nodata.size(), 1u);
  EXPECT_EQ(ev_int(nodata[0], "rings"), 2);
}

TEST(NoData, AnyActivitySilencesIt) {
  Ring completions_only{.id = 0};
  completions_only.counters.completions = 1;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({completions_only})), "NODATA").empty());

  Ring enters_only{.id = 0};
  enters_only.counters.enter_calls = 1;
  EXPECT_TRUE(with_tag(evaluate(snapshot_of({enters_only})), "NODATA").empty());

  Snapshot unresolved = snapshot_of({});
  unresolved.tool.enter_no_ring = 3;
  EXPECT_TRUE(with_tag(evaluate(unresolved), "NODATA").empty());
}

// --- the whole engine ---------------------------------------------------------------

TEST(Evaluate, HealthyWorkloadIsSilent) {
  // 1024 SQEs in 32-SQE batches, no punts, nothing untracked.
  Ring small = busy_ring(0, 32, 1024);
  small.ops = {op_row(kRead, 512, 0), op_row(kWrite, 512, 0)};
  EXPECT_TRUE(evaluate(snapshot_of({small})).empty());

  // The same shape on a ring busy enough for BATCH to look: 64,000 SQEs in 2,000 calls
  // in 1 s, a few cold-cache punts (1 %), 0.5 % untracked.
  Ring busy = busy_ring(1, 2000, 64'000);
  busy.ops = {op_row(kRead, 32'000, 320), op_row(kWrite, 32'000, 0)};
  busy.counters.punted = 320;
  busy.counters.untracked_completions = 320;
  EXPECT_TRUE(evaluate(snapshot_of({small, busy})).empty());
}

// The three clean workloads with realistic numbers: nothing at WARN or above. Each is
// also a ring a user would call healthy, so the INFO findings allowed are named.
std::vector<Finding> warn_or_worse(const std::vector<Finding>& all) {
  std::vector<Finding> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [](const Finding& f) { return f.severity >= Severity::Warn; });
  return out;
}

std::string describe(const std::vector<Finding>& findings) {
  std::string text;
  for (const Finding& f : findings)
    text += fmt::format("[{} {}] {}\n", severity_name(f.severity), f.tag, f.message);
  return text;
}

Snapshot batched_nops() {
  // 1,000,000 NOPs in 32-SQE batches over 1 s: 31,250 submitting calls, no punts, the
  // CQ (512) reaped every batch.
  Ring ring = busy_ring(0, 31'250, 1'000'000);
  ring.pid = 1000;
  ring.ops = {op_row(kNop, 1'000'000, 0)};
  ring.ops[0].latency.buckets[9] = 1'000'000;  // ~0.5-1 us
  return snapshot_of({ring});
}

Snapshot batched_page_cache_reads() {
  // 200,000 4 KiB reads of a cached file, 16 per submit over 2 s. A few first reads
  // missed the cache (40 punts on a regular file), io-wq started 4 workers for them.
  Ring ring = busy_ring(0, 12'500, 200'000);
  ring.pid = 2000;
  OpStats read = op_row(kRead, 200'000, 40);
  read.punt_reasons.regular_file = 40;
  read.latency.buckets[11] = 200'000;
  ring.ops = {read};
  ring.counters.punted = 40;
  ring.counters.workers_distinct = 4;
  Snapshot s = snapshot_of({ring}, 2 * kSecond);
  s.workers = {{.pid = 2000, .distinct = 4}};
  return s;
}

Snapshot socket_echo() {
  // An echo server on a DEFER_TASKRUN ring over 10 s: 64 connections accepted, 100,000
  // messages received and sent back. 60 % of the receives found no data yet and waited on
  // poll; 200 sends waited for buffer space; 4 clients reset their connections. Local
  // task work ran promptly (worst 3 ms). One ACCEPT still waits for a 65th client.
  Ring ring = busy_ring(0, 50'000, 200'064);
  ring.pid = 3000;
  ring.comm = "echo";
  ring.setup_flags = kSetupDeferTaskrun | kSetupSingleIssuer;
  ring.counters.completions = 200'063;
  OpStats accept = polled_row(kAccept, 65, 65);
  accept.completed = 64;
  OpStats recv = polled_row(kRecv, 100'000, 60'000);
  recv.errors = 4;
  recv.errnos = {{.err = ECONNRESET, .count = 4}};
  OpStats send = polled_row(kSend, 100'000, 200);
  ring.ops = {accept, send, recv};  // ascending opcode
  ring.counters.poll_armed = 60'265;
  ring.counters.task_adds = 60'265;
  ring.counters.local_task_work_runs = 45'000;
  ring.counters.local_task_work_items = 60'265;
  ring.counters.local_task_work_max_lag_ns = 3 * kMs;
  ring.counters.errors = 4;
  Snapshot s = snapshot_of({ring}, 10 * kSecond);
  s.leak = LeakInfo{.threshold_ns = 5 * kSecond,
                    .pending = 1,
                    .oldest_ns = 7 * kSecond,
                    .requests = {pending(0, kAccept, 7 * kSecond, 65, RequestWhere::Poll, true)}};
  return s;
}

TEST(Evaluate, BatchedNopsAreSilent) {
  auto findings = evaluate(batched_nops());
  EXPECT_TRUE(findings.empty()) << describe(findings);
}

TEST(Evaluate, BatchedPageCacheReadsAreSilent) {
  auto findings = evaluate(batched_page_cache_reads());
  EXPECT_TRUE(findings.empty()) << describe(findings);
}

TEST(Evaluate, SocketEchoIsAtMostInfo) {
  auto findings = evaluate(socket_echo());
  EXPECT_TRUE(warn_or_worse(findings).empty()) << describe(findings);
  // Allowed: receives waiting on poll, and the idle ACCEPT.
  std::set<std::string> tags;
  for (const Finding& f : findings) tags.insert(f.tag);
  EXPECT_EQ(tags, (std::set<std::string>{"POLL-RETRY", "LEAK"})) << describe(findings);
  auto pr = with_tag(findings, "POLL-RETRY");
  ASSERT_EQ(pr.size(), 2u);
  EXPECT_EQ(pr[0].opcode, kAccept);  // 65 of 65: a listener waits for clients
  EXPECT_TRUE(contains(pr[0].message, "a pending connection")) << pr[0].message;
  EXPECT_TRUE(contains(pr[0].suggestion, "multishot accept")) << pr[0].suggestion;
  EXPECT_EQ(pr[1].opcode, kRecv);    // 60,000 of 100,000
  EXPECT_DOUBLE_EQ(ev_real(pr[1], "poll_pct"), 60.0);
  auto leak = with_tag(findings, "LEAK");
  ASSERT_EQ(leak.size(), 1u);
  EXPECT_EQ(ev_text(leak[0], "ops"), "ACCEPT 1");
}

TEST(Evaluate, CleanWorkloadsTogetherStaySilentAtWarn) {
  // The three as rings of one snapshot, as under -a.
  Snapshot nops = batched_nops();
  Snapshot reads = batched_page_cache_reads();
  Snapshot echo = socket_echo();
  std::vector<Ring> rings = {nops.rings[0], reads.rings[0], echo.rings[0]};
  for (uint32_t i = 0; i < rings.size(); ++i) rings[i].id = i;
  Snapshot all = snapshot_of(rings, 10 * kSecond);
  all.workers = reads.workers;
  all.leak = echo.leak;
  all.leak.requests[0].ring = 2;
  auto findings = evaluate(all);
  EXPECT_TRUE(warn_or_worse(findings).empty()) << describe(findings);
}

TEST(Evaluate, OrderIsSeverityThenRingThenTag) {
  // ring 0: READ punts 50 % (WARN) and 1.8 per call (INFO BATCH);
  // ring 1: 1.0 per call (WARN BATCH) and an overflow (CRIT); all rings: 2 % untracked
  // (INFO TOOL).
  Ring r0 = busy_ring(0, 1000, 1800);
  r0.ops = {op_row(kNop, 1700, 0), op_row(kRead, 100, 50)};
  Ring r1 = busy_ring(1, 1000, 1000);
  r1.ops = {op_row(kNop, 1000, 0)};
  r1.counters.untracked_completions = 56;  // 56 / 2800 = 2 %
  r1.counters.cq_overflows = 2;
  auto findings = evaluate(snapshot_of({r0, r1}));

  std::vector<std::string> got;
  for (const Finding& f : findings)
    got.push_back(fmt::format("{} {} {}", severity_name(f.severity), f.tag,
                              f.ring ? std::to_string(*f.ring) : "-"));
  EXPECT_EQ(got, (std::vector<std::string>{"CRIT OVERFLOW 1", "WARN PUNT 0", "WARN BATCH 1",
                                           "INFO TOOL -", "INFO BATCH 0"}));
}

TEST(Evaluate, ToolAndNoDataNeverExceedInfo) {
  Snapshot s = snapshot_of({});
  s.tool = ToolStats{.rings_full = 9, .opstats_full = 9, .op_out_of_range = 9,
                     .enter_no_ring = 0, .overflow_no_req = 9};
  for (const Finding& f : evaluate(s)) {
    if (f.tag == "TOOL" || f.tag == "NODATA") {
      EXPECT_EQ(f.severity, Severity::Info) << f.tag;
    }
  }
}

// The remedy for a full ring table fits the run: -a can narrow its target; a run of one
// process tree cannot, and whether destroyed rings keep their rows decides the rest.
TEST(Evaluate, FullRingTableAdviceFitsTheCause) {
  auto advice = [](TargetMode mode, std::optional<bool> ring_exit) {
    Snapshot s = snapshot_of({});
    s.target.mode = mode;
    if (ring_exit) s.kernel.features = {{"ring_exit", *ring_exit, ""}};
    s.tool = ToolStats{.rings_full = 3};
    for (const Finding& f : evaluate(s))
      if (f.tag == "TOOL") return f.suggestion;
    return std::string("(no TOOL finding)");
  };
  EXPECT_TRUE(advice(TargetMode::All, true).starts_with("Narrow the target (-p PID instead of -a)"));
  EXPECT_TRUE(advice(TargetMode::Command, false).starts_with(
      "The traced processes created more rings than the table holds (a destroyed ring keeps its row)"));
  EXPECT_TRUE(advice(TargetMode::Pid, std::nullopt).starts_with(
      "The traced processes created more rings than the table holds"));
  EXPECT_TRUE(advice(TargetMode::Command, true).starts_with(
      "The traced processes had more rings open at once than the table holds (destroyed rings "
      "give their rows back)"));
}

// --- the threshold table ------------------------------------------------------------

TEST(Thresholds, EveryIdExactlyOnce) {
  auto table = all_thresholds();
  ASSERT_EQ(table.size(), kThresholdCount);
  for (std::size_t i = 0; i < kThresholdCount; ++i) {
    auto id = static_cast<ThresholdId>(i);
    EXPECT_EQ(std::count_if(table.begin(), table.end(),
                            [id](const Threshold& t) { return t.id == id; }),
              1)
        << "id " << i;
    EXPECT_EQ(threshold(id).id, id);
  }
}

TEST(Thresholds, EntriesAreComplete) {
  std::set<std::string_view> names;
  for (const Threshold& t : all_thresholds()) {
    EXPECT_TRUE(names.insert(t.name).second) << "duplicate name " << t.name;
    EXPECT_FALSE(t.tag.empty()) << t.name;
    EXPECT_FALSE(t.unit.empty()) << t.name;
    EXPECT_GT(t.value, 0.0) << t.name;
    EXPECT_GT(t.reason.size(), 80u) << t.name << ": the reason must justify the number";
  }
  EXPECT_LT(threshold_value(ThresholdId::BatchWarnBelow),
            threshold_value(ThresholdId::BatchInfoBelow));
}

std::string read_findings_doc() {
  const auto root = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  std::ifstream in(root / "docs/findings.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Thresholds, DocumentedWithTheirValues) {
  const std::string doc = read_findings_doc();
  ASSERT_FALSE(doc.empty()) << "docs/findings.md not found next to test/";
  for (const Threshold& t : all_thresholds()) {
    // The table row: | `name` | value | unit | ...
    const std::string row = fmt::format("| `{}` | {} | {} |", t.name, t.value, t.unit);
    EXPECT_TRUE(contains(doc, row)) << "docs/findings.md lacks the row " << row;
  }
}

TEST(Thresholds, DocumentsEveryImplementedTag) {
  const std::string doc = read_findings_doc();
  for (std::string_view tag : {"OVERFLOW", "PUNT", "WORKERS", "BATCH", "SQPOLL", "DEFER-TW",
                               "SHORT-WRITE", "POLL-RETRY", "ERRORS", "LEAK", "TOOL", "NODATA"})
    EXPECT_TRUE(contains(doc, fmt::format("## {}", tag))) << tag;
}

TEST(FindingTags, ThresholdsBelongToKnownTagsAndTagsAreUnique) {
  std::set<std::string_view> tags(kFindingTags.begin(), kFindingTags.end());
  EXPECT_EQ(tags.size(), kFindingTags.size());
  for (const Threshold& t : all_thresholds())
    EXPECT_TRUE(tags.count(t.tag) || t.tag == kEveryTag) << t.name;
}

// --- findings that name the files behind them (Ring::files) -------------------------

using file_test::file_row;

TEST(FileBlame, PuntNamesTheFilesMostPuntsWereOn) {
  // 100 of 200 READs punted on page-cache misses: 70 on data.0, 20 on data.1, 10 on data.2.
  Ring ring = ring_with_ops(0, {punted_row(kRead, 200, {.regular_file = 100})});
  ring.files = {file_row("/db/data.1", kRead, 60, 20), file_row("/db/data.0", kRead, 100, 70),
                file_row("/db/data.2", kRead, 30, 10), file_row("/db/cold", kRead, 10, 0),
                file_row("/db/log", kWrite, 50, 50)};
  auto punts = with_tag(evaluate(snapshot_of({ring})), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  const Finding& f = punts[0];
  EXPECT_NE(f.message.find(" Most on /db/data.0 (70 of 100 punted), /db/data.1 (20), /db/data.2 (10)."),
            std::string::npos)
      << f.message;
  EXPECT_EQ(ev_text(f, "file"), "/db/data.0");
  EXPECT_DOUBLE_EQ(ev_real(f, "file_pct"), 70.0);
  EXPECT_EQ(ev_int(f, "o_direct"), 0);
  EXPECT_NE(f.suggestion.find("O_DIRECT"), std::string::npos);  // buffered: O_DIRECT is a fix
}

TEST(FileBlame, ADirectWriteIsNotCalledAPageCacheProblem) {
  // Every WRITE on an O_DIRECT file, punted as regular-file work (block allocation).
  Ring ring = ring_with_ops(0, {punted_row(kWrite, 100, {.regular_file = 100})});
  ring.files = {file_row("/db/sparse", kWrite, 100, 100, 0, 100)};
  auto punts = with_tag(evaluate(snapshot_of({ring})), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  const Finding& f = punts[0];
  EXPECT_NE(f.message.find(" All on /db/sparse."), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("opened O_DIRECT"), std::string::npos) << f.message;
  EXPECT_EQ(ev_int(f, "o_direct"), 1);
  EXPECT_NE(f.suggestion.find("use O_DIRECT already"), std::string::npos) << f.suggestion;
  EXPECT_NE(f.suggestion.find("fallocate()"), std::string::npos) << f.suggestion;
  EXPECT_EQ(f.suggestion.find("Write with O_DIRECT"), std::string::npos) << f.suggestion;
}

TEST(FileBlame, OneBufferedFileAmongDirectOnesKeepsTheUsualAdvice) {
  Ring ring = ring_with_ops(0, {punted_row(kRead, 100, {.regular_file = 100})});
  ring.files = {file_row("/db/direct", kRead, 50, 50, 0, 50), file_row("/db/buffered", kRead, 50, 50)};
  auto punts = with_tag(evaluate(snapshot_of({ring})), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(ev_int(punts[0], "o_direct"), 0);
  EXPECT_EQ(punts[0].message.find("opened O_DIRECT"), std::string::npos);
}

TEST(FileBlame, ErrorsNameTheirFileAndStaySilentAboutFilesWithoutRows) {
  Ring ring = ring_with_ops(0, {failing_row(kRead, 1000, {{.err = EBADF, .count = 100}})});
  auto plain = with_tag(evaluate(snapshot_of({ring})), "ERRORS");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].message.find(" on "), std::string::npos) << plain[0].message;
  EXPECT_EQ(find_evidence(plain[0], "file"), nullptr);

  ring.files = {file_row("/db/gone", kRead, 400, 0, 90), file_row("/db/ok", kRead, 590, 0, 10),
                file_row("/db/other", kRead, 5, 0, 0)};
  auto named = with_tag(evaluate(snapshot_of({ring})), "ERRORS");
  ASSERT_EQ(named.size(), 1u);
  EXPECT_NE(named[0].message.find(" Most on /db/gone (90 of 100 errors), /db/ok (10)."),
            std::string::npos)
      << named[0].message;
  EXPECT_EQ(ev_text(named[0], "file"), "/db/gone");
}

TEST(FileBlame, PastThreeFilesTheRestAreCounted) {
  Ring ring = ring_with_ops(0, {punted_row(kRead, 100, {.regular_file = 50})});
  for (int i = 0; i < 5; ++i) ring.files.push_back(file_row("/f" + std::to_string(i), kRead, 20, 10));
  auto punts = with_tag(evaluate(snapshot_of({ring})), "PUNT");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_NE(punts[0].message.find(" and 2 more files."), std::string::npos) << punts[0].message;
}

}  // namespace
}  // namespace uringscope
