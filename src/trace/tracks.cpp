// SPDX-License-Identifier: MIT
#include "trace/tracks.h"

#include <fmt/format.h>

#include <cstring>

namespace uringscope {
namespace {

// Synthetic thread ids of the ring tracks. Above PID_MAX_LIMIT (2^22), so they never
// collide with a real tid.
constexpr uint32_t kRingTidBase = 0x40000000;

// Caches of named threads and processes. Threads come and go on a long run (io-wq
// workers exit after idling), so these are bounded: when full they are emptied, and a
// thread seen again is simply named again (a repeated thread_name event is harmless).
constexpr std::size_t kMaxNamedThreads = 4096;
constexpr std::size_t kMaxNamedProcesses = 4096;

}  // namespace

std::string_view comm_of(const char (&comm)[16]) { return {comm, strnlen(comm, sizeof comm)}; }

RingTrack& Tracks::ring(uint32_t row, uint32_t pid) {
  auto it = rings_.find(row);
  if (it != rings_.end()) return it->second;
  // Rows are global (one per io_ring_ctx), so row alone names the track; the catch-all
  // row, shared when the BPF ring table is full, lives in the first process it shows in.
  return rings_.emplace(row, RingTrack{pid, kRingTidBase + (row & 0x0fffffffu)}).first->second;
}

ThreadTrack& Tracks::thread(const us_trace_event& e, bool& fresh) {
  auto it = threads_.find(e.tid);
  fresh = false;
  if (it != threads_.end() && it->second.pid == e.tgid) return it->second;
  if (it == threads_.end() && threads_.size() >= kMaxNamedThreads) threads_.clear();
  ThreadTrack& t = threads_[e.tid];
  t = ThreadTrack{e.tgid};
  fresh = true;
  return t;
}

std::optional<std::string_view> Tracks::process_name_due(const us_trace_event& e) {
  auto it = processes_.find(e.tgid);
  if (it == processes_.end()) {
    if (processes_.size() >= kMaxNamedProcesses) processes_.clear();
    it = processes_.emplace(e.tgid, ProcessInfo{}).first;
  }
  ProcessInfo& p = it->second;
  if (p.named) return std::nullopt;
  std::string_view comm = comm_of(e.comm);
  // The thread-group leader's comm is the process name ps shows.
  if (e.tid == e.tgid) {
    p.named = true;
    p.fallback.clear();
    return comm;
  }
  if (p.fallback.empty() && !comm.starts_with("iou-")) p.fallback = comm;
  return std::nullopt;
}

std::vector<std::pair<uint32_t, std::string>> Tracks::unnamed_processes() const {
  std::vector<std::pair<uint32_t, std::string>> out;
  for (const auto& [pid, p] : processes_)
    if (!p.named && !p.fallback.empty()) out.emplace_back(pid, p.fallback);
  return out;
}

std::string ring_track_name(uint32_t row, const std::map<uint32_t, std::string>& ring_names) {
  auto it = ring_names.find(row);
  std::string name = fmt::format("ring[{}]", row);
  if (it != ring_names.end() && !it->second.empty()) name += " = " + it->second;
  return name;
}

}  // namespace uringscope
