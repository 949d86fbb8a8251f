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

#include "uringscope/findings.h"
#include "uringscope/opcodes.h"
#include "uringscope/thresholds.h"

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
constexpr uint32_t kRead = 22;
constexpr uint32_t kWrite = 23;
constexpr uint32_t kSend = 26;
constexpr uint64_t kSecond = 1'000'000'000;

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
  EXPECT_TRUE(contains(f.suggestion, "Likely")) << f.suggestion;
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
                     .overflow_no_req = 5};
  auto tool = with_tag(evaluate(s), "TOOL");
  ASSERT_EQ(tool.size(), 6u);
  std::set<std::string> keys;
  for (const Finding& f : tool) {
    EXPECT_EQ(f.severity, Severity::Info);
    EXPECT_TRUE(contains(f.message, "tracked requests only")) << f.message;
    ASSERT_EQ(f.evidence.size(), 1u);
    keys.insert(f.evidence[0].key);
  }
  EXPECT_EQ(keys, (std::set<std::string>{"inflight_map_drops", "rings_full", "opstats_full",
                                         "op_out_of_range", "overflow_no_req",
                                         "enter_no_ring"}));
  EXPECT_EQ(ev_int(tool[0], "inflight_map_drops"), 3);
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

TEST(Evaluate, OrderIsSeverityThenRingThenTag) {
  // ring 0: READ punts 50 % (WARN) and 1.8 per call (INFO BATCH);
  // ring 1: 1.0 per call (WARN BATCH); all rings: 2 % untracked (INFO TOOL).
  Ring r0 = busy_ring(0, 1000, 1800);
  r0.ops = {op_row(kNop, 1700, 0), op_row(kRead, 100, 50)};
  Ring r1 = busy_ring(1, 1000, 1000);
  r1.ops = {op_row(kNop, 1000, 0)};
  r1.counters.untracked_completions = 56;  // 56 / 2800 = 2 %
  auto findings = evaluate(snapshot_of({r0, r1}));

  std::vector<std::string> got;
  for (const Finding& f : findings)
    got.push_back(fmt::format("{} {} {}", severity_name(f.severity), f.tag,
                              f.ring ? std::to_string(*f.ring) : "-"));
  EXPECT_EQ(got, (std::vector<std::string>{"WARN PUNT 0", "WARN BATCH 1", "INFO TOOL -",
                                           "INFO BATCH 0"}));
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
  for (std::string_view tag : {"PUNT", "BATCH", "TOOL", "NODATA"})
    EXPECT_TRUE(contains(doc, fmt::format("## {}", tag))) << tag;
}

}  // namespace
}  // namespace uringscope
