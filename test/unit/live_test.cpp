// SPDX-License-Identifier: MIT
// Live mode (-i): interval deltas of cumulative readings, and the iostat-style view.
// Every expected number is worked out by hand in the comments next to it, from the
// fixture's values and the rules in include/uringscope/live.h; none is copied from the
// code's output.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "report/live.h"
#include "snapshot/delta.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"

namespace uringscope::live_test {
namespace {

constexpr uint32_t kNop = 0, kFsync = 3, kRead = 22, kWrite = 23, kRecv = 27;
constexpr uint64_t kCtxA = 0xffff888000a00000, kCtxB = 0xffff888000b00000,
                   kCtxC = 0xffff888000c00000;

Ring ring(uint32_t id, uint64_t ctx, std::string comm, uint32_t pid) {
  Ring r;
  r.id = id;
  r.ctx = ctx;
  r.comm = std::move(comm);
  r.pid = pid;
  r.fd = 5;
  return r;
}

OpStats op(uint32_t opcode, uint64_t submitted, uint64_t completed, uint64_t punted = 0,
           uint64_t errors = 0) {
  OpStats o;
  o.opcode = opcode;
  o.submitted = submitted;
  o.completed = completed;
  o.punted = punted;
  o.errors = errors;
  return o;
}

const OpStats* find_op(const Ring& r, uint32_t opcode) {
  for (const OpStats& o : r.ops)
    if (o.opcode == opcode) return &o;
  return nullptr;
}

const Ring* find_ring(const Snapshot& s, uint64_t ctx) {
  for (const Ring& r : s.rings)
    if (r.ctx == ctx) return &r;
  return nullptr;
}

Ring& find_ring_mut(Snapshot& s, uint64_t ctx) {
  for (Ring& r : s.rings)
    if (r.ctx == ctx) return r;
  ADD_FAILURE() << "no ring with ctx " << ctx;
  return s.rings.front();
}

// --- snapshot_delta: a hand-built pair -----------------------------------------------
//
// before (wall 1s):
//   #0 ctx A app pid 100
//      READ  submitted 100, completed 90, punted 10 (8 regular file, 2 eagain),
//            errors 2 (EIO 2); latency 90 in bucket 10, sum 120,000, max 1,500
//      WRITE submitted 5, completed 5; latency 5 in bucket 12, max 5,000
//      counters: enter 50, submitting enters 20, SQEs 105, CQEs 95, CQ overflows 1,
//                local TW runs 3, max lag 5,000, pending 700, workers 4, leaks 2 + 1
//   #1 ctx B db pid 200
//      FSYNC submitted 7, completed 7; enter 7
// after (wall 3s): the ring with ctx C is new and sorts first, so ids shift:
//   #0 ctx C new pid 300: READ submitted 10, completed 10, latency 10 in bucket 9
//   #1 ctx B db pid 200: unchanged
//   #2 ctx A app pid 100
//      READ  submitted 200, completed 190, punted 15 (12 regular file, 3 eagain),
//            errors 5 (EBADF 2, EIO 3); latency +60 in bucket 10, +40 in bucket 12,
//            sum 520,000, max 10,000
//      WRITE unchanged
//      NOP   new: submitted 3, completed 3, no latency
//      counters: enter 80, submitting enters 45, SQEs 208, CQEs 198, CQ overflows 4,
//                local TW runs 3 (none in the interval), max lag 9,000 (grew),
//                pending 300, workers 6, leaks 5 + 1
Snapshot before_fixture() {
  Snapshot s;
  s.wall_ns = 1'000'000'000;
  s.leak.threshold_ns = 500'000'000;
  Ring a = ring(0, kCtxA, "app", 100);
  OpStats read = op(kRead, 100, 90, 10, 2);
  read.punt_reasons.regular_file = 8;
  read.punt_reasons.eagain = 2;
  read.errnos = {{EIO, 2}};
  read.latency.buckets[10] = 90;
  read.latency.sum_ns = 120'000;
  read.latency.max_ns = 1'500;
  OpStats write = op(kWrite, 5, 5);
  write.latency.buckets[12] = 5;
  write.latency.sum_ns = 25'000;
  write.latency.max_ns = 5'000;
  a.ops = {read, write};
  Counters& c = a.counters;
  c.enter_calls = 50;
  c.enter_submit_calls = 20;
  c.submissions = 105;
  c.completions = 95;
  c.cq_overflows = 1;
  c.local_task_work_runs = 3;
  c.local_task_work_max_lag_ns = 5'000;
  c.local_task_work_pending_ns = 700;
  c.workers_distinct = 4;
  c.leaks_suspected = 2;
  c.leaks_pending = 1;
  Ring b = ring(1, kCtxB, "db", 200);
  b.ops = {op(kFsync, 7, 7)};
  b.counters.enter_calls = 7;
  s.rings = {a, b};
  s.workers = {{100, 4}};
  s.leak.suspected = 2;
  s.leak.pending = 1;
  s.tool.errno_full = 1;
  aggregate(s);
  return s;
}

Snapshot after_fixture() {
  Snapshot s = before_fixture();
  s.wall_ns = 3'000'000'000;
  Ring a = s.rings[0];
  Ring b = s.rings[1];
  Ring c = ring(0, kCtxC, "new", 300);
  OpStats c_read = op(kRead, 10, 10);
  c_read.latency.buckets[9] = 10;
  c_read.latency.sum_ns = 7'000;
  c_read.latency.max_ns = 900;
  c.ops = {c_read};
  c.counters.enter_calls = 10;
  c.counters.completions = 10;

  OpStats& read = a.ops[0];
  read.submitted = 200;
  read.completed = 190;
  read.punted = 15;
  read.punt_reasons.regular_file = 12;
  read.punt_reasons.eagain = 3;
  read.errors = 5;
  read.errnos = {{EIO, 3}, {EBADF, 2}};
  read.latency.buckets[10] = 150;
  read.latency.buckets[12] = 40;
  read.latency.sum_ns = 520'000;
  read.latency.max_ns = 10'000;
  a.ops.insert(a.ops.begin(), op(kNop, 3, 3));
  Counters& k = a.counters;
  k.enter_calls = 80;
  k.enter_submit_calls = 45;
  k.submissions = 208;
  k.completions = 198;
  k.cq_overflows = 4;
  k.local_task_work_max_lag_ns = 9'000;
  k.local_task_work_pending_ns = 300;
  k.workers_distinct = 6;
  k.leaks_suspected = 5;
  a.id = 2;
  b.id = 1;
  s.rings = {c, b, a};
  s.workers = {{100, 6}};
  s.leak.suspected = 5;
  s.tool.errno_full = 4;
  aggregate(s);
  return s;
}

TEST(SnapshotDelta, WallTimeIsTheDifference) {
  EXPECT_EQ(snapshot_delta(after_fixture(), before_fixture()).wall_ns, 2'000'000'000u);
}

TEST(SnapshotDelta, RingsMatchByCtxNotIdAndIdleRingsDrop) {
  Snapshot d = snapshot_delta(after_fixture(), before_fixture());
  // ctx B did nothing: dropped. ctx C is new, ctx A moved from id 0 to id 2; ids are the
  // newer reading's, in ascending order.
  ASSERT_EQ(d.rings.size(), 2u);
  EXPECT_EQ(d.rings[0].ctx, kCtxC);
  EXPECT_EQ(d.rings[0].id, 0u);
  EXPECT_EQ(d.rings[1].ctx, kCtxA);
  EXPECT_EQ(d.rings[1].id, 2u);
  EXPECT_EQ(d.rings[1].comm, "app");
  EXPECT_EQ(d.rings[1].pid, 100u);
}

TEST(SnapshotDelta, NewRingCountsFromZero) {
  Snapshot d = snapshot_delta(after_fixture(), before_fixture());
  const Ring* c = find_ring(d, kCtxC);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->ops.size(), 1u);
  EXPECT_EQ(c->ops[0].submitted, 10u);
  EXPECT_EQ(c->ops[0].latency.buckets[9], 10u);
  EXPECT_EQ(c->ops[0].latency.max_ns, 900u);
  EXPECT_EQ(c->counters.enter_calls, 10u);
}

TEST(SnapshotDelta, OpsAreSubtractedByOpcode) {
  Snapshot d = snapshot_delta(after_fixture(), before_fixture());
  const Ring* a = find_ring(d, kCtxA);
  ASSERT_NE(a, nullptr);
  // WRITE did not move: dropped. NOP is new: from zero. Ascending opcode.
  ASSERT_EQ(a->ops.size(), 2u);
  EXPECT_EQ(a->ops[0].opcode, kNop);
  EXPECT_EQ(a->ops[0].submitted, 3u);
  EXPECT_EQ(a->ops[0].completed, 3u);
  EXPECT_EQ(a->ops[0].latency.count(), 0u);
  EXPECT_EQ(a->ops[0].latency.max_ns, 0u);  // no sample in the interval

  const OpStats& r = a->ops[1];
  EXPECT_EQ(r.opcode, kRead);
  EXPECT_EQ(r.submitted, 100u);  // 200 - 100
  EXPECT_EQ(r.completed, 100u);  // 190 - 90
  EXPECT_EQ(r.punted, 5u);       // 15 - 10
  EXPECT_EQ(r.punt_reasons.regular_file, 4u);
  EXPECT_EQ(r.punt_reasons.eagain, 1u);
  EXPECT_DOUBLE_EQ(r.punt_pct(), 5.0);  // 5 / 100
  EXPECT_EQ(r.errors, 3u);              // 5 - 2
  // EBADF 2 - 0, EIO 3 - 2: largest first.
  ASSERT_EQ(r.errnos.size(), 2u);
  EXPECT_EQ(r.errnos[0].err, EBADF);
  EXPECT_EQ(r.errnos[0].count, 2u);
  EXPECT_EQ(r.errnos[1].err, EIO);
  EXPECT_EQ(r.errnos[1].count, 1u);
}

TEST(SnapshotDelta, HistogramBucketsAndIntervalQuantiles) {
  Snapshot d = snapshot_delta(after_fixture(), before_fixture());
  const OpStats* r = find_op(*find_ring(d, kCtxA), kRead);
  ASSERT_NE(r, nullptr);
  const Histogram& h = r->latency;
  for (std::size_t i = 0; i < kHistBuckets; ++i) {
    uint64_t want = i == 10 ? 60 : i == 12 ? 40 : 0;  // 150 - 90, 40 - 0
    EXPECT_EQ(h.buckets[i], want) << "bucket " << i;
  }
  EXPECT_EQ(h.sum_ns, 400'000u);  // 520,000 - 120,000
  EXPECT_EQ(h.max_ns, 10'000u);   // the maximum grew in the interval: exact
  // p50: rank 50 of 100, in bucket 10 [1024, 2048) holding 60: 1024 + 1024 * 50/60
  // = 1877.3 -> 1877. p99: rank 99, past the 60, 39th of 40 in [4096, 8192):
  // 4096 + 4096 * 39/40 = 8089.6 -> 8089, under the max.
  EXPECT_EQ(h.quantile_ns(0.5), 1877u);
  EXPECT_EQ(h.quantile_ns(0.99), 8089u);
  // The cumulative histogram would say otherwise: 150 of 190 in bucket 10, so its p50
  // (rank 95: 1024 + 1024 * 95/150 = 1672.5 -> 1672) is not the interval's.
  Snapshot after = after_fixture();
  EXPECT_EQ(find_op(*find_ring(after, kCtxA), kRead)->latency.quantile_ns(0.5), 1672u);
}

TEST(SnapshotDelta, BoundaryFlowsAndIntervalMaxima) {
  Snapshot before = before_fixture(), after = after_fixture();
  before.boundary_measured = after.boundary_measured = true;
  RingBoundary& b = find_ring_mut(before, kCtxA).boundary;
  RingBoundary& a = find_ring_mut(after, kCtxA).boundary;
  b.cq_depth_samples = 100, b.cq_depth_sum = 400, b.cq_depth_max = 9;
  a.cq_depth_samples = 150, a.cq_depth_sum = 500, a.cq_depth_max = 9;
  b.reap_lag.buckets[20] = 5, b.reap_lag.sum_ns = 5'000'000, b.reap_lag.max_ns = 1'500'000;
  a.reap_lag.buckets[20] = 7, a.reap_lag.sum_ns = 7'200'000, a.reap_lag.max_ns = 1'500'000;
  b.reap_gap_sum_ns = 50, b.reap_gap_max_ns = 30, b.timer_looks = 7;
  a.reap_gap_sum_ns = 90, a.reap_gap_max_ns = 30, a.timer_looks = 12;
  const Snapshot d = snapshot_delta(after, before);
  EXPECT_TRUE(d.boundary_measured);
  const RingBoundary& r = find_ring(d, kCtxA)->boundary;
  EXPECT_EQ(r.cq_depth_samples, 50u);
  EXPECT_EQ(r.cq_depth_sum, 100u);
  EXPECT_DOUBLE_EQ(r.cq_depth_avg(), 2.0);
  // Sampled in the interval without a new maximum: the run's maximum, an upper bound.
  EXPECT_EQ(r.cq_depth_max, 9u);
  EXPECT_EQ(r.reap_lag.count(), 2u);
  EXPECT_EQ(r.reap_lag.sum_ns, 2'200'000u);
  EXPECT_EQ(r.reap_lag.max_ns, 1'500'000u);
  EXPECT_EQ(r.reap_gap_sum_ns, 40u);
  EXPECT_EQ(r.reap_gap_max_ns, 30u);
  EXPECT_EQ(r.timer_looks, 5u);
}

TEST(SnapshotDelta, CountersSumsMaximaAndGauges) {
  Snapshot d = snapshot_delta(after_fixture(), before_fixture());
  const Counters& c = find_ring(d, kCtxA)->counters;
  EXPECT_EQ(c.enter_calls, 30u);         // 80 - 50
  EXPECT_EQ(c.enter_submit_calls, 25u);  // 45 - 20
  EXPECT_EQ(c.submissions, 103u);        // 208 - 105
  EXPECT_EQ(c.completions, 103u);        // 198 - 95
  EXPECT_EQ(c.cq_overflows, 3u);         // 4 - 1
  EXPECT_DOUBLE_EQ(find_ring(d, kCtxA)->avg_batch(), 103.0 / 25.0);
  // Max: the lag maximum grew from 5,000 to 9,000, so the interval had that wait.
  EXPECT_EQ(c.local_task_work_max_lag_ns, 9'000u);
  // Gauges: the level at the end of the interval.
  EXPECT_EQ(c.local_task_work_pending_ns, 300u);
  EXPECT_EQ(c.workers_distinct, 6u);
  // Leaks are a scan at the end of the run, not per interval.
  EXPECT_EQ(c.leaks_suspected, 0u);
  EXPECT_EQ(c.leaks_pending, 0u);
  EXPECT_EQ(d.leak.suspected, 0u);
  EXPECT_EQ(d.leak.pending, 0u);
  EXPECT_TRUE(d.leak.requests.empty());
  EXPECT_EQ(d.leak.threshold_ns, 500'000'000u);
  // Snapshot-wide: tool losses are counters, workers a gauge, totals re-aggregated.
  EXPECT_EQ(d.tool.errno_full, 3u);  // 4 - 1
  EXPECT_EQ(d.tool.rings_full, 0u);
  ASSERT_EQ(d.workers.size(), 1u);
  EXPECT_EQ(d.workers[0].distinct, 6u);
  EXPECT_EQ(d.totals.workers_distinct, 6u);
  EXPECT_EQ(d.totals.enter_calls, 40u);  // 30 on A + 10 on the new C
  // Merged READ: 100 on A + 10 on C.
  const OpStats* merged = nullptr;
  for (const OpStats& o : d.ops)
    if (o.opcode == kRead) merged = &o;
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->submitted, 110u);
}

TEST(SnapshotDelta, MaximaWithoutGrowth) {
  Snapshot before = before_fixture();
  Snapshot after = before_fixture();
  after.wall_ns = 2'000'000'000;
  Ring& a = after.rings[0];
  // Local task work ran twice but no wait beat 5,000: the interval's longest is at most
  // 5,000 (an upper bound) and is shown as that.
  a.counters.local_task_work_runs = 5;
  // READ: 10 more samples, all in bucket 10, max still 1,500: upper bound kept, so
  // p99 (rank 10 of 10: 1024 + 1024 = 2048) is capped at 1,500.
  a.ops[0].latency.buckets[10] += 10;
  a.ops[0].completed += 10;
  // WRITE: submitted one more, no completion: no sample, so no maximum.
  a.ops[1].submitted += 1;
  Snapshot d = snapshot_delta(after, before);
  const Ring* r = find_ring(d, kCtxA);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->counters.local_task_work_max_lag_ns, 5'000u);
  EXPECT_EQ(find_op(*r, kRead)->latency.max_ns, 1'500u);
  EXPECT_EQ(find_op(*r, kRead)->latency.quantile_ns(0.99), 1'500u);
  EXPECT_EQ(find_op(*r, kWrite)->latency.max_ns, 0u);

  // No run and no growth: no wait was measured in the interval.
  Snapshot after2 = before_fixture();
  after2.rings[0].counters.enter_calls += 1;
  Snapshot d2 = snapshot_delta(after2, before);
  ASSERT_NE(find_ring(d2, kCtxA), nullptr);
  EXPECT_EQ(find_ring(d2, kCtxA)->counters.local_task_work_max_lag_ns, 0u);
}

TEST(SnapshotDelta, ReusedCtxAndCatchAllPairByKindAndOrder) {
  // before: #0 ctx A (a freed ring, done), #1 ctx B.
  // after:  #0 the catch-all (ctx 0, appears: the ring table filled), #1 ctx A (old row,
  //         unchanged), #2 ctx B (+1 enter), #3 ctx A again (a new ring at the freed
  //         address, 4 enters).
  Snapshot before;
  Ring a = ring(0, kCtxA, "old", 1);
  a.counters.enter_calls = 100;
  Ring b = ring(1, kCtxB, "b", 2);
  b.counters.enter_calls = 10;
  before.rings = {a, b};
  aggregate(before);

  Snapshot after;
  Ring other = ring(0, 0, "", 0);
  other.source = RingSource::CatchAll;
  other.counters.enter_calls = 7;
  a.id = 1;
  b.id = 2;
  b.counters.enter_calls = 11;
  Ring a2 = ring(3, kCtxA, "new", 3);
  a2.source = RingSource::Create;
  a2.counters.enter_calls = 4;
  a2.counters.rings_created = 1;
  after.rings = {other, a, b, a2};
  aggregate(after);

  Snapshot d = snapshot_delta(after, before);
  ASSERT_EQ(d.rings.size(), 3u);  // the old ring A did nothing
  EXPECT_EQ(d.rings[0].source, RingSource::CatchAll);
  EXPECT_EQ(d.rings[0].counters.enter_calls, 7u);
  EXPECT_EQ(d.rings[1].ctx, kCtxB);
  EXPECT_EQ(d.rings[1].counters.enter_calls, 1u);
  EXPECT_EQ(d.rings[2].comm, "new");
  EXPECT_EQ(d.rings[2].counters.enter_calls, 4u);  // not 4 - 100, not clamped to 0
  EXPECT_EQ(d.rings[2].counters.rings_created, 1u);
}

TEST(SnapshotDelta, EveryToolLossIsSubtracted) {
  Snapshot before, after;
  before.tool = {1, 2, 3, 4, 5, 6, 7};
  after.tool = {11, 12, 13, 14, 15, 16, 17};
  ToolStats d = snapshot_delta(after, before).tool;
  EXPECT_EQ(d.rings_full, 10u);
  EXPECT_EQ(d.opstats_full, 10u);
  EXPECT_EQ(d.op_out_of_range, 10u);
  EXPECT_EQ(d.enter_no_ring, 10u);
  EXPECT_EQ(d.overflow_no_req, 10u);
  EXPECT_EQ(d.errno_full, 10u);
  EXPECT_EQ(d.threads_full, 10u);
}

TEST(SnapshotDelta, EveryToolFieldIsSubtracted) {
  Snapshot before, after;
  ToolStats want;
  uint64_t n = 0;
  for (const ToolField& f : kToolFields) {
    before.tool.*f.member = ++n;
    after.tool.*f.member = n * 3;
    want.*f.member = n * 2;
  }
  EXPECT_EQ(snapshot_delta(after, before).tool, want);
}

TEST(SnapshotDelta, TornReadClampsAtZero) {
  Snapshot before = before_fixture();
  Snapshot after = before_fixture();
  after.rings[0].ops[0].submitted -= 1;  // cannot happen, must not wrap
  after.rings[0].ops[0].completed += 1;
  Snapshot d = snapshot_delta(after, before);
  EXPECT_EQ(find_op(*find_ring(d, kCtxA), kRead)->submitted, 0u);
  EXPECT_EQ(find_op(*find_ring(d, kCtxA), kRead)->completed, 1u);
}

TEST(SnapshotDelta, NothingHappenedIsEmpty) {
  Snapshot s = before_fixture();
  Snapshot d = snapshot_delta(s, s);
  EXPECT_TRUE(d.rings.empty());
  EXPECT_TRUE(d.ops.empty());
  EXPECT_EQ(d.wall_ns, 0u);
}

// --- additivity: the intervals add up to the whole run -------------------------------
//
// A synthetic run: a table of ring rows that only grow, read N times. Rows appear over
// time (row 0 is the catch-all and appears late, shifting every id; row 3 reuses row
// 1's ctx), ops appear over time. Reading 0 is the empty map at attach, so the sum of
// all deltas must equal the last reading: what the final report shows.

struct Row {
  Ring ring;
  int appears_at = 0;  // the reading from which the row has activity
};

class SyntheticRun {
 public:
  SyntheticRun() {
    Row catch_all{ring(0, 0, "", 0), 4};
    catch_all.ring.source = RingSource::CatchAll;
    rows_ = {catch_all,
             {ring(0, kCtxA, "app", 10), 1},
             {ring(0, kCtxB, "db", 20), 1},
             {ring(0, kCtxA, "app2", 11), 3},  // a new ring at a freed ring's address
             {ring(0, kCtxC, "late", 30), 5}};
    rows_[3].ring.source = RingSource::Create;
    rows_[3].ring.counters.rings_created = 1;
  }

  // Reading `step`: each present row grows by a random amount first.
  Snapshot read(int step) {
    for (Row& row : rows_) {
      if (row.appears_at > step || step == 0) continue;
      grow(row.ring);
    }
    Snapshot s;
    s.wall_ns = static_cast<uint64_t>(step) * 1'000'000'000 + rng_() % 1000;
    std::map<uint32_t, uint64_t> workers;
    for (const Row& row : rows_) {
      if (row.appears_at > step || step == 0) continue;
      Ring r = row.ring;
      r.id = static_cast<uint32_t>(s.rings.size());
      if (r.pid) workers[r.pid] = r.counters.workers_distinct;
      s.rings.push_back(r);
    }
    for (auto [pid, n] : workers) s.workers.push_back({pid, n});
    s.tool.errno_full = tool_ += rng_() % 3;
    aggregate(s);
    return s;
  }

 private:
  uint64_t some(uint64_t n) { return rng_() % n; }

  void grow(Ring& r) {
    static constexpr uint32_t kOps[] = {kRead, kWrite, kRecv, kFsync};
    // An op appears once its turn comes: 1 at first, up to all 4.
    std::size_t nops = std::min<std::size_t>(std::size(kOps), r.ops.size() + some(2) + 1);
    for (std::size_t i = r.ops.size(); i < nops; ++i) r.ops.push_back(op(kOps[i], 0, 0));
    std::sort(r.ops.begin(), r.ops.end(),
              [](const OpStats& x, const OpStats& y) { return x.opcode < y.opcode; });
    Counters& c = r.counters;
    for (OpStats& o : r.ops) {
      if (some(4) == 0) continue;  // some ops idle in some intervals
      uint64_t n = some(50);
      o.submitted += n;
      o.completed += n + some(3);
      o.untracked += some(2);
      o.punted += some(5);
      o.punt_reasons.forced += some(2);
      o.punt_reasons.hashed += some(2);
      o.punt_reasons.regular_file += some(2);
      o.punt_reasons.eagain += some(2);
      o.multishot_cqes += some(3);
      o.failed += some(2);
      o.poll_armed += some(3);
      o.poll_armed_regular += some(2);
      o.cancelled_at_exit += some(2);
      for (int err : {EIO, EBADF, EAGAIN}) {
        uint64_t e = some(3);
        if (!e) continue;
        o.errors += e;
        auto it = std::find_if(o.errnos.begin(), o.errnos.end(),
                               [&](const ErrnoCount& x) { return x.err == err; });
        if (it == o.errnos.end()) {
          o.errnos.push_back({err, e});
        } else {
          it->count += e;
        }
      }
      for (uint64_t k = 0; k < n; ++k) {
        std::size_t bucket = 8 + some(20);
        uint64_t sample = bucket_lower_ns(bucket) + some(bucket_lower_ns(bucket));
        ++o.latency.buckets[bucket];
        o.latency.sum_ns += sample;
        o.latency.max_ns = std::max(o.latency.max_ns, sample);
      }
      c.submissions += n;
    }
    c.enter_calls += some(30);
    c.enter_submit_calls += some(10);
    c.to_submit_sum += some(100);
    c.cq_overflows += some(3);
    c.task_adds += some(10);
    c.sqpoll_offcpu_ns += some(1'000'000);
    if (some(2)) {
      c.local_task_work_runs += 1;
      c.local_task_work_max_lag_ns = std::max(c.local_task_work_max_lag_ns, some(100'000));
    }
    c.local_task_work_pending_ns = some(1000);  // a level, not a sum
    c.workers_distinct += some(2);
    c.leaks_suspected = some(3);  // a scan: not a flow
  }

  std::vector<Row> rows_;
  std::mt19937_64 rng_{20240611};
  uint64_t tool_ = 0;
};

// Ring identity inside one synthetic run: (catch-all, ctx, ordinal), as the delta does.
using Key = std::tuple<bool, uint64_t, int>;

std::map<Key, const Ring*> by_key(const Snapshot& s) {
  std::map<Key, const Ring*> out;
  std::map<std::pair<bool, uint64_t>, int> seen;
  for (const Ring& r : s.rings) {
    bool ca = r.source == RingSource::CatchAll;
    out[{ca, r.ctx, seen[{ca, r.ctx}]++}] = &r;
  }
  return out;
}

// A delta's rings by the identity they have in the reading the delta ends at: the delta
// keeps that reading's ids but drops idle rings, so ordinals within it could differ.
std::map<Key, const Ring*> delta_by_key(const Snapshot& delta, const Snapshot& after) {
  std::map<uint32_t, Key> key_of_id;
  for (const auto& [key, r] : by_key(after)) key_of_id[r->id] = key;
  std::map<Key, const Ring*> out;
  for (const Ring& r : delta.rings) out[key_of_id.at(r.id)] = &r;
  return out;
}

// The errno rows as counts by code: their order is not part of a sum.
OpStats with_errnos_by_code(OpStats op) {
  std::map<int, uint64_t> by_code;
  for (const ErrnoCount& e : op.errnos) by_code[e.err] += e.count;
  op.errnos.clear();
  for (const auto& [err, count] : by_code) op.errnos.push_back({err, count});
  return op;
}

void expect_op_equal(const OpStats& sum, const OpStats& want, const std::string& where) {
  SCOPED_TRACE(where + " " + opcode_name(want.opcode));
  // The whole value, so that a field added to OpStats cannot go unchecked; the field
  // checks below say which one differs.
  EXPECT_EQ(with_errnos_by_code(sum), with_errnos_by_code(want));
  EXPECT_EQ(sum.submitted, want.submitted);
  EXPECT_EQ(sum.completed, want.completed);
  EXPECT_EQ(sum.untracked, want.untracked);
  EXPECT_EQ(sum.punted, want.punted);
  EXPECT_EQ(sum.punt_reasons.forced, want.punt_reasons.forced);
  EXPECT_EQ(sum.punt_reasons.hashed, want.punt_reasons.hashed);
  EXPECT_EQ(sum.punt_reasons.regular_file, want.punt_reasons.regular_file);
  EXPECT_EQ(sum.punt_reasons.eagain, want.punt_reasons.eagain);
  EXPECT_EQ(sum.errors, want.errors);
  EXPECT_EQ(sum.multishot_cqes, want.multishot_cqes);
  EXPECT_EQ(sum.failed, want.failed);
  EXPECT_EQ(sum.poll_armed, want.poll_armed);
  EXPECT_EQ(sum.poll_armed_regular, want.poll_armed_regular);
  EXPECT_EQ(sum.cancelled_at_exit, want.cancelled_at_exit);
  EXPECT_EQ(sum.latency.buckets, want.latency.buckets);
  EXPECT_EQ(sum.latency.sum_ns, want.latency.sum_ns);
  // Each interval's maximum is exact or an upper bound no larger than the reading's;
  // the last interval with a sample carries the run's maximum.
  EXPECT_EQ(sum.latency.max_ns, want.latency.max_ns);
  std::map<int, uint64_t> got_errnos, want_errnos;
  for (const ErrnoCount& e : sum.errnos) got_errnos[e.err] += e.count;
  for (const ErrnoCount& e : want.errnos) want_errnos[e.err] += e.count;
  EXPECT_EQ(got_errnos, want_errnos);
}

TEST(LiveAdditivity, IntervalsSumToTheFinalReading) {
  constexpr int kReadings = 8;
  SyntheticRun run;
  std::vector<Snapshot> readings;
  for (int i = 0; i < kReadings; ++i) readings.push_back(run.read(i));
  ASSERT_TRUE(readings[0].rings.empty());

  // Sum the deltas, ring by ring (by identity) and op by op.
  std::map<Key, Counters> ring_sum;
  std::map<Key, std::map<uint32_t, OpStats>> op_sum;
  Counters totals;
  std::map<uint32_t, OpStats> merged;
  uint64_t wall = 0, tool = 0;
  for (int i = 1; i < kReadings; ++i) {
    Snapshot d = snapshot_delta(readings[i], readings[i - 1]);
    wall += d.wall_ns;
    tool += d.tool.errno_full;
    totals += d.totals;
    for (const OpStats& o : d.ops) {
      merged[o.opcode].opcode = o.opcode;
      merged[o.opcode] += o;
    }
    for (const auto& [key, r] : delta_by_key(d, readings[i])) {
      ring_sum[key] += r->counters;
      for (const OpStats& o : r->ops) {
        OpStats& s = op_sum[key][o.opcode];
        s.opcode = o.opcode;
        s += o;
      }
    }
  }

  const Snapshot& last = readings.back();
  EXPECT_EQ(wall, last.wall_ns - readings[0].wall_ns);
  EXPECT_EQ(tool, last.tool.errno_full);
  auto final_rings = by_key(last);
  ASSERT_EQ(ring_sum.size(), final_rings.size());  // every ring that did something
  for (const auto& [key, r] : final_rings) {
    std::string where = "ring " + std::to_string(r->id) + " " + r->comm;
    SCOPED_TRACE(where);
    const Counters& got = ring_sum[key];
    for (const CounterField& f : kCounterFields) {
      SCOPED_TRACE(std::string(f.name));
      if (f.name == "leaks_suspected" || f.name == "leaks_pending") {
        EXPECT_EQ(got.*f.member, 0u);  // never per interval
      } else if (f.merge == CounterMerge::Sum || f.name == "local_task_work_max_lag_ns") {
        // Sums add up; the maximum is the final one (merged by max).
        EXPECT_EQ(got.*f.member, r->counters.*f.member);
      }
      // Gauges (pending age, workers) are levels: not additive, checked elsewhere.
    }
    ASSERT_EQ(op_sum[key].size(), r->ops.size());
    for (const OpStats& o : r->ops) expect_op_equal(op_sum[key][o.opcode], o, where);
  }

  // The all-rings view, as the final report's op table and totals show it.
  ASSERT_EQ(merged.size(), last.ops.size());
  for (const OpStats& o : last.ops) expect_op_equal(merged[o.opcode], o, "merged");
  EXPECT_EQ(totals.submissions, last.totals.submissions);
  EXPECT_EQ(totals.completions, last.totals.completions);
  EXPECT_EQ(totals.cq_overflows, last.totals.cq_overflows);
  EXPECT_EQ(totals.enter_calls, last.totals.enter_calls);
  EXPECT_EQ(totals.sqpoll_offcpu_ns, last.totals.sqpoll_offcpu_ns);
}

TEST(LiveAdditivity, SplittingAnIntervalChangesNothing) {
  // delta(r5, r2) equals delta(r3, r2) + delta(r4, r3) + delta(r5, r4), counts and
  // buckets, for any start: not only from an empty first reading.
  SyntheticRun run;
  std::vector<Snapshot> r;
  for (int i = 0; i < 6; ++i) r.push_back(run.read(i));
  Snapshot whole = snapshot_delta(r[5], r[2]);
  std::map<Key, std::map<uint32_t, OpStats>> parts;
  for (int i = 3; i <= 5; ++i) {
    Snapshot d = snapshot_delta(r[i], r[i - 1]);
    for (const auto& [key, ring] : delta_by_key(d, r[i])) {
      for (const OpStats& o : ring->ops) {
        parts[key][o.opcode].opcode = o.opcode;
        parts[key][o.opcode] += o;
      }
    }
  }
  ASSERT_FALSE(whole.rings.empty());
  for (const auto& [key, ring] : delta_by_key(whole, r[5])) {
    for (const OpStats& o : ring->ops) expect_op_equal(parts[key][o.opcode], o, ring->comm);
  }
}

// --- rendering -------------------------------------------------------------------------
//
// Columns (live.h): ring 22 left, 2 blanks, op 16 left, 2 blanks, cqe/s 7, then one blank
// before each of p50 7, p99 7, punt 6, errors 6, B/s 6, batch 6, cq-ovf 6, reap99 7,
// right-aligned: 108 characters, trailing blanks trimmed.
const std::string kTitles =
    "ring                    op                  cqe/s     p50     p99   punt errors    B/s  batch cq-ovf  reap99";

// An interval of 2 s:
//   #0 fio pid 4123, 10 submitting enters, 64 SQEs, 2,469 CQEs, 3 CQ overflows
//      READ  2,468 completed: 1,234.0/s -> "1,234"; 62 submitted, none punted -> 0.0%;
//            2,468 x 4,096 bytes over 2 s = 5,054,464/s -> "5.05M"
//            latency 2,000 in bucket 10, 468 in bucket 20, max 2ms
//            p50 rank 1,234: 1024 + 1024 * 1234/2000 = 1655.8 -> 1,655 -> "1.66us"
//            p99 rank ceil(2443.32) = 2,444: 444th of 468 in [2^20, 2^21):
//            1048576 * (1 + 444/468) = 2,043,379, capped at max 2,000,000 -> "2ms"
//      WRITE 1 completed: 0.5/s; 2 submitted, 1 punted -> 50.0%; 1 error; 512 bytes -> 256/s;
//            1 sample in bucket 14: 32,768 capped at max 20,000 -> "20us"
//      batch 64 / 10 = 6.4
//   #2 postgres-writer pid 4194304: 5 enters, no op: a "-" row; "#2 " and "[4194304]"
//      leave the comm 10 of the 22 characters: "postgres-w"
//   #3 sq pid 7, SQPOLL: RECV 4 completed (2.0/s), 400 bytes (200/s), 4 submitted by the thread (no enter),
//      no latency sample -> "-"
//   #4 SQPOLL thread asleep: only off-CPU time grew -> no row
Snapshot render_fixture() {
  Snapshot d;
  d.wall_ns = 2'000'000'000;
  Ring fio = ring(0, kCtxA, "fio", 4123);
  OpStats read = op(kRead, 62, 2468);
  read.bytes = 2468ull * 4096;
  read.latency.buckets[10] = 2000;
  read.latency.buckets[20] = 468;
  read.latency.max_ns = 2'000'000;
  OpStats write = op(kWrite, 2, 1, 1, 1);
  write.bytes = 512;
  write.latency.buckets[14] = 1;
  write.latency.max_ns = 20'000;
  fio.ops = {read, write};
  fio.counters.enter_calls = 12;
  fio.counters.enter_submit_calls = 10;
  fio.counters.submissions = 64;
  fio.counters.completions = 2469;
  fio.counters.cq_overflows = 3;
  Ring pg = ring(2, kCtxB, "postgres-writer", 4194304);
  pg.counters.enter_calls = 5;
  Ring sq = ring(3, kCtxC, "sq", 7);
  sq.setup_flags = kSetupSqpoll;
  sq.ops = {op(kRecv, 4, 4)};
  sq.ops[0].bytes = 400;
  sq.counters.submissions = 4;
  sq.counters.completions = 4;
  Ring asleep = ring(4, 0xffff888000d00000, "sleeper", 8);
  asleep.setup_flags = kSetupSqpoll;
  asleep.counters.sqpoll_offcpu_ns = 2'000'000'000;
  d.rings = {fio, pg, sq, asleep};
  aggregate(d);
  return d;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(LiveRender, HeaderNamesTheIntervalAndTheColumns) {
  std::ostringstream out;
  render_live_header(out, 1.0);
  auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "uringscope live: every 1s; the full report and findings follow when the run ends");
  EXPECT_EQ(lines[3], "  B/s: bytes moved per second by ops that move data");
  EXPECT_EQ(lines[6], kTitles);
  std::ostringstream half;
  render_live_header(half, 0.5);
  EXPECT_NE(half.str().find("every 500ms;"), std::string::npos);
}

TEST(LiveRender, OneRowPerActiveRingAndOp) {
  std::ostringstream out;
  render_live_interval(out, render_fixture(), 12'000'000'000, "14:03:21");
  auto lines = lines_of(out.str());
  std::vector<std::string> want = {
      "-- +12.0s  14:03:21  interval 2s "
      "---------------------------------------------------------------------------",
      "#0 fio[4123]            READ                1,234  1.66us     2ms   0.0%      0  5.05M    6.4      3",
      "                        WRITE                 0.5    20us    20us  50.0%      1    256",
      "#2 postgres-w[4194304]  -                     0.0       -       -      -      -      -      -      0",
      "#3 sq[7]                RECV                  2.0       -       -   0.0%      0    200 sqpoll      0",
  };
  EXPECT_EQ(lines, want);
  EXPECT_EQ(lines[0].size(), kTitles.size());  // the stamp rules the table's width
}

TEST(LiveRender, ReapLagP99WithTheBoundary) {
  Snapshot d = render_fixture();
  d.boundary_measured = true;
  // 99 reaps in [2^20, 2^21) ns, one in [2^22, 2^23): the p99 is the 99th, the top of
  // the first bucket: 2^21 ns = 2.1ms.
  d.rings[0].boundary.reap_lag.buckets[20] = 99;
  d.rings[0].boundary.reap_lag.buckets[22] = 1;
  d.rings[0].boundary.reap_lag.max_ns = 5'000'000;
  std::ostringstream out;
  render_live_interval(out, d, 12'000'000'000, "14:03:21");
  auto lines = lines_of(out.str());
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[1],
            "#0 fio[4123]            READ                1,234  1.66us     2ms   0.0%      0  5.05M    6.4      3   2.1ms");
  EXPECT_EQ(lines[1].size(), kTitles.size());
  // Measured and nothing reaped: "-"; not measured (above): the cell stays empty.
  EXPECT_EQ(lines[3].substr(lines[3].size() - 1), "-");
}

TEST(LiveRender, IdleInterval) {
  Snapshot d;
  d.wall_ns = 1'000'000'000;
  std::ostringstream out;
  render_live_interval(out, d, 3'000'000'000, "14:03:22");
  auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("-- +3.0s  14:03:22  interval 1s --", 0), 0u);
  EXPECT_EQ(lines[1], "(idle)");
  // A delta whose only ring just slept (SQPOLL off-CPU time) is idle too.
  Snapshot asleep = render_fixture();
  asleep.rings = {asleep.rings[3]};
  std::ostringstream out2;
  render_live_interval(out2, asleep, 4'000'000'000, "14:03:23");
  EXPECT_EQ(lines_of(out2.str()).back(), "(idle)");
}

TEST(LiveRender, CatchAllRingIsNamedNotNumbered) {
  Snapshot d;
  d.wall_ns = 1'000'000'000;
  Ring other = ring(0, 0, "", 0);
  other.source = RingSource::CatchAll;
  other.ops = {op(kRecv, 3, 3)};
  other.counters.completions = 3;
  d.rings = {other};
  aggregate(d);
  std::ostringstream out;
  render_live_interval(out, d, 1'000'000'000, "00:00:01");
  // 3 CQEs in 1 s; no submitting enter and no SQPOLL: batch "-".
  EXPECT_EQ(lines_of(out.str()).at(1),
            "other rings             RECV                  3.0       -       -   0.0%      0      0      -      0");
}

// Where each column ends in the title line: right-aligned cells must end there too.
std::vector<std::size_t> right_edges() {
  std::vector<std::size_t> edges;
  for (std::string_view title : {"cqe/s", "p50", "p99", "punt", "errors", "B/s", "batch", "cq-ovf", "reap99"}) {
    std::size_t at = kTitles.find(std::string(" ") + std::string(title));
    edges.push_back(at + 1 + title.size());
  }
  return edges;
}

TEST(LiveRender, ColumnsStayAlignedAcrossIntervals) {
  // A second interval with much larger and longer numbers than the first.
  Snapshot big;
  big.wall_ns = 1'000'000'000;
  Ring r = ring(17, kCtxA, "nginx", 123456);
  OpStats send = op(26, 1'500'000, 1'234'567, 1'500'000, 12'345);  // SEND
  send.latency.buckets[30] = 1'234'567;  // [1.07s, 2.15s)
  send.latency.max_ns = 2'000'000'000;
  send.bytes = 1'234'567ull * 65'536;  // 80,908,582,912 B in 1 s
  OpStats fixed = op(54, 1, 1);  // FIXED_FD_INSTALL: the longest op name
  r.ops = {send, fixed};
  r.counters.enter_submit_calls = 3;
  r.counters.submissions = 1'500'001;
  r.counters.completions = 1'234'568;
  r.counters.cq_overflows = 250'000;
  big.rings = {r};
  aggregate(big);

  std::ostringstream out;
  render_live_header(out, 1.0);
  render_live_interval(out, render_fixture(), 1'000'000'000, "14:03:21");
  render_live_interval(out, big, 2'000'000'000, "14:03:22");
  render_live_interval(out, Snapshot{}, 3'000'000'000, "14:03:23");
  const std::string text = out.str();

  // The column titles once, however many blocks follow.
  std::size_t titles = 0;
  for (const std::string& line : lines_of(text)) titles += line == kTitles;
  EXPECT_EQ(titles, 1u);

  auto edges = right_edges();
  int rows = 0;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("#", 0) != 0 && line.rfind("    ", 0) != 0) continue;  // data rows
    ++rows;
    SCOPED_TRACE(line);
    EXPECT_LE(line.size(), kTitles.size());
    EXPECT_EQ(line.find("OP_"), std::string::npos);
    for (std::size_t edge : edges) {
      if (edge > line.size()) continue;  // trailing ring cells are on the first row only
      EXPECT_NE(line[edge - 1], ' ') << "column ending at " << edge;
      if (edge < line.size()) {
        EXPECT_EQ(line[edge], ' ') << "column ending at " << edge;
      }
    }
  }
  EXPECT_EQ(rows, 6);  // 4 of the first interval, 2 of the second
  // The second interval by hand: 1,234,567 CQEs in 1 s -> "1.23M"; p50 rank 617,284 of
  // 1,234,567 in [2^30, 2^31): 2^30 * (1 + 617284/1234567) = 1,610,612,276 -> "1.61s";
  // punt 100.0%; errors 12,345; batch 1,500,001 / 3 = 500,000.3 -> "500000" (0 decimals
  // from 100, still 6 wide); overflows 250,000 -> "250k"; the label "#17 nginx[123456]";
  // 80,908,582,912 B/s -> "80.9G".
  EXPECT_NE(text.find("#17 nginx[123456]       SEND                1.23M   1.61s"),
            std::string::npos);
  EXPECT_NE(text.find(" 100.0% 12,345  80.9G 500000   250k"), std::string::npos) << text;
  EXPECT_NE(text.find("FIXED_FD_INSTALL      1.0"), std::string::npos);
}

TEST(LiveFormat, RatesStayWithinSixCharacters) {
  EXPECT_EQ(format_live_rate(0), "0.0");
  EXPECT_EQ(format_live_rate(0.5), "0.5");  // one request in two seconds is not 0
  EXPECT_EQ(format_live_rate(12.34), "12.3");
  EXPECT_EQ(format_live_rate(999.94), "999.9");
  EXPECT_EQ(format_live_rate(999.96), "1,000");  // rounding reaches 1000: whole numbers
  EXPECT_EQ(format_live_rate(1234.4), "1,234");
  EXPECT_EQ(format_live_rate(99'999.4), "99,999");
  EXPECT_EQ(format_live_rate(99'999.6), "100k");
  EXPECT_EQ(format_live_rate(123'456), "123k");
  EXPECT_EQ(format_live_rate(999'600), "1M");  // not "1000k"
  EXPECT_EQ(format_live_rate(1'234'567), "1.23M");
  EXPECT_EQ(format_live_rate(1.5e9), "1.5G");
  EXPECT_EQ(format_live_rate(-1), "0.0");
  for (double v = 0.01; v < 1e15; v *= 1.37) EXPECT_LE(format_live_rate(v).size(), 6u) << v;
}

TEST(LiveFormat, CountsAreWholeNumbers) {
  EXPECT_EQ(format_live_count(0), "0");
  EXPECT_EQ(format_live_count(7), "7");
  EXPECT_EQ(format_live_count(12'345), "12,345");
  EXPECT_EQ(format_live_count(99'999), "99,999");
  EXPECT_EQ(format_live_count(100'000), "100k");
  EXPECT_EQ(format_live_count(1'500'000), "1.5M");
}

}  // namespace
}  // namespace uringscope::live_test
