// SPDX-License-Identifier: MIT
#include "report/json_rings.h"

#include <algorithm>
#include <set>

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

// The rings not written, summed per owner as the text report's table of rings not drawn.
Json omitted_json(const std::vector<const Ring*>& omitted, const Snapshot& snap) {
  uint64_t rings = 0, idle = 0;
  Json processes = Json::array();
  for (const HiddenProcess& o : sum_by_owner(omitted, snap.workers)) {
    rings += o.rings;
    idle += o.idle_rings;
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
