// SPDX-License-Identifier: MIT
#include "report/json_rings.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "report/ring_layout.h"

namespace uringscope {
namespace {

using Json = nlohmann::ordered_json;

std::set<uint32_t> rings_any_finding_names(const std::vector<Finding>& findings) {
  std::set<uint32_t> ids;
  for (const Finding& f : findings) {
    if (f.ring) ids.insert(*f.ring);
    ids.insert(f.rings.begin(), f.rings.end());
  }
  return ids;
}

// The rings of one process (or of one fold owner) that the report does not write.
struct OmittedOwner {
  uint32_t pid = 0;
  std::string comm;
  uint64_t rings = 0;
  uint64_t idle_rings = 0;
  OpStats total;
  uint64_t workers = 0;
};

Json omitted_json(const std::vector<const Ring*>& omitted, const Snapshot& snap) {
  std::map<uint32_t, uint64_t> workers_of;
  for (const ProcessWorkers& w : snap.workers) workers_of[w.pid] = w.distinct;
  std::map<std::pair<uint32_t, std::string>, OmittedOwner> by_owner;
  uint64_t rings = 0, idle = 0;
  for (const Ring* ring : omitted) {
    auto [it, added] = by_owner.try_emplace({ring->pid, ring->comm});
    OmittedOwner& owner = it->second;
    if (added) {
      owner.pid = ring->pid;
      owner.comm = ring->comm;
      owner.workers = ring->pid ? workers_of[ring->pid] : 0;
    }
    const uint64_t n = ring->folded_rings ? ring->folded_rings : 1;
    owner.rings += n;
    rings += n;
    if (ring_is_idle(*ring)) {
      owner.idle_rings += n;
      idle += n;
    }
    for (const OpStats& op : ring->ops) owner.total += op;
  }
  std::vector<OmittedOwner> owners;
  for (auto& [key, owner] : by_owner) owners.push_back(std::move(owner));
  std::stable_sort(owners.begin(), owners.end(), [](const OmittedOwner& a, const OmittedOwner& b) {
    if (a.total.latency.sum_ns != b.total.latency.sum_ns)
      return a.total.latency.sum_ns > b.total.latency.sum_ns;
    return a.total.submitted > b.total.submitted;
  });
  Json processes = Json::array();
  for (const OmittedOwner& o : owners) {
    processes.push_back(Json{{"pid", o.pid},
                             {"comm", o.comm},
                             {"rings", o.rings},
                             {"idle_rings", o.idle_rings},
                             {"submitted", o.total.submitted},
                             {"completed", o.total.completed},
                             {"punted", o.total.punted},
                             {"errors", o.total.errors},
                             {"bytes", o.total.bytes},
                             {"latency_sum_ns", o.total.latency.sum_ns},
                             {"workers_distinct", o.workers}});
  }
  return Json{{"rings", rings}, {"idle_rings", idle}, {"processes", std::move(processes)}};
}

}  // namespace

JsonRingChoice choose_json_rings(const Snapshot& snap, const std::vector<Finding>& findings,
                                 std::optional<std::size_t> full_rings) {
  JsonRingChoice choice;
  std::set<uint32_t> keep;
  if (full_rings) {
    const RingLayout layout = layout_rings(snap, findings, full_rings);
    for (const ProcessRings& process : layout.full) {
      for (const Ring* ring : process.rings) keep.insert(ring->id);
    }
    keep.merge(rings_any_finding_names(findings));
  }
  std::vector<const Ring*> omitted;
  for (const Ring& ring : snap.rings) {
    const bool written = !full_rings || keep.count(ring.id) || ring.fold != FoldScope::Ring;
    (written ? choice.written : omitted).push_back(&ring);
  }
  choice.omitted = omitted_json(omitted, snap);
  return choice;
}

}  // namespace uringscope
