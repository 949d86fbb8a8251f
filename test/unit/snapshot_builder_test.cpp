// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstring>

#include "uringscope/opcodes.h"
#include "snapshot/snapshot_builder.h"

namespace uringscope {
namespace {

constexpr uint32_t kRead = 22;
constexpr uint32_t kNop = 0;

us_ring_info ring_row(uint64_t ctx, uint32_t tgid, int32_t fd, uint32_t source,
                      const char* comm) {
  us_ring_info info{};
  info.ctx = ctx;
  info.tgid = tgid;
  info.fd = fd;
  info.sq_entries = 64;
  info.cq_entries = 128;
  info.setup_flags = 0;
  info.source = source;
  std::strncpy(info.comm, comm, sizeof info.comm - 1);
  return info;
}

us_opstat op_row(uint32_t ring, uint32_t opcode, uint64_t submitted, uint64_t completed) {
  us_opstat row{};
  row.ring = ring;
  row.opcode = opcode;
  row.counters[US_OC_SUBMITTED] = submitted;
  row.counters[US_OC_COMPLETED] = completed;
  return row;
}

// Rows as the BPF side leaves them: row 0 of each table is the catch-all.
RawTables two_rings() {
  RawTables raw;
  raw.ring_info = {us_ring_info{}, ring_row(0x1000, 42, 5, US_RING_FROM_CREATE, "app"),
                   ring_row(0x2000, 43, -1, US_RING_FROM_SUBMIT, "other")};
  raw.ring_stats.resize(3);
  raw.ring_stats[1].counters[US_RC_ENTER_CALLS] = 10;
  raw.ring_stats[1].counters[US_RC_ENTER_SUBMIT_CALLS] = 8;
  raw.ring_stats[1].counters[US_RC_TO_SUBMIT_SUM] = 100;
  raw.ring_stats[1].counters[US_RC_UNTRACKED_CQES] = 3;
  raw.ring_stats[1].counters[US_RC_CQ_OVERFLOWS] = 2;
  us_opstat read = op_row(1, kRead, 90, 90);
  read.counters[US_OC_PUNTED] = 9;
  read.counters[US_OC_ERRORS] = 1;
  read.counters[US_OC_UNTRACKED] = 4;
  read.hist[10] = 86;
  read.counters[US_OC_LAT_SUM_NS] = 86 * 1500;
  read.counters[US_OC_LAT_MAX_NS] = 2000;
  raw.opstats = {us_opstat{}, read, op_row(1, kNop, 10, 10), op_row(2, kNop, 5, 5)};
  return raw;
}

TEST(SnapshotBuilder, RingsOpsAndDerivedCounters) {
  Snapshot snap = build_snapshot(two_rings(), {"1.2.3", 5'000'000, 2, {}, {}});
  EXPECT_EQ(snap.tool_version, "1.2.3");
  ASSERT_EQ(snap.rings.size(), 2u);  // the idle catch-all row is dropped

  const Ring& app = snap.rings[0];
  EXPECT_EQ(app.id, 0u);
  EXPECT_EQ(app.pid, 42u);
  EXPECT_EQ(app.comm, "app");
  EXPECT_EQ(app.fd, 5);
  EXPECT_EQ(app.source, RingSource::Create);
  ASSERT_EQ(app.ops.size(), 2u);
  EXPECT_EQ(app.ops[0].opcode, kNop);  // ascending opcode, whatever the row order
  EXPECT_EQ(app.ops[1].opcode, kRead);
  EXPECT_EQ(app.ops[1].latency.count(), 86u);
  EXPECT_EQ(app.ops[1].latency.max_ns, 2000u);
  const Counters& c = app.counters;
  EXPECT_EQ(c.enter_calls, 10u);
  EXPECT_EQ(c.enter_submit_calls, 8u);
  EXPECT_EQ(c.to_submit_sum, 100u);
  EXPECT_EQ(c.submissions, 100u);               // 90 READ + 10 NOP
  EXPECT_EQ(c.completions, 103u);               // 90 + 10 + 3 CQEs without an op
  EXPECT_EQ(c.untracked_completions, 7u);       // 4 READ + 3 without an op
  EXPECT_EQ(c.punted, 9u);
  EXPECT_EQ(c.errors, 1u);
  EXPECT_EQ(c.cq_overflows, 2u);
  EXPECT_EQ(c.rings_created, 1u);

  const Ring& other = snap.rings[1];
  EXPECT_EQ(other.id, 1u);
  EXPECT_EQ(other.fd, -1);
  EXPECT_EQ(other.source, RingSource::Submit);
  EXPECT_EQ(other.counters.rings_created, 0u);

  EXPECT_EQ(snap.totals.submissions, 105u);
  ASSERT_EQ(snap.ops.size(), 2u);
  EXPECT_EQ(snap.ops[0].opcode, kNop);
  EXPECT_EQ(snap.ops[0].submitted, 15u);  // merged over both rings
}

TEST(SnapshotBuilder, RowsLostToRacesAreSkipped) {
  RawTables raw = two_rings();
  // A ring row whose insert lost the race keeps ctx 0; an opstat row that lost keeps
  // ring = ~0.
  raw.ring_info.push_back(us_ring_info{});
  raw.ring_stats.emplace_back();
  us_opstat orphan = op_row(0xffffffffu, kRead, 7, 7);
  raw.opstats.push_back(orphan);
  Snapshot snap = build_snapshot(raw, {});
  EXPECT_EQ(snap.rings.size(), 2u);
  EXPECT_EQ(snap.totals.submissions, 105u);
}

TEST(SnapshotBuilder, CatchAllRowsAppearWhenUsed) {
  RawTables raw = two_rings();
  // Ring table full: events of rings without a row were counted in row 0; opstat pool
  // full: in opstat row 0, whatever their ring and opcode.
  raw.ring_stats[0].counters[US_RC_ENTER_CALLS] = 4;
  raw.opstats[0].counters[US_OC_SUBMITTED] = 6;
  raw.tool[US_TOOL_RINGS_FULL] = 4;
  raw.tool[US_TOOL_OPSTATS_FULL] = 6;
  Snapshot snap = build_snapshot(raw, {});
  ASSERT_EQ(snap.rings.size(), 3u);
  const Ring& catchall = snap.rings[0];
  EXPECT_EQ(catchall.source, RingSource::CatchAll);
  EXPECT_EQ(catchall.counters.enter_calls, 4u);
  ASSERT_EQ(catchall.ops.size(), 1u);
  EXPECT_EQ(catchall.ops[0].opcode, kOpcodeOther);
  EXPECT_EQ(opcode_name(catchall.ops[0].opcode), "OTHER");
  EXPECT_EQ(snap.tool.rings_full, 4u);
  EXPECT_EQ(snap.tool.opstats_full, 6u);
}

us_inflight in_flight(uint64_t req, uint64_t start_ns, uint16_t ring, uint8_t opcode,
                      uint8_t state, uint64_t user_data = 0) {
  us_inflight w{};
  w.req = req;
  w.start_ns = start_ns;
  w.ring = ring;
  w.opcode = opcode;
  w.state = state;
  w.user_data = user_data;
  return w;
}

uint8_t where(uint32_t w) { return static_cast<uint8_t>(w << US_IF_WHERE_SHIFT); }

constexpr uint32_t kOpenat = 18;
constexpr uint32_t kRecv = 27;

TEST(SnapshotBuilder, LeakScanSplitsStuckFromWaiting) {
  RawTables raw = two_rings();
  const uint64_t end = 10'000'000'000;  // 10 s
  us_inflight_bucket a{}, b{};
  // Stuck in io-wq for 3 s: suspected.
  a.way[0] = in_flight(0x100, end - 3'000'000'000, 1, kOpenat, where(US_WHERE_IOWQ), 0xabc);
  // A RECV armed on poll for 5 s: waiting, so only pending.
  a.way[1] = in_flight(0x200, end - 5'000'000'000, 1, kRecv, where(US_WHERE_POLL));
  // Young: below the leak age.
  b.way[0] = in_flight(0x300, end - 100'000'000, 2, kRead, 0);
  // CQE_SKIP leftovers are not leaks; abandoned ones are, even with CQE_SKIP.
  b.way[1] = in_flight(0x400, end - 4'000'000'000, 2, kNop, US_IF_CQE_SKIP);
  raw.inflight = {a, b};
  us_inflight_bucket c{};
  c.way[0] = in_flight(0x500, end - 2'000'000'000, 2, kRead, US_IF_ABANDONED | US_IF_CQE_SKIP);
  raw.inflight.push_back(c);

  Snapshot snap = build_snapshot(raw, {.end_ns = end, .leak_age_ns = 500'000'000});
  const LeakInfo& leak = snap.leak;
  EXPECT_EQ(leak.threshold_ns, 500'000'000u);
  EXPECT_EQ(leak.suspected, 2u);  // the stuck OPENAT and the abandoned READ
  EXPECT_EQ(leak.pending, 1u);    // the RECV
  EXPECT_EQ(leak.oldest_ns, 5'000'000'000u);
  ASSERT_EQ(leak.requests.size(), 3u);
  // Suspected before waiting, oldest first within each; ring rows mapped to report ids
  // (row 1 -> id 0, row 2 -> id 1).
  EXPECT_EQ(leak.requests[0].opcode, kOpenat);
  EXPECT_EQ(leak.requests[0].ring, 0u);
  EXPECT_EQ(leak.requests[0].user_data, 0xabcu);
  EXPECT_EQ(leak.requests[0].where, RequestWhere::IoWq);
  EXPECT_FALSE(leak.requests[0].waiting);
  EXPECT_TRUE(leak.requests[1].abandoned);
  EXPECT_EQ(leak.requests[1].ring, 1u);
  EXPECT_EQ(leak.requests[2].opcode, kRecv);
  EXPECT_TRUE(leak.requests[2].waiting);
  EXPECT_EQ(leak.requests[2].where, RequestWhere::Poll);
  EXPECT_EQ(snap.rings[0].counters.leaks_suspected, 1u);
  EXPECT_EQ(snap.rings[0].counters.leaks_pending, 1u);
  EXPECT_EQ(snap.rings[1].counters.leaks_suspected, 1u);
  EXPECT_EQ(snap.totals.leaks_suspected, 2u);
}

TEST(SnapshotBuilder, ErrnosThreadsAndTimestamps) {
  RawTables raw = two_rings();
  raw.errnos = {{{1, kRead, 9}, 3}, {{1, kRead, 22}, 7}, {{2, kNop, 9}, 1}, {{9, kRead, 9}, 5}};
  us_thread worker{.tgid = 42, .kind = US_THREAD_WORKER, .ring = 0, .pad = 0, .first_ns = 1};
  us_thread sqpoll{.tgid = 43, .kind = US_THREAD_SQPOLL, .ring = 2, .pad = 0, .first_ns = 1};
  // Two of pid 42's three workers have exited: the table forgot them, the count did not.
  raw.threads = {{500, worker}, {600, sqpoll}};
  raw.worker_counts = {{42, 3}};
  const uint64_t end = 1'000'000;
  raw.ring_stats[2].counters[US_RC_SQPOLL_OFFCPU_NS] = 1000;
  raw.ring_stats[2].counters[US_RC_SQPOLL_OUT_NS] = end - 400;  // asleep at the end
  raw.ring_stats[1].counters[US_RC_LOCAL_TW_PENDING_NS] = end - 70;
  raw.ring_stats[1].counters[US_RC_LOCAL_TW_LAG_MAX_NS] = 55;

  Snapshot snap = build_snapshot(raw, {.end_ns = end});
  const OpStats& read = snap.rings[0].ops[1];
  ASSERT_EQ(read.opcode, kRead);
  ASSERT_EQ(read.errnos.size(), 2u);  // row 9 has no ring: dropped
  EXPECT_EQ(read.errnos[0].err, 22);  // largest count first
  EXPECT_EQ(read.errnos[0].count, 7u);
  EXPECT_EQ(read.errnos[1].err, 9);
  EXPECT_EQ(snap.rings[1].ops[0].errnos.size(), 1u);

  ASSERT_EQ(snap.workers.size(), 1u);
  EXPECT_EQ(snap.workers[0].pid, 42u);
  EXPECT_EQ(snap.workers[0].distinct, 3u);
  EXPECT_EQ(snap.rings[0].counters.workers_distinct, 3u);
  EXPECT_EQ(snap.rings[1].counters.workers_distinct, 0u);
  EXPECT_EQ(snap.totals.workers_distinct, 3u);
  EXPECT_EQ(snap.rings[1].sq_tid, 600u);

  EXPECT_EQ(snap.rings[1].counters.sqpoll_offcpu_ns, 1400u);
  EXPECT_EQ(snap.rings[0].counters.local_task_work_pending_ns, 70u);
  EXPECT_EQ(snap.rings[0].counters.local_task_work_max_lag_ns, 55u);
}

}  // namespace
}  // namespace uringscope

namespace uringscope {
namespace {

// A ring destroyed mid-run whose row 1 now belongs to a newer ring.
RetiredRing destroyed_ring_in_row_1() {
  RetiredRing gone;
  gone.row = 1;
  gone.retired_ns = 3'000'000'000;
  gone.info = ring_row(0x1000, 41, 7, US_RING_FROM_CREATE, "suite");
  gone.info.first_ns = 50;
  gone.stats.counters[US_RC_ENTER_CALLS] = 4;
  us_opstat read = op_row(1, kRead, 6, 6);
  read.counters[US_OC_ERRORS] = 2;
  gone.ops = {read, op_row(1, kNop, 0, 0)};  // an idle row is no op
  gone.errnos = {{us_errno_key{1, kRead, 9}, 2}};
  // Abandoned when its owner exited, 2 s before the ring's end.
  us_inflight abandoned{};
  abandoned.req = 0x900;
  abandoned.start_ns = gone.retired_ns - 2'000'000'000;
  abandoned.ring = 1;
  abandoned.opcode = kRead;
  abandoned.state = US_IF_ABANDONED;
  gone.pending = {abandoned};
  return gone;
}

TEST(SnapshotBuilder, DestroyedRingsJoinLiveOnesInOrderOfFirstSight) {
  RawTables raw = two_rings();
  raw.ring_info[1].first_ns = 300;  // the ring now in row 1 came last
  raw.ring_info[2].first_ns = 100;
  raw.retired = {destroyed_ring_in_row_1()};
  Snapshot snap = build_snapshot(raw, {.end_ns = 10'000'000'000, .leak_age_ns = 500'000'000});

  ASSERT_EQ(snap.rings.size(), 3u);
  const Ring& gone = snap.rings[0];
  EXPECT_EQ(gone.id, 0u);
  EXPECT_TRUE(gone.destroyed);
  EXPECT_EQ(gone.pid, 41u);
  EXPECT_EQ(gone.comm, "suite");
  EXPECT_EQ(gone.bpf_row, 1u);
  EXPECT_EQ(gone.counters.enter_calls, 4u);
  ASSERT_EQ(gone.ops.size(), 1u);
  EXPECT_EQ(gone.ops[0].opcode, kRead);
  EXPECT_EQ(gone.ops[0].errors, 2u);
  ASSERT_EQ(gone.ops[0].errnos.size(), 1u);
  EXPECT_EQ(gone.ops[0].errnos[0].err, 9);
  EXPECT_EQ(snap.rings[1].pid, 43u);  // row 2, first seen at 100
  EXPECT_FALSE(snap.rings[1].destroyed);
  EXPECT_EQ(snap.rings[2].pid, 42u);  // row 1's current ring, first seen at 300
  EXPECT_EQ(snap.rings[2].bpf_row, 1u);
  // Its numbers are its own: the destroyed ring's are not mixed in.
  EXPECT_EQ(snap.rings[2].counters.enter_calls, 10u);
  ASSERT_EQ(snap.rings[2].ops.size(), 2u);
  EXPECT_TRUE(snap.rings[2].ops[1].errnos.empty());
  // Totals cover both rings that held row 1.
  EXPECT_EQ(snap.totals.submissions, 90u + 10u + 5u + 6u);

  // The request the destroyed ring abandoned is a leak of that ring, aged at its end.
  EXPECT_EQ(snap.leak.suspected, 1u);
  ASSERT_EQ(snap.leak.requests.size(), 1u);
  EXPECT_EQ(snap.leak.requests[0].ring, 0u);
  EXPECT_EQ(snap.leak.requests[0].age_ns, 2'000'000'000u);
  EXPECT_TRUE(snap.leak.requests[0].abandoned);
  EXPECT_EQ(gone.counters.leaks_suspected, 1u);
}

TEST(SnapshotBuilder, EachRingKnowsHowLongItWasWatched) {
  RawTables raw = two_rings();
  const uint64_t end = 10'000'000'000;
  raw.ring_info[1].first_ns = 1;              // found at attach, before the window
  raw.ring_info[2].first_ns = end - 3'000'000'000;  // created 3 s before the end
  raw.retired = {destroyed_ring_in_row_1()};  // first seen at 50, destroyed at 3 s
  Snapshot snap = build_snapshot(raw, {.wall_ns = 8'000'000'000, .end_ns = end});
  ASSERT_EQ(snap.rings.size(), 3u);
  EXPECT_EQ(snap.rings[0].observed_ns, 8'000'000'000u);  // the whole window
  EXPECT_TRUE(snap.rings[1].destroyed);
  EXPECT_EQ(snap.rings[1].observed_ns, 1'000'000'000u);  // window start (2 s) to 3 s
  EXPECT_EQ(snap.rings[2].observed_ns, 3'000'000'000u);
}

TEST(SnapshotBuilder, TheCatchAllRingStaysFirstWhateverItsTime) {
  RawTables raw = two_rings();
  raw.opstats[0] = op_row(0, kNop, 3, 3);  // events lumped into the catch-all
  raw.ring_info[1].first_ns = 5;
  raw.retired = {destroyed_ring_in_row_1()};
  Snapshot snap = build_snapshot(raw, {.end_ns = 10'000'000'000, .leak_age_ns = 500'000'000});
  ASSERT_EQ(snap.rings.size(), 4u);
  EXPECT_EQ(snap.rings[0].source, RingSource::CatchAll);
  EXPECT_EQ(snap.rings[1].pid, 43u);  // first_ns 0 sorts before 5 and 50
  EXPECT_EQ(snap.rings[2].pid, 42u);
  EXPECT_EQ(snap.rings[3].pid, 41u);
}

}  // namespace
}  // namespace uringscope

namespace uringscope {
namespace {

us_file_name named(const char* leaf, uint64_t ino) {
  us_file_name n{};
  n.mode = 0100644;  // S_IFREG
  n.ino = ino;
  std::strcpy(n.path, leaf);
  n.components = 1;
  return n;
}

us_filestat file_requests(uint64_t requests, uint64_t bytes) {
  us_filestat s{};
  s.counters[US_FC_REQUESTS] = requests;
  s.counters[US_FC_CQES] = requests;
  s.counters[US_FC_BYTES] = bytes;
  return s;
}

// The file rows go to the ring that held the row when they were counted: the live ring
// its own, the destroyed ring the ones collected at its teardown, names shared.
TEST(SnapshotBuilder, FileRowsBelongToTheRingThatCountedThem) {
  RawTables raw = two_rings();
  raw.ring_info[1].first_ns = 300;
  raw.ring_info[2].first_ns = 100;
  raw.retired = {destroyed_ring_in_row_1()};
  const us_file_id live{0xa000, 11, 0, 0}, old{0xb000, 12, 0, 0};
  raw.file_names = {{live, named("live.dat", 11)}, {old, named("old.dat", 12)}};
  raw.files = {{{live, 1, kRead}, file_requests(90, 9000)}};
  raw.retired[0].files = {{{old, 1, kRead}, file_requests(6, 600)}};
  Snapshot snap = build_snapshot(raw, {.end_ns = 10'000'000'000, .leak_age_ns = 500'000'000});

  ASSERT_EQ(snap.rings.size(), 3u);
  const Ring& gone = snap.rings[0];
  ASSERT_TRUE(gone.destroyed);
  ASSERT_EQ(gone.files.size(), 1u);
  EXPECT_EQ(gone.files[0].name, "/old.dat");
  EXPECT_EQ(gone.files[0].requests, 6u);
  const Ring& now = snap.rings[2];
  ASSERT_EQ(now.bpf_row, 1u);
  ASSERT_EQ(now.files.size(), 1u);
  EXPECT_EQ(now.files[0].name, "/live.dat");
  EXPECT_EQ(now.files[0].bytes, 9000u);
  EXPECT_TRUE(snap.rings[1].files.empty());
}

}  // namespace
}  // namespace uringscope
