// SPDX-License-Identifier: MIT
// Destroyed rings past the bound fold per process, per command, then into one record:
// the totals are those of every ring added, the records stay bounded.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "snapshot/delta.h"
#include "snapshot/retired_store.h"
#include "snapshot/snapshot_builder.h"

namespace uringscope {
namespace {

constexpr uint32_t kNop = 0;
constexpr uint32_t kRead = 22;

RetiredRing ring_of(uint32_t tgid, const char* comm, uint64_t nops, uint64_t retired_ns = 1'000) {
  RetiredRing ring;
  ring.row = 1;
  ring.retired_ns = retired_ns;
  ring.info.ctx = 0x1000 + retired_ns;
  ring.info.tgid = tgid;
  ring.info.fd = 3;
  ring.info.sq_entries = 8;
  ring.info.cq_entries = 16;
  ring.info.first_ns = retired_ns - 1;
  ring.info.source = US_RING_FROM_CREATE;
  std::strncpy(ring.info.comm, comm, sizeof ring.info.comm - 1);
  ring.stats.counters[US_RC_ENTER_CALLS] = 1;
  us_opstat nop{};
  nop.ring = 1;
  nop.opcode = kNop;
  nop.counters[US_OC_SUBMITTED] = nops;
  nop.counters[US_OC_COMPLETED] = nops;
  nop.hist[10] = nops;
  ring.ops = {nop};
  return ring;
}

uint64_t nops_of(const std::vector<RetiredRing>& records) {
  uint64_t n = 0;
  for (const RetiredRing& r : records)
    for (const us_opstat& op : r.ops) n += op.counters[US_OC_COMPLETED];
  return n;
}

uint64_t rings_of(const std::vector<RetiredRing>& records) {
  uint64_t n = 0;
  for (const RetiredRing& r : records) n += r.rings;
  return n;
}

// --- fold_into: one rule per kind of number -------------------------------------------

struct CounterCase {
  us_ring_counter counter;
  uint64_t first, second, folded;
};

class FoldCounter : public ::testing::TestWithParam<CounterCase> {};

TEST_P(FoldCounter, AddsUpByItsRule) {
  const CounterCase c = GetParam();
  RetiredRing a = ring_of(7, "app", 1, 1'000);
  RetiredRing b = ring_of(7, "app", 1, 2'000);
  a.stats.counters[c.counter] = c.first;
  b.stats.counters[c.counter] = c.second;
  RetiredRing fold;
  fold_into(fold, a, FoldScope::Process, 0);
  fold_into(fold, b, FoldScope::Process, 0);
  EXPECT_EQ(fold.stats.counters[c.counter], c.folded);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, FoldCounter,
    ::testing::Values(CounterCase{US_RC_CQ_OVERFLOWS, 3, 4, 7},       // a count sums
                      CounterCase{US_RC_REAP_LAG_SUM_NS, 10, 20, 30},  // a sum sums
                      CounterCase{US_RC_REAP_LAG_MAX_NS, 50, 20, 50},  // a maximum keeps the larger
                      CounterCase{US_RC_CQ_DEPTH_MAX, 2, 9, 9},
                      CounterCase{US_RC_LOCAL_TW_PENDING_NS, 900, 950, 0}));  // a timestamp goes

TEST(FoldInto, ASleepingPollerBecomesTimeOffCpuAtItsRingsEnd) {
  RetiredRing a = ring_of(7, "app", 1, 5'000);
  a.stats.counters[US_RC_SQPOLL_OFFCPU_NS] = 100;
  a.stats.counters[US_RC_SQPOLL_OUT_NS] = 4'000;  // asleep for the last 1,000 ns
  RetiredRing fold;
  fold_into(fold, a, FoldScope::Process, 0);
  EXPECT_EQ(fold.stats.counters[US_RC_SQPOLL_OFFCPU_NS], 1'100u);
  EXPECT_EQ(fold.stats.counters[US_RC_SQPOLL_OUT_NS], 0u);
}

TEST(FoldInto, KeepsWhatTheRingsShareAndClearsTheRest) {
  RetiredRing a = ring_of(7, "app", 2, 1'000);
  RetiredRing b = ring_of(7, "app", 3, 2'000);
  a.info.setup_flags = 0x3;
  b.info.setup_flags = 0x1;
  b.info.cq_entries = 32;
  b.ops[0].counters[US_OC_LAT_MAX_NS] = 77;
  b.errnos = {{us_errno_key{1, kRead, 9}, 2}};
  RetiredRing fold;
  fold_into(fold, a, FoldScope::Process, 0);
  fold_into(fold, b, FoldScope::Process, 0);
  EXPECT_EQ(fold.rings, 2u);
  EXPECT_EQ(fold.scope, FoldScope::Process);
  EXPECT_EQ(fold.row, kFoldRow);
  EXPECT_EQ(fold.info.tgid, 7u);
  EXPECT_EQ(fold.info.ctx, 0u);
  EXPECT_EQ(fold.info.fd, -1);
  EXPECT_EQ(fold.info.setup_flags, 0x1u);  // what both had
  EXPECT_EQ(fold.info.sq_entries, 8u);     // the same in both
  EXPECT_EQ(fold.info.cq_entries, 0u);     // not
  EXPECT_EQ(fold.info.first_ns, 999u);
  EXPECT_EQ(fold.retired_ns, 2'000u);
  ASSERT_EQ(fold.ops.size(), 1u);
  EXPECT_EQ(fold.ops[0].counters[US_OC_COMPLETED], 5u);
  EXPECT_EQ(fold.ops[0].hist[10], 5u);
  EXPECT_EQ(fold.ops[0].counters[US_OC_LAT_MAX_NS], 77u);
  EXPECT_EQ(fold.ops[0].ring, kFoldRow);
  ASSERT_EQ(fold.errnos.size(), 1u);
  EXPECT_EQ(fold.errnos[0].first.ring, kFoldRow);
}

TEST(FoldInto, ACommandFoldNamesNoProcessAndTheFoldOfAllNoName) {
  RetiredRing command, all;
  fold_into(command, ring_of(7, "app", 1), FoldScope::Command, 0);
  fold_into(all, ring_of(7, "app", 1), FoldScope::All, 0);
  EXPECT_EQ(command.info.tgid, 0u);
  EXPECT_STREQ(command.info.comm, "app");
  EXPECT_EQ(all.info.tgid, 0u);
  EXPECT_STREQ(all.info.comm, "");
}

us_inflight request(uint64_t req, uint64_t start_ns, uint8_t state = US_IF_ABANDONED) {
  us_inflight w{};
  w.req = req;
  w.start_ns = start_ns;
  w.opcode = kRead;
  w.state = state;
  return w;
}

TEST(FoldInto, KeepsTheOldestRequestsLeftAndCountsTheRestByKind) {
  RetiredRing fold;
  const uint64_t extra = 10;
  for (uint64_t i = 0; i < kLeakRecordsPerFold + extra; ++i) {
    RetiredRing ring = ring_of(7, "app", 1, 10'000 + i);
    // Each left one request 5,000 - i ns old at its ring's end; the ten youngest are
    // polls (waiting), so what is dropped is counted as waiting.
    const uint8_t state = i < kLeakRecordsPerFold ? US_IF_ABANDONED
                                                  : static_cast<uint8_t>(US_WHERE_POLL << US_IF_WHERE_SHIFT);
    ring.pending = {request(0x100 + i, 5'000 + 2 * i, state)};
    fold_into(fold, ring, FoldScope::Process, 1'000);
  }
  ASSERT_EQ(fold.pending.size(), kLeakRecordsPerFold);
  EXPECT_EQ(fold.unlisted_waiting, extra);
  EXPECT_EQ(fold.unlisted_suspected, 0u);
  // Ages are kept though the fold's end moved: the first ring's request was 5,000 ns old.
  const us_inflight& first = fold.pending.front();
  EXPECT_EQ(first.req, 0x100u);
  EXPECT_EQ(fold.retired_ns - first.start_ns, 5'000u);
}

TEST(FoldInto, KeepsTheBusiestFiles) {
  RetiredRing fold;
  for (uint32_t i = 0; i < kFilesPerFold + 5; ++i) {
    RetiredRing ring = ring_of(7, "app", 1, 1'000 + i);
    us_file_key key{};
    key.id.inode = 0x5000 + i;
    key.ring = 1;
    key.opcode = kRead;
    us_filestat stat{};
    stat.counters[US_FC_REQUESTS] = i + 1;
    ring.files = {{key, stat}, {key, stat}};  // the same file twice: one row
    fold_into(fold, ring, FoldScope::Process, 0);
  }
  ASSERT_EQ(fold.files.size(), kFilesPerFold);
  EXPECT_EQ(fold.files.front().first.id.inode, 0x5000u + kFilesPerFold + 4);
  EXPECT_EQ(fold.files.front().second.counters[US_FC_REQUESTS], 2u * (kFilesPerFold + 5));
  EXPECT_EQ(fold.files.front().first.ring, kFoldRow);
}

// --- RetiredStore: bounded records, exact totals ---------------------------------------

struct StoreCase {
  const char* name;
  FoldLimits limits;
  uint32_t processes;     // rings cycle over this many pids...
  uint32_t commands;      // ... and this many names
  uint64_t rings;
  std::size_t max_records;
};

class StoreBound : public ::testing::TestWithParam<StoreCase> {};

TEST_P(StoreBound, StaysBoundedAndLosesNothingFromTheTotals) {
  const StoreCase c = GetParam();
  RetiredStore store(c.limits);
  uint64_t nops = 0;
  const char* names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  for (uint64_t i = 0; i < c.rings; ++i) {
    const uint64_t n = 1 + i % 5;
    nops += n;
    store.add(ring_of(100 + static_cast<uint32_t>(i % c.processes), names[i % c.commands], n, 1'000 + i));
    ASSERT_LE(store.size(), c.max_records) << c.name << " after " << i + 1;
  }
  const auto records = store.records();
  EXPECT_EQ(store.rings_seen(), c.rings);
  EXPECT_EQ(rings_of(records), c.rings);
  EXPECT_EQ(nops_of(records), nops);
}

INSTANTIATE_TEST_SUITE_P(
    Bounds, StoreBound,
    ::testing::Values(
        // 16 kept (+2 before a batch folds), one fold per process.
        StoreCase{"few processes", {.rings = 16, .processes = 4, .commands = 2}, 4, 2, 1'000, 16 + 2 + 4},
        // More processes than process folds: names fold too, then everything.
        StoreCase{"many processes", {.rings = 16, .processes = 4, .commands = 2}, 50, 8, 5'000, 16 + 2 + 4 + 2 + 1},
        StoreCase{"nothing kept", {.rings = 0, .processes = 0, .commands = 0}, 9, 3, 100, 1 + 1},
        StoreCase{"everything kept", {.rings = FoldLimits::kUnbounded}, 9, 3, 300, 300}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

TEST(RetiredStore, KeepsTheRingsARuleCouldNameThenTheBusiest) {
  RetiredStore store({.rings = 2, .processes = 8, .commands = 8});
  RetiredRing overflowed = ring_of(7, "app", 1, 1'000);
  overflowed.stats.counters[US_RC_CQ_OVERFLOWS] = 1;
  store.add(overflowed);
  store.add(ring_of(7, "app", 500, 2'000));  // the busiest quiet one
  for (uint64_t i = 0; i < 20; ++i) store.add(ring_of(7, "app", 2, 3'000 + i));
  const auto records = store.records();
  std::vector<uint64_t> kept;
  for (const RetiredRing& r : records)
    if (r.scope == FoldScope::Ring) kept.push_back(r.retired_ns);
  // A batch folds once 2 + 1 are held: the last one or two may still wait for theirs.
  ASSERT_GE(kept.size(), 2u);
  EXPECT_EQ(kept[0], 1'000u);
  EXPECT_EQ(kept[1], 2'000u);
  EXPECT_EQ(store.rings_folded() + kept.size(), 22u);
}

// --- the snapshot and the interval of a fold -------------------------------------------

TEST(RetiredStore, AFoldIsARowOfTheSnapshot) {
  RetiredStore store({.rings = 0, .processes = 0, .commands = 4});
  store.add(ring_of(7, "app", 3, 1'000));
  store.add(ring_of(8, "app", 4, 2'000));
  RawTables raw;
  raw.ring_info.resize(1);
  raw.ring_stats.resize(1);
  raw.retired = store.records();
  Snapshot snap = build_snapshot(raw, {.end_ns = 10'000});
  ASSERT_EQ(snap.rings.size(), 1u);
  const Ring& fold = snap.rings[0];
  EXPECT_EQ(fold.fold, FoldScope::Command);
  EXPECT_EQ(fold.folded_rings, 2u);
  EXPECT_TRUE(fold.destroyed);
  EXPECT_EQ(fold.pid, 0u);
  EXPECT_EQ(fold.comm, "app");
  EXPECT_EQ(fold.fd, -1);
  EXPECT_EQ(snap.totals.completions, 7u);
  EXPECT_EQ(fold.counters.rings_created, 2u);  // both set up inside the window
}

// Two readings of a store: a ring kept in the first, folded by the second, whose own
// numbers did not change, adds nothing to the interval; a ring new in the interval adds
// its own.
TEST(RetiredStore, AnIntervalCountsWhatRingsDidNotWhereTheyWentLater) {
  FoldLimits limits{.rings = 1, .processes = 4, .commands = 4};
  RetiredStore store(limits);
  store.add(ring_of(7, "app", 3, 1'000));
  auto read = [&](uint64_t end_ns) {
    RawTables raw;
    raw.ring_info.resize(1);
    raw.ring_stats.resize(1);
    raw.retired = store.records();
    return build_snapshot(raw, {.end_ns = end_ns});
  };
  const Snapshot before = read(10'000);
  ASSERT_EQ(before.rings.size(), 1u);
  ASSERT_EQ(before.rings[0].fold, FoldScope::Ring);
  store.add(ring_of(7, "app", 4, 2'000));  // the bound is reached: the quieter folds
  store.add(ring_of(7, "app", 5, 3'000));
  const Snapshot after = read(20'000);
  EXPECT_EQ(after.totals.completions, 12u);
  const Snapshot interval = snapshot_delta(after, before);
  EXPECT_EQ(interval.totals.completions, 9u);
}

}  // namespace
}  // namespace uringscope
