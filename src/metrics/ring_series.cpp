// SPDX-License-Identifier: MIT
#include "metrics/ring_series.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace uringscope {
namespace {

void sum_into_other(Ring& ring) {
  ring.fold = FoldScope::All;
  ring.folded_rings = std::max<uint64_t>(ring.folded_rings, 1);
}

void add_op(std::vector<OpStats>& ops, const OpStats& op) {
  auto it = std::find_if(ops.begin(), ops.end(), [&](const OpStats& o) { return o.opcode == op.opcode; });
  if (it == ops.end()) {
    ops.push_back(op);
  } else {
    *it += op;
  }
}

// Counts and histograms add, maxima stay maxima.
void add_boundary(RingBoundary& into, const RingBoundary& from) {
  for (uint64_t RingBoundary::*sum :
       {&RingBoundary::cq_depth_samples, &RingBoundary::cq_depth_sum, &RingBoundary::reap_gap_sum_ns,
        &RingBoundary::timer_looks, &RingBoundary::sq_taken_unseen, &RingBoundary::sq_res_sum_ns,
        &RingBoundary::sq_timer_looks, &RingBoundary::lu_submit_calls, &RingBoundary::lu_submit_sqes,
        &RingBoundary::lu_cqes_handed})
    into.*sum += from.*sum;
  for (uint64_t RingBoundary::*max : {&RingBoundary::cq_depth_max, &RingBoundary::reap_gap_max_ns,
                                      &RingBoundary::sq_res_max_ns, &RingBoundary::lu_submit_max})
    into.*max = std::max(into.*max, from.*max);
  for (Histogram RingBoundary::*hist : {&RingBoundary::reap_lag, &RingBoundary::reap_lag_min,
                                        &RingBoundary::sq_wait, &RingBoundary::lu_reap_lag})
    into.*hist += from.*hist;
}

// Every fold row (destroyed rings summed, or rings RingSeriesChoice put past its bound) in
// one: the "other" row, last.
std::optional<Ring> other_row(const std::vector<const Ring*>& rings) {
  std::optional<Ring> other;
  for (const Ring* r : rings) {
    if (r->fold == FoldScope::Ring) continue;
    if (!other) {
      other.emplace();
      other->fold = FoldScope::All;
    }
    other->counters += r->counters;
    for (const OpStats& op : r->ops) add_op(other->ops, op);
    add_boundary(other->boundary, r->boundary);
    other->setup_flags |= r->setup_flags;
    other->folded_rings += std::max<uint64_t>(r->folded_rings, 1);
  }
  return other;
}

}  // namespace

bool ring_shows_activity(const Ring& ring) {
  const Counters& c = ring.counters;
  return !ring.ops.empty() || c.enter_calls || c.submissions || c.completions || c.cq_overflows ||
         c.sqpoll_offcpu_ns || c.sqpoll_sleeps || c.task_work_runs || c.local_task_work_runs;
}

Snapshot RingSeriesChoice::apply(Snapshot snap) {
  std::vector<Ring*> live;
  for (Ring& ring : snap.rings) {
    if (ring.fold != FoldScope::Ring) continue;  // already a sum of destroyed rings
    if (ring.destroyed) {
      sum_into_other(ring);
      continue;
    }
    live.push_back(&ring);
  }
  std::sort(live.begin(), live.end(), [](const Ring* a, const Ring* b) { return a->id < b->id; });

  std::set<uint32_t> own, summed;
  // The rings placed before keep their place, so a newcomer never takes an older ring's.
  for (Ring* ring : live) {
    if (own_.count(ring->id)) {
      own.insert(ring->id);
    } else if (summed_.count(ring->id)) {
      summed.insert(ring->id);
      sum_into_other(*ring);
    }
  }
  // Then the rings that show activity for the first time, oldest first. An idle ring is
  // placed nowhere: it has no series, and nothing to add to "other".
  for (Ring* ring : live) {
    if (own.count(ring->id) || summed.count(ring->id) || !ring_shows_activity(*ring)) continue;
    if (own.size() < limit_) {
      own.insert(ring->id);
    } else {
      summed.insert(ring->id);
      sum_into_other(*ring);
    }
  }
  own_ = std::move(own);
  summed_ = std::move(summed);
  return snap;
}

// An idle ring has no series: a server that makes a ring per possible client shows only
// those in use.
std::vector<RingView> ring_views(const Snapshot& snap) {
  std::vector<const Ring*> rings;
  for (const Ring& r : snap.rings) rings.push_back(&r);
  std::stable_sort(rings.begin(), rings.end(), [](const Ring* a, const Ring* b) { return a->id < b->id; });
  std::vector<RingView> views;
  for (const Ring* r : rings) {
    if (r->fold != FoldScope::Ring || !ring_shows_activity(*r)) continue;
    // A repeated id (the builder never makes one) would repeat every series: first wins.
    if (!views.empty() && views.back().ring->id == r->id) continue;
    RingView v{r, {}, nullptr};
    for (const OpStats& op : r->ops) add_op(v.ops, op);
    views.push_back(std::move(v));
  }
  if (auto other = other_row(rings)) {
    auto sum = std::make_shared<const Ring>(std::move(*other));
    views.push_back({sum.get(), sum->ops, sum});
  }
  for (RingView& v : views) {
    std::stable_sort(v.ops.begin(), v.ops.end(),
                     [](const OpStats& a, const OpStats& b) { return a.opcode < b.opcode; });
  }
  return views;
}

uint64_t rings_seen(const Snapshot& snap) {
  uint64_t n = 0;
  for (const Ring& r : snap.rings) n += r.fold == FoldScope::Ring ? 1 : std::max<uint64_t>(r.folded_rings, 1);
  return n;
}

}  // namespace uringscope
