// SPDX-License-Identifier: MIT
#include "metrics/ring_series.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "snapshot/ring_sum.h"

namespace uringscope {
namespace {

// Rings a row stands for: a fold counts the rings it sums.
uint64_t rings_in(const Ring& ring) {
  return ring.fold == FoldScope::Ring ? 1 : std::max<uint64_t>(ring.folded_rings, 1);
}

void sum_into_other(Ring& ring) {
  ring.fold = FoldScope::All;
  ring.folded_rings = std::max<uint64_t>(ring.folded_rings, 1);
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
    add_ring(*other, *r);
    other->setup_flags |= r->setup_flags;
    other->folded_rings += rings_in(*r);
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

  std::map<Identity, uint32_t> own;
  std::set<Identity> summed;
  const auto identity = [](const Ring* ring) { return Identity{ring->bpf_row, ring->ctx, ring->first_ns}; };
  // The rings placed before keep their place, so a newcomer never takes an older ring's.
  for (Ring* ring : live) {
    if (auto placed = own_.find(identity(ring)); placed != own_.end()) {
      own.insert(*placed);
    } else if (summed_.count(identity(ring))) {
      summed.insert(identity(ring));
      sum_into_other(*ring);
    }
  }
  // Then the rings that show activity for the first time, oldest first. An idle ring is
  // placed nowhere: it has no series, and nothing to add to "other".
  for (Ring* ring : live) {
    const Identity id = identity(ring);
    if (own.count(id) || summed.count(id) || !ring_shows_activity(*ring)) continue;
    if (own.size() < limit_) {
      own.emplace(id, next_number_++);
    } else {
      summed.insert(id);
      sum_into_other(*ring);
    }
  }
  // Series numbers as ids. An unplaced ring is idle, has no series, and takes an id no
  // number reaches, so no two rows of the rendering share one.
  for (Ring* ring : live) {
    if (ring->fold != FoldScope::Ring) continue;
    auto placed = own.find(identity(ring));
    ring->id = placed != own.end() ? placed->second : UINT32_MAX;
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
  for (const Ring& r : snap.rings) n += rings_in(r);
  return n;
}

}  // namespace uringscope
