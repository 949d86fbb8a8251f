// SPDX-License-Identifier: MIT
#include "loader/ring_reclaim.h"

#include <bpf/bpf.h>

#include <cstring>

#include "uringscope_bpf.skel.h"

namespace uringscope {
namespace {

constexpr uint32_t kOpstatRefused = 0xffffffffu;  // US_OPSTAT_REFUSED in tables.bpf.h

// Hands a row back to a BPF allocator's free queue (it holds every row: never full).
void give_back(const bpf_map* queue, uint32_t row) {
  bpf_map_update_elem(bpf_map__fd(queue), nullptr, &row, BPF_ANY);
}

// The rows of a hash map keyed by ring row that belong to the rings given back: moved
// to each ring's record, so the next ring in the row starts with none.
template <typename Key, typename Value>
void collect_keyed(const bpf_map* map, std::vector<RetiredRing>& rings,
                   std::vector<std::pair<Key, Value>> RetiredRing::*into) {
  const int fd = bpf_map__fd(map);
  for (const auto& [key, value] : copy_hash<Key, Value>(map)) {
    for (RetiredRing& ring : rings) {
      if (key.ring != ring.row) continue;
      (ring.*into).emplace_back(key, value);
      bpf_map_delete_elem(fd, &key);
    }
  }
}

}  // namespace

RingReclaimer::RingReclaimer(uringscope_bpf& skel)
    : skel_(skel), info_(skel.maps.ring_info), stats_(skel.maps.ring_stats),
      opstats_(skel.maps.opstats), opmap_(skel.maps.ring_opmap), inflight_(skel.maps.inflight) {}

std::size_t RingReclaimer::reclaim(std::vector<RetiredRing>& into) {
  const int queue = bpf_map__fd(skel_.maps.retired_rings);
  std::vector<RetiredRing> rings;
  std::vector<int> index(info_.size(), -1);  // row -> position in `rings`
  us_retired next{};
  while (bpf_map_lookup_and_delete_elem(queue, nullptr, &next) == 0) {
    if (next.row == US_RING_CATCHALL || next.row >= info_.size() || index[next.row] >= 0) continue;
    index[next.row] = static_cast<int>(rings.size());
    RetiredRing& ring = rings.emplace_back();
    ring.row = next.row;
    ring.retired_ns = next.ns;
    ring.info = info_[next.row];
    ring.stats = stats_[next.row];
  }
  if (rings.empty()) return 0;
  // Nothing may point at a row any more when it is handed back: the BPF side could
  // otherwise charge a new ring with an old one's thread or request.
  collect_keyed(skel_.maps.errnos, rings, &RetiredRing::errnos);
  collect_keyed(skel_.maps.file_stats, rings, &RetiredRing::files);
  forget_threads(index);
  take_inflight(rings, index);
  for (RetiredRing& ring : rings) {
    collect_ops(ring);
    std::memset(&stats_[ring.row], 0, sizeof(us_ring_stats));
    std::memset(&info_[ring.row], 0, sizeof(us_ring_info));
    give_back(skel_.maps.free_rings, ring.row);
    into.push_back(std::move(ring));
  }
  return rings.size();
}

// The ring's (ring, op) rows: copied, cleared, handed back; the map slots emptied, a
// refused pair's marker too, so the next ring in the row starts with none.
void RingReclaimer::collect_ops(RetiredRing& ring) {
  for (uint32_t op = 0; op < US_OP_SLOTS; ++op) {
    uint32_t& slot = opmap_[ring.row * US_OP_SLOTS + op];
    const uint32_t row = slot;
    slot = 0;
    if (row == 0 || row == kOpstatRefused || row >= opstats_.size()) continue;
    if (opstats_[row].ring == ring.row) ring.ops.push_back(opstats_[row]);
    std::memset(&opstats_[row], 0, sizeof(us_opstat));
    give_back(skel_.maps.free_opstats, row);
  }
}

// An SQPOLL thread shared with another ring (IORING_SETUP_ATTACH_WQ) outlives the ring
// whose row it was filed under: it is forgotten rather than left to time a new ring.
void RingReclaimer::forget_threads(const std::vector<int>& index) {
  const int fd = bpf_map__fd(skel_.maps.threads);
  for (const auto& [tid, thread] : copy_hash<uint32_t, us_thread>(skel_.maps.threads)) {
    if (thread.kind == US_THREAD_SQPOLL && thread.ring < index.size() && index[thread.ring] >= 0)
      bpf_map_delete_elem(fd, &tid);
  }
}

// A request of a destroyed ring still in the table is one whose end was not seen (the
// teardown waits for every request): it moves to its ring's record, or it would look in
// flight in the next ring to hold the row. Taken with a compare-and-swap, as the BPF
// side claims ways.
void RingReclaimer::take_inflight(std::vector<RetiredRing>& rings, const std::vector<int>& index) {
  for (uint32_t b = 0; b < inflight_.size(); ++b) {
    for (us_inflight& way : inflight_[b].way) {
      uint64_t req = __atomic_load_n(&way.req, __ATOMIC_ACQUIRE);
      if (req == 0 || way.ring >= index.size() || index[way.ring] < 0) continue;
      const us_inflight copy = way;
      if (__atomic_compare_exchange_n(&way.req, &req, uint64_t{0}, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
        rings[static_cast<std::size_t>(index[copy.ring])].pending.push_back(copy);
      }
    }
  }
}

}  // namespace uringscope
