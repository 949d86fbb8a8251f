// SPDX-License-Identifier: MIT
// What --check found, as plain values of the Snapshot (snapshot.h): requests in flight
// whose memory was not theirs alone, and how many per ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace uringscope {

// --check: one request's target memory as a hazard names it.
struct HazardRequest {
  uint32_t ring = 0;        // report id (rings[].id)
  uint32_t opcode = 0;
  uint64_t user_data = 0;
  uint64_t addr = 0;        // the range it targets (one iovec of a vectored request)
  uint64_t len = 0;
  bool into = false;        // the kernel writes this memory (a read or receive)
  bool fixed = false;       // a registered buffer
  uint16_t index = 0;       // its buffer index when fixed, else its iovec index
  uint64_t submit_ns = 0;   // since the window opened
  // The file it read or wrote, named as the files table names it, from its end record
  // with --files; "" when unknown (no --files, or it had not ended when the run did).
  std::string file;

  bool operator==(const HazardRequest&) const = default;
};

enum class HazardKind { Overlap, BufReg, Unmap };

// One hazard: two in-flight requests whose memory overlaps (Overlap), a request whose
// registered buffer was unregistered or replaced (BufReg), or whose memory was unmapped
// or dropped (Unmap).
struct Hazard {
  HazardKind kind = HazardKind::Overlap;
  uint32_t pid = 0;
  HazardRequest first;                 // the request already in flight
  std::optional<HazardRequest> second; // Overlap: the request that overlapped it
  uint64_t addr = 0;                   // Overlap: the shared bytes; Unmap: what went
  uint64_t len = 0;
  uint64_t at_ns = 0;                  // since the window opened
  std::string call;                    // Unmap: "munmap", "madvise(MADV_DONTNEED)"...;
                                       // BufReg: "IORING_UNREGISTER_BUFFERS"...

  bool operator==(const Hazard&) const = default;
};

// The hazards one ring's requests were first in (HazardInfo::rings).
struct RingHazards {
  uint32_t ring = 0;  // report id
  uint64_t overlaps = 0;
  uint64_t bufreg = 0;
  uint64_t unmap = 0;

  bool operator==(const RingHazards&) const = default;
};

struct HazardInfo {
  bool checked = false;  // --check was on: zeros then mean "none found"
  uint64_t ranges = 0;   // memory ranges of requests checked (one per iovec)
  uint64_t calls = 0;    // munmap/mremap/madvise/io_uring_register calls checked
  uint64_t overlaps = 0;
  uint64_t bufreg = 0;
  uint64_t unmap = 0;
  std::vector<Hazard> records;  // in the order found, at most kMaxHazardRecords
  // Per ring of the report, the rings with any: at most kMaxHazardRings are counted one
  // by one (a run past that counts the rest in the totals above only).
  std::vector<RingHazards> rings;

  bool operator==(const HazardInfo&) const = default;
};
inline constexpr std::size_t kMaxHazardRecords = 64;
inline constexpr std::size_t kMaxHazardRings = 4096;

}  // namespace uringscope
