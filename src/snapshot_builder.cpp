// SPDX-License-Identifier: MIT
#include "uringscope/snapshot_builder.h"

#include "uringscope/opcodes.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace uringscope {
namespace {

constexpr uint32_t kNoRing = 0xffffffffu;  // us_opstat.ring of a row lost to a race

OpStats op_from_row(const us_opstat& row) {
  OpStats op;
  op.opcode = row.opcode;
  op.submitted = row.counters[US_OC_SUBMITTED];
  op.completed = row.counters[US_OC_COMPLETED];
  op.untracked = row.counters[US_OC_UNTRACKED];
  op.punted = row.counters[US_OC_PUNTED];
  op.errors = row.counters[US_OC_ERRORS];
  op.multishot_cqes = row.counters[US_OC_MULTISHOT_CQES];
  static_assert(US_HIST_SLOTS == kHistBuckets);
  std::copy(std::begin(row.hist), std::end(row.hist), op.latency.buckets.begin());
  op.latency.sum_ns = row.counters[US_OC_LAT_SUM_NS];
  op.latency.max_ns = row.counters[US_OC_LAT_MAX_NS];
  return op;
}

bool has_activity(const OpStats& op) {
  return op.submitted || op.completed || op.punted;
}

RingSource source_of(uint32_t row, uint32_t source) {
  if (row == US_RING_CATCHALL) return RingSource::CatchAll;
  switch (source) {
    case US_RING_FROM_CREATE: return RingSource::Create;
    case US_RING_FROM_FDS: return RingSource::FdTable;
    default: return RingSource::Submit;
  }
}

void derive_ring_counters(Ring& ring, const us_ring_stats& stats) {
  Counters& c = ring.counters;
  c.enter_calls = stats.counters[US_RC_ENTER_CALLS];
  c.enter_submit_calls = stats.counters[US_RC_ENTER_SUBMIT_CALLS];
  c.to_submit_sum = stats.counters[US_RC_TO_SUBMIT_SUM];
  c.cq_overflows = stats.counters[US_RC_CQ_OVERFLOWS];
  c.inflight_map_drops = stats.counters[US_RC_INFLIGHT_DROPS];
  // CQEs that carried neither a known request nor an opcode belong to no op row.
  c.completions = stats.counters[US_RC_UNTRACKED_CQES];
  c.untracked_completions = stats.counters[US_RC_UNTRACKED_CQES];
  for (const OpStats& op : ring.ops) {
    c.submissions += op.submitted;
    c.completions += op.completed;
    c.untracked_completions += op.untracked;
    c.punted += op.punted;
    c.errors += op.errors;
    c.multishot_cqes += op.multishot_cqes;
  }
  c.rings_created = ring.source == RingSource::Create ? 1 : 0;
}

bool ring_has_activity(const Ring& ring) {
  const Counters& c = ring.counters;
  return !ring.ops.empty() || c.enter_calls || c.completions || c.cq_overflows ||
         c.inflight_map_drops;
}

}  // namespace

Snapshot build_snapshot(const RawTables& raw, SnapshotContext context) {
  Snapshot snap;
  snap.tool_version = std::move(context.tool_version);
  snap.wall_ns = context.wall_ns;
  snap.ncpus = context.ncpus;
  snap.kernel = std::move(context.kernel);
  snap.target = std::move(context.target);

  const std::size_t rows = std::min(raw.ring_info.size(), raw.ring_stats.size());
  std::map<uint32_t, std::vector<OpStats>> ops_by_row;
  static_assert(US_OP_OTHER == kOpcodeOther);
  for (std::size_t i = 0; i < raw.opstats.size(); ++i) {
    const us_opstat& row = raw.opstats[i];
    OpStats op = op_from_row(row);
    uint32_t ring_row = row.ring;
    if (i == US_OPSTAT_CATCHALL) {
      // Events of any ring and opcode once the opstat pool was full.
      ring_row = US_RING_CATCHALL;
      op.opcode = kOpcodeOther;
    }
    if (ring_row == kNoRing || ring_row >= rows) continue;
    if (has_activity(op)) ops_by_row[ring_row].push_back(op);
  }

  for (uint32_t row = 0; row < rows; ++row) {
    const us_ring_info& info = raw.ring_info[row];
    // A row whose ctx is 0 lost an allocation race (or is the catch-all): it owns no
    // ring unless events were lumped into it.
    Ring ring;
    ring.ctx = info.ctx;
    ring.pid = info.tgid;
    ring.comm.assign(info.comm, strnlen(info.comm, sizeof info.comm));
    ring.fd = info.fd;
    ring.sq_entries = info.sq_entries;
    ring.cq_entries = info.cq_entries;
    ring.setup_flags = info.setup_flags;
    ring.source = source_of(row, info.source);
    if (auto it = ops_by_row.find(row); it != ops_by_row.end()) {
      ring.ops = std::move(it->second);
      std::sort(ring.ops.begin(), ring.ops.end(),
                [](const OpStats& a, const OpStats& b) { return a.opcode < b.opcode; });
    }
    derive_ring_counters(ring, raw.ring_stats[row]);
    if (info.ctx == 0 && !ring_has_activity(ring)) continue;
    if (row == US_RING_CATCHALL && !ring_has_activity(ring)) continue;
    ring.id = static_cast<uint32_t>(snap.rings.size());
    snap.rings.push_back(std::move(ring));
  }

  snap.tool.rings_full = raw.tool[US_TOOL_RINGS_FULL];
  snap.tool.opstats_full = raw.tool[US_TOOL_OPSTATS_FULL];
  snap.tool.op_out_of_range = raw.tool[US_TOOL_OP_OUT_OF_RANGE];
  snap.tool.enter_no_ring = raw.tool[US_TOOL_ENTER_NO_RING];
  snap.tool.overflow_no_req = raw.tool[US_TOOL_OVERFLOW_NO_REQ];
  aggregate(snap);
  return snap;
}

}  // namespace uringscope
