// SPDX-License-Identifier: MIT
// Which rings the text report draws in full, and how the rest are summed up, so that a
// run that saw hundreds of rings (a test suite under -f, -a on a busy box) still reads:
// the busiest rings by time in full, grouped under their process; rings that were set up
// and never used one line per process; the other active rings one table, per process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// --rings N: rings drawn in full (nullopt: every ring). Ten blocks is about a screenful
// of tables per ring times ten: past that, a reader scrolls rather than reads.
inline constexpr std::size_t kDefaultFullRings = 10;
// Rows of the table of hidden rings' processes, for the same reason.
inline constexpr std::size_t kHiddenProcessRows = 20;

struct ProcessRings {
  uint32_t pid = 0;
  std::string comm;
  std::vector<const Ring*> rings;  // ascending id
  std::size_t processes = 1;       // more: every process of that name (pid 0)
};

// What the hidden active rings of one process add up to; past a screenful of processes,
// of every process of one name.
struct HiddenProcess {
  uint32_t pid = 0;    // 0 for the folds past one process and for a name's processes
  std::string comm;
  std::size_t processes = 1;
  std::size_t rings = 0;  // folded rings included
  std::size_t idle_rings = 0;  // of those, rings that saw no SQE and no CQE
  uint64_t workers = 0;   // distinct io-wq workers of its processes
  OpStats total;  // every op of those rings merged, counted as the op table counts
  uint64_t time_ns() const { return total.latency.sum_ns; }
};

// `rings` summed per owner: a process by its pid, the folds of a name or of all other
// processes by their name; each process's io-wq workers counted once. Busiest first.
std::vector<HiddenProcess> sum_by_owner(const std::vector<const Ring*>& rings,
                                        const std::vector<ProcessWorkers>& workers);

// Past kHiddenProcessRows processes, a list of them is read one line per command name.
std::vector<ProcessRings> by_command(const std::vector<ProcessRings>& processes);
std::vector<HiddenProcess> by_command(const std::vector<HiddenProcess>& processes);

struct RingLayout {
  std::vector<ProcessRings> full;    // processes in order of their first full ring's id
  std::vector<ProcessRings> idle;    // set up, no request seen (not drawn in full)
  std::vector<HiddenProcess> hidden; // busiest first
  std::size_t hidden_rings = 0;
  bool many_processes = false;       // full rings of more than one process: headings
};

// A ring that saw no SQE and no CQE: set up (or attached to) and never used.
bool ring_is_idle(const Ring& ring);

// The top `full_rings` active rings by time in their requests (then CQEs) are drawn in
// full, and so is every ring a finding at WARN or above names, whatever its rank: the
// finding must have its numbers next to it. Idle rings are folded unless a finding names
// them or every ring is asked for (nullopt). The catch-all ring ("other rings") is always
// drawn in full: it is not a ring.
RingLayout layout_rings(const Snapshot& snap, const std::vector<Finding>& findings,
                        std::optional<std::size_t> full_rings);

}  // namespace uringscope
