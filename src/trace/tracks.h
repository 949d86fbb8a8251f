// SPDX-License-Identifier: MIT
// The trace's tracks: one synthetic track per ring (submit markers, flow starts, the
// ring's counters) and one per real thread, with the process and thread names viewers
// show. Decides which names are due; the writer writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "uringscope/abi.h"

namespace uringscope {

struct RingTrack {
  uint32_t pid;
  uint32_t tid;
  uint64_t busy_until = 0;  // end of the last marker on the track
  int64_t in_flight = 0;
  int64_t cq_depth = -1;  // last CQ depth written, -1 before the first
};

struct ThreadTrack {
  uint32_t pid;
  uint64_t busy_until = 0;
};

// A record's comm, without the padding.
std::string_view comm_of(const char (&comm)[16]);

class Tracks {
 public:
  // The track of BPF ring row `row`, created in process `pid` the first time.
  RingTrack& ring(uint32_t row, uint32_t pid);
  RingTrack& ring_at(uint32_t row) { return rings_.at(row); }
  const std::unordered_map<uint32_t, RingTrack>& rings() const { return rings_; }

  // The track of the real thread that produced e; `fresh` says it needs its name.
  ThreadTrack& thread(const us_trace_event& e, bool& fresh);

  // The process name to write now for e's process, if one is due.
  std::optional<std::string_view> process_name_due(const us_trace_event& e);
  // Processes whose leader never showed, with the comm to name them by.
  std::vector<std::pair<uint32_t, std::string>> unnamed_processes() const;

 private:
  struct ProcessInfo {
    bool named = false;
    std::string fallback;  // a non-io-thread's comm, for a process whose leader never showed
  };

  std::unordered_map<uint32_t, RingTrack> rings_;
  std::unordered_map<uint32_t, ThreadTrack> threads_;
  std::unordered_map<uint32_t, ProcessInfo> processes_;
};

// "ring[N]", or "ring[N] = <caller's name>" when ring_names has one for row N: the
// ring[N] the counters use, so a track and its counters read as one.
std::string ring_track_name(uint32_t row, const std::map<uint32_t, std::string>& ring_names);

}  // namespace uringscope
