// SPDX-License-Identifier: MIT
// --check: which in-flight requests target which memory, from the BPF record stream
// (us_check_event), and the hazards that follow: two requests whose memory overlaps
// while both are in flight (at least one writing it), a registered buffer changed under
// a request using it, memory unmapped under a request targeting it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "snapshot/file_rows.h"
#include "uringscope/abi.h"
#include "uringscope/snapshot.h"

namespace uringscope {

class HazardAnalyzer {
 public:
  // `start_ns`: bpf_ktime_get_ns() when the window opened (record times count from it).
  explicit HazardAnalyzer(uint64_t start_ns) : start_ns_(start_ns) {}

  // Records in the order the ring buffer delivered them (their order of reservation).
  void add(const us_check_event& e);
  // The hazards so far, their rings named by report id: a row given back by a destroyed
  // ring names the ring that held it when the request was submitted. Their requests'
  // files (from end records, with --files) are named from `names`.
  HazardInfo result(const std::vector<Ring>& rings, const FileNames& names = {}) const;
  // Requests in flight now (for tests and the analysis' own bound).
  std::size_t in_flight() const { return by_req_.size(); }

 private:
  struct Range {
    uint64_t req = 0;
    uint32_t tgid = 0;
    uint32_t ring_gen = 0;  // with request.ring: which ring held the row (us_check_event)
    HazardRequest request;  // ring holds the BPF row
    uint64_t end() const { return request.addr + request.len; }
  };
  using Ranges = std::multimap<uint64_t, Range>;  // by start address
  struct Process {
    Ranges ranges;
    uint64_t longest = 0;  // the longest range ever added: bounds the backward search
  };

  void add_range(const us_check_event& e);
  void end_request(uint64_t req, const us_file_id* file = nullptr);
  void memory_dropped(const us_check_event& e);
  void buffers_changed(const us_check_event& e);
  // `first`: the range of hazard.first, whose ring the hazard counts for; `second_req`: the
  // io_kiocb of hazard.second (0: none). Their end records will carry their files.
  void record(Hazard hazard, const Range& first, uint64_t second_req = 0);
  uint64_t since_start(uint64_t ts) const { return ts > start_ns_ ? ts - start_ns_ : 0; }

  uint64_t start_ns_;
  std::unordered_map<uint32_t, Process> processes_;
  // Each in-flight request's ranges: (tgid, the iterator into its process's map).
  std::unordered_map<uint64_t, std::vector<Ranges::iterator>> by_req_;
  // A request is named in one hazard of each kind at most.
  std::unordered_map<uint64_t, uint8_t> reported_;
  HazardInfo info_;
  // Hazards per ring, keyed by (BPF row, ring_gen); at most kMaxHazardRings rings.
  std::map<std::pair<uint32_t, uint32_t>, RingHazards> per_ring_;
  // Per record kept: the files of its first and second request, as their ends name them.
  std::vector<std::array<us_file_id, 2>> record_files_;
  // Requests of kept records that have not ended: (record index, second request?).
  std::unordered_map<uint64_t, std::vector<std::pair<std::size_t, bool>>> awaiting_file_;
};

}  // namespace uringscope
