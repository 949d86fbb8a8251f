// SPDX-License-Identifier: MIT
#include "report/ring_layout.h"

#include <algorithm>
#include <map>
#include <set>

namespace uringscope {
namespace {

uint64_t ring_time_ns(const Ring& ring) {
  uint64_t ns = 0;
  for (const OpStats& op : ring.ops) ns += op.latency.sum_ns;
  return ns;
}

uint64_t ring_requests(const Ring& ring) {
  uint64_t n = 0;
  for (const OpStats& op : ring.ops) n += op.completed;
  return n;
}

bool busier(const Ring* a, const Ring* b) {
  const uint64_t ta = ring_time_ns(*a), tb = ring_time_ns(*b);
  if (ta != tb) return ta > tb;
  const uint64_t ra = ring_requests(*a), rb = ring_requests(*b);
  if (ra != rb) return ra > rb;
  return a->id < b->id;
}

std::set<uint32_t> rings_named_by_warnings(const std::vector<Finding>& findings) {
  std::set<uint32_t> ids;
  for (const Finding& f : findings) {
    if (f.ring && f.severity >= Severity::Warn) ids.insert(*f.ring);
  }
  return ids;
}

// Rings grouped by process, the processes in order of their first ring's id.
std::vector<ProcessRings> group_by_process(std::vector<const Ring*> rings) {
  std::sort(rings.begin(), rings.end(), [](const Ring* a, const Ring* b) { return a->id < b->id; });
  std::vector<ProcessRings> groups;
  std::map<std::pair<uint32_t, bool>, std::size_t> index;  // (pid, catch-all) -> group
  for (const Ring* ring : rings) {
    const auto key = std::make_pair(ring->pid, ring->source == RingSource::CatchAll);
    auto [it, added] = index.try_emplace(key, groups.size());
    if (added) groups.push_back(ProcessRings{.pid = ring->pid, .comm = ring->comm, .rings = {}});
    groups[it->second].rings.push_back(ring);
  }
  return groups;
}

// Rings in a row of their own or in a fold count the same: one each.
std::size_t rings_in(const Ring& ring) { return ring.folded_rings ? ring.folded_rings : 1; }

std::vector<HiddenProcess> sum_hidden(const std::vector<const Ring*>& rings) {
  // A process by its pid; the folds of a name or of all other processes by their name.
  std::map<std::pair<uint32_t, std::string>, HiddenProcess> by_owner;
  for (const Ring* ring : rings) {
    const bool named_only = ring->fold == FoldScope::Command || ring->fold == FoldScope::All;
    HiddenProcess& p = by_owner[{ring->pid, named_only ? ring->comm : std::string()}];
    p.pid = ring->pid;
    if (p.comm.empty()) p.comm = ring->fold == FoldScope::All ? "(other processes)" : ring->comm;
    p.rings += rings_in(*ring);
    for (const OpStats& op : ring->ops) p.total += op;
  }
  std::vector<HiddenProcess> out;
  for (auto& [owner, p] : by_owner) out.push_back(std::move(p));
  std::stable_sort(out.begin(), out.end(), [](const HiddenProcess& a, const HiddenProcess& b) {
    if (a.time_ns() != b.time_ns()) return a.time_ns() > b.time_ns();
    return a.total.submitted > b.total.submitted;
  });
  return out;
}

}  // namespace

bool ring_is_idle(const Ring& ring) {
  return ring.source != RingSource::CatchAll && ring.ops.empty() &&
         ring.counters.submissions == 0 && ring.counters.completions == 0;
}

RingLayout layout_rings(const Snapshot& snap, const std::vector<Finding>& findings,
                        std::optional<std::size_t> full_rings) {
  const std::set<uint32_t> named = rings_named_by_warnings(findings);
  std::vector<const Ring*> active, idle, full, hidden;
  for (const Ring& ring : snap.rings) {
    const bool must_show = named.count(ring.id) || ring.source == RingSource::CatchAll;
    if (must_show || (!full_rings && ring_is_idle(ring))) {
      full.push_back(&ring);
    } else if (ring_is_idle(ring)) {
      idle.push_back(&ring);
    } else {
      active.push_back(&ring);
    }
  }
  std::sort(active.begin(), active.end(), busier);
  const std::size_t room = full_rings.value_or(active.size());
  for (std::size_t i = 0; i < active.size(); ++i) (i < room ? full : hidden).push_back(active[i]);

  RingLayout layout;
  layout.full = group_by_process(full);
  layout.idle = group_by_process(idle);
  layout.hidden = sum_hidden(hidden);
  for (const Ring* ring : hidden) layout.hidden_rings += rings_in(*ring);
  layout.many_processes = layout.full.size() > 1;
  return layout;
}

}  // namespace uringscope
