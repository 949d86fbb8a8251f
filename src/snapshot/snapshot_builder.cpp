// SPDX-License-Identifier: MIT
#include "snapshot/snapshot_builder.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "snapshot/file_rows.h"
#include "snapshot/leak_scan.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

// A log2 histogram as the BPF side keeps it: US_HIST_SLOTS counts, its sum and maximum.
Histogram histogram_of(const __u64 (&slots)[US_HIST_SLOTS], uint64_t sum_ns, uint64_t max_ns) {
  static_assert(US_HIST_SLOTS == kHistBuckets);
  Histogram h;
  std::copy(std::begin(slots), std::end(slots), h.buckets.begin());
  h.sum_ns = sum_ns;
  h.max_ns = max_ns;
  return h;
}

constexpr uint32_t kNoRing = 0xffffffffu;  // us_opstat.ring of a row lost to a race

OpStats op_from_row(const us_opstat& row) {
  const auto& c = row.counters;
  OpStats op;
  op.opcode = row.opcode;
  for (const OpCounterField& field : kOpCounterFields) op.*field.member = c[field.abi];
  for (const PuntReasonField& field : kPuntReasonFields)
    op.punt_reasons.*field.member = c[field.abi];
  op.latency = histogram_of(row.hist, c[US_OC_LAT_SUM_NS], c[US_OC_LAT_MAX_NS]);
  return op;
}

bool has_activity(const OpStats& op) {
  return op.submitted || op.completed || op.punted || op.failed || op.poll_armed;
}

RingSource source_of(uint32_t row, uint32_t source) {
  if (row == US_RING_CATCHALL) return RingSource::CatchAll;
  switch (source) {
    case US_RING_FROM_CREATE: return RingSource::Create;
    case US_RING_FROM_FDS: return RingSource::FdTable;
    default: return RingSource::Submit;
  }
}

void derive_ring_counters(Ring& ring, const us_ring_stats& stats, uint64_t end_ns) {
  const auto& r = stats.counters;
  Counters& c = ring.counters;
  c.enter_calls = r[US_RC_ENTER_CALLS];
  c.enter_submit_calls = r[US_RC_ENTER_SUBMIT_CALLS];
  c.to_submit_sum = r[US_RC_TO_SUBMIT_SUM];
  c.sqpoll_wakeups = r[US_RC_SQ_WAKEUPS];
  c.cq_overflows = r[US_RC_CQ_OVERFLOWS];
  c.inflight_map_drops = r[US_RC_INFLIGHT_DROPS];
  c.short_writes = r[US_RC_SHORT_WRITES];
  c.task_adds = r[US_RC_TASK_ADDS];
  c.task_work_runs = r[US_RC_TW_RUNS];
  c.task_work_items = r[US_RC_TW_ITEMS];
  c.local_task_work_runs = r[US_RC_LOCAL_TW_RUNS];
  c.local_task_work_items = r[US_RC_LOCAL_TW_ITEMS];
  c.local_task_work_max_lag_ns = r[US_RC_LOCAL_TW_LAG_MAX_NS];
  c.local_task_work_pending_ns = age_at(r[US_RC_LOCAL_TW_PENDING_NS], end_ns);
  // A SQPOLL thread asleep when the window closed has been off-CPU since it left.
  c.sqpoll_offcpu_ns = r[US_RC_SQPOLL_OFFCPU_NS] + age_at(r[US_RC_SQPOLL_OUT_NS], end_ns);
  c.sqpoll_sleeps = r[US_RC_SQPOLL_SLEEPS];
  c.sqpoll_preempts = r[US_RC_SQPOLL_PREEMPTS];
  c.aux_cqes_by_request = r[US_RC_AUX_BY_REQ];
  // CQEs that carried neither a known request nor an opcode belong to no op row.
  c.completions = r[US_RC_UNTRACKED_CQES];
  c.untracked_completions = r[US_RC_UNTRACKED_CQES];
  for (const OpStats& op : ring.ops) {
    c.submissions += op.submitted;
    c.completions += op.completed;
    c.untracked_completions += op.untracked;
    c.punted += op.punted;
    c.errors += op.errors;
    c.multishot_cqes += op.multishot_cqes;
    c.failed_requests += op.failed;
    c.poll_armed += op.poll_armed;
    c.poll_armed_regular += op.poll_armed_regular;
    c.cancelled_at_exit += op.cancelled_at_exit;
  }
  c.rings_created = ring.source == RingSource::Create ? 1 : 0;
}

void derive_boundary(RingBoundary& b, const us_ring_stats& stats) {
  const auto& r = stats.counters;
  b.cq_depth_samples = r[US_RC_CQ_DEPTH_SAMPLES];
  b.cq_depth_sum = r[US_RC_CQ_DEPTH_SUM];
  b.cq_depth_max = r[US_RC_CQ_DEPTH_MAX];
  b.reap_lag = histogram_of(stats.reap_hist, r[US_RC_REAP_LAG_SUM_NS], r[US_RC_REAP_LAG_MAX_NS]);
  b.reap_lag_min = histogram_of(stats.reap_lo_hist,
                                r[US_RC_REAP_LAG_SUM_NS] - r[US_RC_REAP_GAP_SUM_NS],
                                r[US_RC_REAP_LO_MAX_NS]);
  b.reap_gap_sum_ns = r[US_RC_REAP_GAP_SUM_NS];
  b.reap_gap_max_ns = r[US_RC_REAP_GAP_MAX_NS];
  b.timer_looks = r[US_RC_REAP_TICKS];
  b.reap_untimed = r[US_RC_REAP_UNTIMED];
  b.reap_never = r[US_RC_REAP_NEVER];
  b.reap_never_max_ns = r[US_RC_REAP_NEVER_MAX_NS];
  b.sq_wait = histogram_of(stats.sq_wait_hist, r[US_RC_SQ_WAIT_SUM_NS], r[US_RC_SQ_WAIT_MAX_NS]);
  b.sq_taken_unseen = r[US_RC_SQ_TAKEN_UNSEEN];
  b.sq_wait.buckets[0] += b.sq_taken_unseen;  // waits of 0 as far as the looks could tell
  b.sq_res_sum_ns = r[US_RC_SQ_RES_SUM_NS];
  b.sq_res_max_ns = r[US_RC_SQ_RES_MAX_NS];
  b.sq_timer_looks = r[US_RC_SQ_TICKS];
  b.lu_submit_calls = r[US_RC_LU_SUBMIT_CALLS];
  b.lu_submit_sqes = r[US_RC_LU_SUBMIT_SQES];
  b.lu_submit_max = r[US_RC_LU_SUBMIT_MAX];
  b.lu_cqes_handed = r[US_RC_LU_CQES_HANDED];
  b.lu_reap_lag = histogram_of(stats.lu_reap_hist, r[US_RC_LU_REAP_SUM_NS], r[US_RC_LU_REAP_MAX_NS]);
}

// The hazards onto the counters: each ring's own, and every one in the totals (those of
// rings past kMaxHazardRings too).
void add_hazard_counters(Snapshot& snap) {
  for (const RingHazards& counts : snap.hazards.rings) {
    auto ring = std::find_if(snap.rings.begin(), snap.rings.end(),
                             [&](const Ring& r) { return r.id == counts.ring; });
    if (ring == snap.rings.end()) continue;
    ring->counters.hazard_overlaps = counts.overlaps;
    ring->counters.hazard_bufreg = counts.bufreg;
    ring->counters.hazard_unmap = counts.unmap;
  }
  snap.totals.hazard_overlaps = snap.hazards.overlaps;
  snap.totals.hazard_bufreg = snap.hazards.bufreg;
  snap.totals.hazard_unmap = snap.hazards.unmap;
}

bool ring_has_activity(const Ring& ring) {
  const Counters& c = ring.counters;
  return !ring.ops.empty() || c.enter_calls || c.completions || c.cq_overflows ||
         c.inflight_map_drops || c.task_adds || c.task_work_runs || c.short_writes;
}

void sort_by_opcode(std::vector<OpStats>& ops) {
  std::sort(ops.begin(), ops.end(),
            [](const OpStats& a, const OpStats& b) { return a.opcode < b.opcode; });
}

// The errno counts of ring row `row` onto its ops, most frequent first.
void attach_errnos(std::vector<OpStats>& ops,
                   const std::vector<std::pair<us_errno_key, uint64_t>>& errnos, uint32_t row) {
  for (const auto& [key, count] : errnos) {
    if (key.ring != row) continue;
    for (OpStats& op : ops) {
      if (op.opcode == key.opcode) op.errnos.push_back({key.err, count});
    }
  }
  for (OpStats& op : ops) {
    std::sort(op.errnos.begin(), op.errnos.end(), [](const ErrnoCount& a, const ErrnoCount& b) {
      return a.count != b.count ? a.count > b.count : a.err < b.err;
    });
  }
}

std::map<uint32_t, std::vector<OpStats>> ops_by_ring_row(const RawTables& raw, std::size_t rows) {
  static_assert(US_OP_OTHER == kOpcodeOther);
  std::map<uint32_t, std::vector<OpStats>> by_row;
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
    if (has_activity(op)) by_row[ring_row].push_back(op);
  }
  for (auto& [row, ops] : by_row) sort_by_opcode(ops);
  // The errno table hangs off the same (ring row, opcode) keys.
  for (auto& [row, ops] : by_row) attach_errnos(ops, raw.errnos, row);
  return by_row;
}

// The io-wq workers seen per process (counted apart from the thread table, which forgets
// threads that exit), and each ring's SQPOLL thread.
void attach_threads(Snapshot& snap, const RawTables& raw,
                    const std::map<uint32_t, uint32_t>& id_of_row) {
  std::map<uint32_t, uint64_t> workers_by_pid(raw.worker_counts.begin(), raw.worker_counts.end());
  for (const auto& [tid, t] : raw.threads) {
    if (t.kind == US_THREAD_SQPOLL) {
      auto id = id_of_row.find(t.ring);
      if (id != id_of_row.end() && snap.rings[id->second].sq_tid == 0) {
        snap.rings[id->second].sq_tid = tid;
      }
    }
  }
  for (const auto& [pid, n] : workers_by_pid) snap.workers.push_back({pid, n});
  for (Ring& ring : snap.rings) {
    auto w = workers_by_pid.find(ring.pid);
    ring.counters.workers_distinct = w == workers_by_pid.end() ? 0 : w->second;
  }
}

Ring ring_of(uint32_t row, const us_ring_info& info, const us_ring_stats& stats,
             std::vector<OpStats> ops, uint64_t end_ns) {
  Ring ring;
  ring.ctx = info.ctx;
  ring.pid = info.tgid;
  ring.comm.assign(info.comm, strnlen(info.comm, sizeof info.comm));
  ring.fd = info.fd;
  ring.sq_tid = info.sq_tid;
  ring.bpf_row = row;
  ring.first_ns = info.first_ns;
  ring.sq_entries = info.sq_entries;
  ring.cq_entries = info.cq_entries;
  ring.setup_flags = info.setup_flags;
  ring.source = source_of(row, info.source);
  ring.ops = std::move(ops);
  derive_ring_counters(ring, stats, end_ns);
  derive_boundary(ring.boundary, stats);
  return ring;
}

// The per-file rows of ring row `row` (named from every ring's names: names are per inode).
std::vector<FileStats> files_of_row(const FileRows& rows, const FileNames& names, uint32_t row) {
  auto by_row = files_by_ring_row(rows, names);
  auto it = by_row.find(row);
  return it == by_row.end() ? std::vector<FileStats>{} : std::move(it->second);
}

std::vector<OpStats> ops_of_retired(const RetiredRing& retired) {
  std::vector<OpStats> ops;
  for (const us_opstat& row : retired.ops) {
    OpStats op = op_from_row(row);
    if (has_activity(op)) ops.push_back(op);
  }
  sort_by_opcode(ops);
  attach_errnos(ops, retired.errnos, retired.row);
  return ops;
}

// Live rows and destroyed rings, each with where it came from (a row, or -1 - the
// position in raw.retired), in the order the tables hold them.
std::vector<std::pair<Ring, int64_t>> rings_found(const RawTables& raw, uint64_t end_ns) {
  const std::size_t rows = std::min(raw.ring_info.size(), raw.ring_stats.size());
  auto ops_by_row = ops_by_ring_row(raw, rows);
  auto files_by_row = files_by_ring_row(raw.files, raw.file_names);
  std::vector<std::pair<Ring, int64_t>> found;
  for (uint32_t row = 0; row < rows; ++row) {
    const us_ring_info& info = raw.ring_info[row];
    auto it = ops_by_row.find(row);
    Ring ring = ring_of(row, info, raw.ring_stats[row],
                        it == ops_by_row.end() ? std::vector<OpStats>{} : std::move(it->second),
                        end_ns);
    // A row whose ctx is 0 lost an allocation race, or was given back by a destroyed
    // ring, or is the catch-all: it owns no ring unless events were lumped into it.
    if ((info.ctx == 0 || row == US_RING_CATCHALL) && !ring_has_activity(ring)) continue;
    if (auto files = files_by_row.find(row); files != files_by_row.end())
      ring.files = std::move(files->second);
    found.emplace_back(std::move(ring), row);
  }
  for (std::size_t i = 0; i < raw.retired.size(); ++i) {
    const RetiredRing& retired = raw.retired[i];
    Ring ring = ring_of(retired.row, retired.info, retired.stats,
                        ops_of_retired(retired), retired.retired_ns);
    ring.destroyed = true;
    ring.fold = retired.scope;
    ring.folded_rings = retired.scope == FoldScope::Ring ? 0 : retired.rings;
    if (ring.folded_rings) ring.counters.rings_created = retired.created;
    ring.files = files_of_row(retired.files, raw.file_names, retired.row);
    found.emplace_back(std::move(ring), -1 - static_cast<int64_t>(i));
  }
  return found;
}

}  // namespace

Snapshot build_snapshot(const RawTables& raw, SnapshotContext context) {
  Snapshot snap;
  snap.tool_version = context.tool_version;
  snap.wall_ns = context.wall_ns;
  snap.ncpus = context.ncpus;
  snap.kernel = context.kernel;
  snap.target = context.target;

  std::vector<std::pair<Ring, int64_t>> found = rings_found(raw, context.end_ns);
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    const bool a_all = a.first.source == RingSource::CatchAll;
    const bool b_all = b.first.source == RingSource::CatchAll;
    return a_all != b_all ? a_all : a.first.first_ns < b.first.first_ns;
  });

  std::map<uint32_t, uint32_t> id_of_row;
  std::vector<uint32_t> id_of_retired(raw.retired.size());
  const uint64_t window_start = context.end_ns > context.wall_ns ? context.end_ns - context.wall_ns : 0;
  for (auto& [ring, from] : found) {
    // From its first sight (or the window's start) to the window's end (or its own).
    const uint64_t until = from >= 0 ? context.end_ns : raw.retired[static_cast<std::size_t>(-1 - from)].retired_ns;
    const uint64_t since = std::max(ring.first_ns, window_start);
    if (context.end_ns && ring.first_ns && until > since) ring.observed_ns = until - since;
    ring.id = static_cast<uint32_t>(snap.rings.size());
    if (from >= 0) id_of_row[static_cast<uint32_t>(from)] = ring.id;
    else id_of_retired[static_cast<std::size_t>(-1 - from)] = ring.id;
    snap.rings.push_back(std::move(ring));
  }

  attach_threads(snap, raw, id_of_row);
  scan_leaks(snap, raw, id_of_row, id_of_retired, context);

  for (const ToolField& field : kToolFields) snap.tool.*field.member = raw.tool[field.abi];
  snap.boundary_measured = raw.cqe_order_known;
  snap.liburing = raw.liburing;
  aggregate(snap);
  if (context.ring_fds) {
    const std::vector<int> fds = context.ring_fds(snap.rings);
    for (std::size_t i = 0; i < snap.rings.size() && i < fds.size(); ++i) {
      if (snap.rings[i].fd < 0 && fds[i] >= 0) snap.rings[i].fd = fds[i];
    }
  }
  if (context.hazards) {
    snap.hazards = context.hazards(snap.rings);
    snap.hazards.checked = true;
    add_hazard_counters(snap);
  }
  snap.leak.waiting_samples = std::move(context.waiting_samples);
  return snap;
}

}  // namespace uringscope
