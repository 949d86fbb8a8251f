// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstring>

#include "uringscope/opcodes.h"
#include "uringscope/snapshot_builder.h"

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

}  // namespace
}  // namespace uringscope
