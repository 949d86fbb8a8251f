// SPDX-License-Identifier: MIT
#include "check/hazard_analyzer.h"

#include <algorithm>
#include <string>

namespace uringscope {
namespace {

constexpr uint8_t kReportedOverlap = 1, kReportedBufReg = 2, kReportedUnmap = 4;

bool overlaps(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len) {
  return a < b + b_len && b < a + a_len;
}

std::string unmap_call(const us_check_event& e) {
  if (e.opcode == US_CK_MUNMAP) return "munmap";
  if (e.opcode == US_CK_MREMAP) {
    return e.aux == US_CK_MREMAP_MOVED ? "mremap (moved)" : "mremap (shrunk)";
  }
  switch (e.aux) {
    case 4: return "madvise(MADV_DONTNEED)";
    case 8: return "madvise(MADV_FREE)";
    case 9: return "madvise(MADV_REMOVE)";
    default: return "madvise";
  }
}

std::string register_call(const us_check_event& e) {
  return e.opcode == 1 ? "IORING_UNREGISTER_BUFFERS" : "IORING_REGISTER_BUFFERS_UPDATE";
}

}  // namespace

void HazardAnalyzer::add(const us_check_event& e) {
  info_.checked = true;
  switch (e.kind) {
    case US_CK_RANGE: add_range(e); break;
    case US_CK_END: {
      const us_file_id file{.inode = e.addr, .ino = e.len, .gen = e.aux, .pad = 0};
      end_request(e.req, e.addr ? &file : nullptr);
      break;
    }
    case US_CK_UNMAP:
      ++info_.calls;
      memory_dropped(e);
      break;
    case US_CK_BUFREG:
      ++info_.calls;
      buffers_changed(e);
      break;
    default: break;
  }
}

void HazardAnalyzer::record(Hazard hazard, const Range& first, uint64_t second_req) {
  const uint64_t first_req = first.req;
  const std::pair<uint32_t, uint32_t> ring{first.request.ring, first.ring_gen};
  RingHazards* counts = nullptr;
  if (auto it = per_ring_.find(ring); it != per_ring_.end()) {
    counts = &it->second;
  } else if (per_ring_.size() < kMaxHazardRings) {
    counts = &per_ring_[ring];
  }
  RingHazards unkept;
  if (!counts) counts = &unkept;
  switch (hazard.kind) {
    case HazardKind::Overlap: ++info_.overlaps; ++counts->overlaps; break;
    case HazardKind::BufReg: ++info_.bufreg; ++counts->bufreg; break;
    case HazardKind::Unmap: ++info_.unmap; ++counts->unmap; break;
  }
  if (info_.records.size() >= kMaxHazardRecords) return;
  const std::size_t index = info_.records.size();
  info_.records.push_back(std::move(hazard));
  record_files_.push_back({});
  awaiting_file_[first_req].push_back({index, false});
  if (second_req) awaiting_file_[second_req].push_back({index, true});
}

void HazardAnalyzer::add_range(const us_check_event& e) {
  // A request address seen again without its end (a lost END record): the kernel only
  // recycles an io_kiocb after the request is over. Later iovecs of one vectored request
  // come as records of their own, marked US_CKF_MORE.
  ++info_.ranges;
  if (!(e.flags & US_CKF_MORE)) end_request(e.req);
  Process& p = processes_[e.tgid];
  HazardRequest r{.ring = e.ring, .opcode = e.opcode, .user_data = e.user_data, .addr = e.addr,
                  .len = e.len, .into = (e.flags & US_CKF_INTO) != 0,
                  .fixed = (e.flags & US_CKF_FIXED) != 0, .index = e.index,
                  .submit_ns = since_start(e.ts), .file = {}};
  // Ranges that start before this one ends and no earlier than the longest range before it.
  const uint64_t from = e.addr > p.longest ? e.addr - p.longest : 0;
  for (auto it = p.ranges.lower_bound(from); it != p.ranges.end() && it->first < e.addr + e.len;
       ++it) {
    const Range& other = it->second;
    if (!overlaps(e.addr, e.len, other.request.addr, other.request.len)) continue;
    if (!r.into && !other.request.into) continue;  // both only read the memory
    if ((reported_[e.req] & kReportedOverlap) && (reported_[other.req] & kReportedOverlap))
      continue;
    reported_[e.req] |= kReportedOverlap;
    reported_[other.req] |= kReportedOverlap;
    const uint64_t lo = std::max<uint64_t>(e.addr, other.request.addr);
    const uint64_t hi = std::min<uint64_t>(e.addr + e.len, other.end());
    record({.kind = HazardKind::Overlap, .pid = e.tgid, .first = other.request, .second = r,
            .addr = lo, .len = hi - lo, .at_ns = r.submit_ns, .call = {}},
           other, e.req);
  }
  p.longest = std::max<uint64_t>(p.longest, e.len);
  by_req_[e.req].push_back(p.ranges.insert({e.addr, Range{e.req, e.tgid, e.ring_gen, r}}));
}

void HazardAnalyzer::end_request(uint64_t req, const us_file_id* file) {
  if (auto waiting = awaiting_file_.find(req); waiting != awaiting_file_.end()) {
    if (file) {
      for (const auto& [index, second] : waiting->second) record_files_[index][second] = *file;
    }
    awaiting_file_.erase(waiting);
  }
  auto found = by_req_.find(req);
  if (found == by_req_.end()) return;
  for (Ranges::iterator it : found->second) processes_[it->second.tgid].ranges.erase(it);
  by_req_.erase(found);
  reported_.erase(req);
}

void HazardAnalyzer::memory_dropped(const us_check_event& e) {
  auto p = processes_.find(e.tgid);
  if (p == processes_.end()) return;
  const uint64_t from = e.addr > p->second.longest ? e.addr - p->second.longest : 0;
  for (auto it = p->second.ranges.lower_bound(from);
       it != p->second.ranges.end() && it->first < e.addr + e.len; ++it) {
    const Range& r = it->second;
    if (!overlaps(e.addr, e.len, r.request.addr, r.request.len) ||
        (reported_[r.req] & kReportedUnmap))
      continue;
    reported_[r.req] |= kReportedUnmap;
    const uint64_t lo = std::max<uint64_t>(e.addr, r.request.addr);
    const uint64_t hi = std::min<uint64_t>(e.addr + e.len, r.end());
    record({.kind = HazardKind::Unmap, .pid = e.tgid, .first = r.request, .second = std::nullopt,
            .addr = lo, .len = hi - lo, .at_ns = since_start(e.ts), .call = unmap_call(e)},
           r);
  }
}

// UNREGISTER names every buffer (len 0); an update names [index, index + len).
void HazardAnalyzer::buffers_changed(const us_check_event& e) {
  for (const auto& [req, ranges] : by_req_) {
    for (Ranges::iterator it : ranges) {
      const Range& r = it->second;
      if (!r.request.fixed || r.request.ring != e.ring || (reported_[req] & kReportedBufReg))
        continue;
      if (e.len && (r.request.index < e.index || r.request.index >= e.index + e.len)) continue;
      reported_[req] |= kReportedBufReg;
      record({.kind = HazardKind::BufReg, .pid = r.tgid, .first = r.request,
              .second = std::nullopt, .addr = r.request.addr, .len = r.request.len,
              .at_ns = since_start(e.ts), .call = register_call(e)},
             r);
    }
  }
}

HazardInfo HazardAnalyzer::result(const std::vector<Ring>& rings, const FileNames& names) const {
  HazardInfo out = info_;
  // The ring that held the row when the request was submitted: the latest first seen
  // before it.
  auto name = [&](HazardRequest& r) {
    const Ring* best = nullptr;
    for (const Ring& ring : rings) {
      if (ring.bpf_row != r.ring || ring.first_ns > start_ns_ + r.submit_ns) continue;
      if (!best || ring.first_ns > best->first_ns) best = &ring;
    }
    if (best) r.ring = best->id;
  };
  auto file = [&](HazardRequest& r, const us_file_id& id) {
    if (id.inode) r.file = file_name_of(names, id);
  };
  // A ring is the row's holder whose first sighting the records carry (its low 32 bits).
  for (const auto& [key, counts] : per_ring_) {
    for (const Ring& ring : rings) {
      if (ring.bpf_row != key.first || static_cast<uint32_t>(ring.first_ns) != key.second) continue;
      RingHazards named = counts;
      named.ring = ring.id;
      out.rings.push_back(named);
      break;
    }
  }
  for (std::size_t i = 0; i < out.records.size(); ++i) {
    Hazard& h = out.records[i];
    name(h.first);
    file(h.first, record_files_[i][0]);
    if (h.second) {
      name(*h.second);
      file(*h.second, record_files_[i][1]);
    }
  }
  return out;
}

}  // namespace uringscope
