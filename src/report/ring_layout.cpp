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
    // A group draws the rings of the members it writes out, not all of its rings.
    for (const Finding& member : f.worst) {
      if (member.ring && member.severity >= Severity::Warn) ids.insert(*member.ring);
    }
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

void sort_busiest(std::vector<HiddenProcess>& processes) {
  std::stable_sort(processes.begin(), processes.end(),
                   [](const HiddenProcess& a, const HiddenProcess& b) {
                     if (a.time_ns() != b.time_ns()) return a.time_ns() > b.time_ns();
                     return a.total.submitted > b.total.submitted;
                   });
}

}  // namespace

std::vector<HiddenProcess> sum_by_owner(const std::vector<const Ring*>& rings,
                                        const std::vector<ProcessWorkers>& workers) {
  std::map<uint32_t, uint64_t> workers_of;
  for (const ProcessWorkers& w : workers) workers_of[w.pid] = w.distinct;
  // A process by its pid; the folds of a name or of all other processes by their name.
  std::map<std::pair<uint32_t, std::string>, HiddenProcess> by_owner;
  for (const Ring* ring : rings) {
    const bool named_only = ring->fold == FoldScope::Command || ring->fold == FoldScope::All;
    auto [it, added] = by_owner.try_emplace({ring->pid, named_only ? ring->comm : std::string()});
    HiddenProcess& p = it->second;
    p.pid = ring->pid;
    if (p.comm.empty()) p.comm = ring->fold == FoldScope::All ? "(other processes)" : ring->comm;
    // A process's workers serve all its rings: counted once.
    if (added && ring->pid != 0) p.workers = workers_of[ring->pid];
    p.rings += rings_in(*ring);
    if (ring_is_idle(*ring)) p.idle_rings += rings_in(*ring);
    for (const OpStats& op : ring->ops) p.total += op;
  }
  std::vector<HiddenProcess> out;
  for (auto& [owner, p] : by_owner) out.push_back(std::move(p));
  sort_busiest(out);
  return out;
}

std::vector<ProcessRings> by_command(const std::vector<ProcessRings>& processes) {
  if (processes.size() <= kHiddenProcessRows) return processes;
  std::vector<ProcessRings> out;
  std::map<std::string, std::size_t> index;
  for (const ProcessRings& p : processes) {
    auto [it, added] = index.try_emplace(p.comm, out.size());
    if (added) {
      out.push_back(ProcessRings{.pid = 0, .comm = p.comm, .rings = {}, .processes = 0});
    }
    ProcessRings& name = out[it->second];
    name.processes += p.processes;
    name.rings.insert(name.rings.end(), p.rings.begin(), p.rings.end());
  }
  for (ProcessRings& name : out) {
    std::sort(name.rings.begin(), name.rings.end(),
              [](const Ring* a, const Ring* b) { return a->id < b->id; });
    // One process left under its name keeps its pid.
    if (name.processes == 1 && !name.rings.empty()) name.pid = name.rings.front()->pid;
  }
  return out;
}

std::vector<HiddenProcess> by_command(const std::vector<HiddenProcess>& processes) {
  if (processes.size() <= kHiddenProcessRows) return processes;
  std::vector<HiddenProcess> out;
  std::map<std::string, std::size_t> index;
  for (const HiddenProcess& p : processes) {
    auto [it, added] = index.try_emplace(p.comm, out.size());
    if (added) out.push_back(p);
    else {
      HiddenProcess& name = out[it->second];
      name.pid = 0;
      name.processes += p.processes;
      name.rings += p.rings;
      name.idle_rings += p.idle_rings;
      name.workers += p.workers;
      name.total += p.total;
    }
  }
  sort_busiest(out);
  return out;
}

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
  layout.idle = by_command(group_by_process(idle));
  layout.hidden = by_command(sum_by_owner(hidden, snap.workers));
  for (const Ring* ring : hidden) layout.hidden_rings += rings_in(*ring);
  layout.many_processes = layout.full.size() > 1;
  return layout;
}

}  // namespace uringscope
