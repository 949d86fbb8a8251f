// SPDX-License-Identifier: MIT
// Interval deltas for live mode: the difference of two cumulative readings of the
// kernel maps (docs/live.md). The rules for each kind of number are in live.h.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "snapshot/delta.h"
#include "snapshot/ring_sum.h"
#include "uringscope/fields.h"

namespace uringscope {
namespace {

// Everything the kernel keeps only grows, so an earlier reading is never larger; clamp
// anyway, because the maps are read entry by entry while the kernel keeps counting and a
// wrapped-around difference would print as 18 quintillion.
uint64_t sub(uint64_t after, uint64_t before) { return after > before ? after - before : 0; }

// A cumulative maximum over an interval: `after` when the interval had a sample or set
// a new maximum (exact in the second case, an upper bound in the first), else 0. See
// live.h; applied alike to histograms and to the task-work lag so both read the same.
uint64_t interval_max(uint64_t after, uint64_t before, bool sampled) {
  return sampled || after > before ? after : 0;
}

Histogram histogram_delta(const Histogram& after, const Histogram& before) {
  Histogram d = after;
  d -= before;  // buckets and sum_ns; keeps after.max_ns
  d.max_ns = interval_max(after.max_ns, before.max_ns, d.count() > 0);
  return d;
}

// Errno counts by code. A code missing from `before` counts from zero; one whose count
// did not move is dropped, like codes that never occurred.
std::vector<ErrnoCount> errno_delta(const std::vector<ErrnoCount>& after,
                                    const std::vector<ErrnoCount>& before) {
  std::vector<ErrnoCount> out;
  for (const ErrnoCount& a : after) {
    uint64_t earlier = 0;
    for (const ErrnoCount& b : before)
      if (b.err == a.err) earlier += b.count;
    if (uint64_t n = sub(a.count, earlier)) out.push_back({a.err, n});
  }
  // Snapshot's order: largest first, then by code.
  std::sort(out.begin(), out.end(), [](const ErrnoCount& x, const ErrnoCount& y) {
    return x.count != y.count ? x.count > y.count : x.err < y.err;
  });
  return out;
}

PuntReasons punt_reasons_delta(const PuntReasons& after, const PuntReasons& before) {
  PuntReasons d;
  for (const PuntReasonField& f : kPuntReasonFields)
    d.*f.member = sub(after.*f.member, before.*f.member);
  return d;
}

OpStats op_delta(const OpStats& after, const OpStats* before) {
  static const OpStats kZero;
  const OpStats& b = before ? *before : kZero;
  OpStats d;
  d.opcode = after.opcode;
  for (const OpCounterField& f : kOpCounterFields) d.*f.member = sub(after.*f.member, b.*f.member);
  d.punt_reasons = punt_reasons_delta(after.punt_reasons, b.punt_reasons);
  d.errnos = errno_delta(after.errnos, b.errnos);
  d.latency = histogram_delta(after.latency, b.latency);
  return d;
}

// The boundary over the interval: samples, sums and the reap-lag histogram as flows,
// maxima as interval maxima (live.h), like an op's latency.
RingBoundary boundary_delta(const RingBoundary& after, const RingBoundary* before) {
  static const RingBoundary kZero;
  const RingBoundary& b = before ? *before : kZero;
  RingBoundary d;
  d.cq_depth_samples = sub(after.cq_depth_samples, b.cq_depth_samples);
  d.cq_depth_sum = sub(after.cq_depth_sum, b.cq_depth_sum);
  d.cq_depth_max = interval_max(after.cq_depth_max, b.cq_depth_max, d.cq_depth_samples > 0);
  d.reap_lag = histogram_delta(after.reap_lag, b.reap_lag);
  d.reap_lag_min = histogram_delta(after.reap_lag_min, b.reap_lag_min);
  d.reap_gap_sum_ns = sub(after.reap_gap_sum_ns, b.reap_gap_sum_ns);
  d.reap_gap_max_ns = interval_max(after.reap_gap_max_ns, b.reap_gap_max_ns, d.reap_lag.count() > 0);
  d.timer_looks = sub(after.timer_looks, b.timer_looks);
  d.sq_wait = histogram_delta(after.sq_wait, b.sq_wait);
  d.sq_taken_unseen = sub(after.sq_taken_unseen, b.sq_taken_unseen);
  d.sq_res_sum_ns = sub(after.sq_res_sum_ns, b.sq_res_sum_ns);
  d.sq_res_max_ns = interval_max(after.sq_res_max_ns, b.sq_res_max_ns, d.sq_wait.count() > 0);
  d.sq_timer_looks = sub(after.sq_timer_looks, b.sq_timer_looks);
  d.lu_submit_calls = sub(after.lu_submit_calls, b.lu_submit_calls);
  d.lu_submit_sqes = sub(after.lu_submit_sqes, b.lu_submit_sqes);
  d.lu_submit_max = interval_max(after.lu_submit_max, b.lu_submit_max, d.lu_submit_calls > 0);
  d.lu_cqes_handed = sub(after.lu_cqes_handed, b.lu_cqes_handed);
  d.lu_reap_lag = histogram_delta(after.lu_reap_lag, b.lu_reap_lag);
  return d;
}

bool op_changed(const OpStats& d) {
  for (const OpCounterField& f : kOpCounterFields)
    if (d.*f.member) return true;
  for (const PuntReasonField& f : kPuntReasonFields)
    if (d.punt_reasons.*f.member) return true;
  return !d.errnos.empty() || d.latency.count() || d.latency.sum_ns;
}

bool is_leak_counter(uint64_t Counters::*member) {
  return member == &Counters::leaks_suspected || member == &Counters::leaks_pending;
}

// Gauges: a level at the time of the reading, not a flow; the interval shows the level
// at its end.
bool is_gauge(const CounterField& field) {
  return field.merge == CounterMerge::PerProcess ||
         field.member == &Counters::local_task_work_pending_ns;
}

Counters counters_delta(const Counters& after, const Counters& before) {
  Counters d;
  for (const CounterField& field : kCounterFields) {
    const uint64_t a = after.*field.member;
    const uint64_t b = before.*field.member;
    uint64_t& out = d.*field.member;
    if (is_leak_counter(field.member)) {
      out = 0;  // a scan at the end of the run, not per interval
    } else if (is_gauge(field)) {
      out = a;
    } else if (field.merge == CounterMerge::Max) {
      // The lag is measured when local task work runs: a run is a sample.
      const bool sampled = field.member == &Counters::local_task_work_max_lag_ns &&
                           after.local_task_work_runs > before.local_task_work_runs;
      out = interval_max(a, b, sampled);
    } else {
      out = sub(a, b);
    }
  }
  return d;
}

// Whether anything flowed: every counter but the gauges (a level is no event, and an
// idle ring would otherwise be kept forever). Sum counters only ever come from events,
// and an interval maximum is 0 unless the interval had a sample.
bool counters_changed(const Counters& d) {
  for (const CounterField& field : kCounterFields) {
    if (is_gauge(field) || is_leak_counter(field.member)) continue;
    if (d.*field.member) return true;
  }
  return false;
}

ToolStats tool_delta(const ToolStats& after, const ToolStats& before) {
  ToolStats d;
  for (const ToolField& f : kToolFields) d.*f.member = sub(after.*f.member, before.*f.member);
  return d;
}

// The identity of a ring across readings. Ids are assigned per reading, so they are no
// identity; ctx is, except that a freed ring keeps its row (and ctx) while a new ring
// at the same address gets a later row: rings sharing a ctx are told apart by their
// order, which rows keep. The catch-all ring (ctx 0) is a kind of its own, so a ring
// that lost its ctx to an allocation race (also 0) never pairs with it; so is each kind
// of fold, named by its process or its command name.
enum class KeyKind { Ring, CatchAll, ProcessFold, CommandFold, AllFold };
using RingKey = std::tuple<KeyKind, uint64_t, std::size_t, uint32_t, std::string>;

KeyKind kind_of(const Ring& ring) {
  if (ring.source == RingSource::CatchAll) return KeyKind::CatchAll;
  switch (ring.fold) {
    case FoldScope::Process: return KeyKind::ProcessFold;
    case FoldScope::Command: return KeyKind::CommandFold;
    case FoldScope::All: return KeyKind::AllFold;
    case FoldScope::Ring: break;
  }
  return KeyKind::Ring;
}

RingKey fold_key(KeyKind kind, const Ring& ring) {
  switch (kind) {
    case KeyKind::ProcessFold: return {kind, 0, 0, ring.pid, ""};
    case KeyKind::CommandFold: return {kind, 0, 0, 0, ring.comm};
    default: return {kind, 0, 0, 0, ""};
  }
}

std::vector<std::pair<RingKey, const Ring*>> keyed(const std::vector<Ring>& rings) {
  std::vector<const Ring*> by_id;
  for (const Ring& ring : rings) by_id.push_back(&ring);
  std::stable_sort(by_id.begin(), by_id.end(),
                   [](const Ring* x, const Ring* y) { return x->id < y->id; });
  std::map<std::pair<KeyKind, uint64_t>, std::size_t> seen;
  std::vector<std::pair<RingKey, const Ring*>> out;
  for (const Ring* ring : by_id) {
    const KeyKind kind = kind_of(*ring);
    if (kind != KeyKind::Ring && kind != KeyKind::CatchAll) {
      out.push_back({fold_key(kind, *ring), ring});
      continue;
    }
    std::size_t ordinal = seen[{kind, ring->ctx}]++;
    out.push_back({RingKey{kind, ring->ctx, ordinal, 0, ""}, ring});
  }
  return out;
}

// Where a row of the earlier reading went when the later one no longer has it: a
// destroyed ring past the rings kept one by one went into its process's fold, a
// process's fold into its command's, that into the fold of all (retired_store.h). Its
// numbers are in that fold, and were counted in intervals before.
std::optional<RingKey> folded_into(const Ring& gone, const std::set<RingKey>& folds) {
  std::vector<RingKey> chain;
  const KeyKind kind = kind_of(gone);
  if (kind == KeyKind::Ring) chain.push_back({KeyKind::ProcessFold, 0, 0, gone.pid, ""});
  if (kind == KeyKind::Ring || kind == KeyKind::ProcessFold)
    chain.push_back({KeyKind::CommandFold, 0, 0, 0, gone.comm});
  if (kind != KeyKind::AllFold && kind != KeyKind::CatchAll)
    chain.push_back({KeyKind::AllFold, 0, 0, 0, ""});
  for (const RingKey& key : chain) {
    if (folds.count(key)) return key;
  }
  return std::nullopt;
}

}  // namespace

Snapshot snapshot_delta(const Snapshot& after, const Snapshot& before) {
  Snapshot d;
  d.tool_version = after.tool_version;
  d.wall_ns = sub(after.wall_ns, before.wall_ns);
  d.ncpus = after.ncpus;
  d.kernel = after.kernel;
  d.target = after.target;
  d.tool = tool_delta(after.tool, before.tool);
  d.leak.threshold_ns = after.leak.threshold_ns;
  d.workers = after.workers;  // a gauge, like workers_distinct
  d.boundary_measured = after.boundary_measured;
  d.liburing = after.liburing;

  std::map<RingKey, const Ring*> earlier;
  for (const auto& [key, ring] : keyed(before.rings)) earlier[key] = ring;
  const auto later = keyed(after.rings);
  std::set<RingKey> now;
  for (const auto& [key, ring] : later) now.insert(key);

  // A fold's interval is what it gained less what rows of the earlier reading brought
  // into it: their numbers were counted while they were rows of their own.
  std::map<RingKey, Ring> brought;
  for (const auto& [key, ring] : earlier) {
    if (now.count(key)) continue;
    if (auto into = folded_into(*ring, now)) {
      auto [it, fresh] = brought.try_emplace(*into);
      if (fresh) {
        if (auto e = earlier.find(*into); e != earlier.end()) it->second = *e->second;
      }
      add_ring(it->second, *ring);
    }
  }

  for (const auto& [key, ring] : later) {
    auto it = earlier.find(key);
    const Ring* prev = it == earlier.end() ? nullptr : it->second;
    if (auto b = brought.find(key); b != brought.end()) prev = &b->second;

    Ring r = *ring;  // metadata: the newer reading's
    r.counters = counters_delta(ring->counters, prev ? prev->counters : Counters{});
    r.boundary = boundary_delta(ring->boundary, prev ? &prev->boundary : nullptr);
    r.ops.clear();
    for (const OpStats& op : ring->ops) {
      const OpStats* prev_op = nullptr;
      if (prev) {
        for (const OpStats& p : prev->ops)
          if (p.opcode == op.opcode) prev_op = &p;
      }
      OpStats od = op_delta(op, prev_op);
      if (op_changed(od)) r.ops.push_back(std::move(od));
    }
    std::sort(r.ops.begin(), r.ops.end(),
              [](const OpStats& x, const OpStats& y) { return x.opcode < y.opcode; });
    if (r.ops.empty() && !counters_changed(r.counters)) continue;
    d.rings.push_back(std::move(r));
  }
  aggregate(d);
  return d;
}

}  // namespace uringscope
