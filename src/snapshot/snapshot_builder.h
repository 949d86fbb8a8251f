// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "uringscope/raw_tables.h"
#include "uringscope/snapshot.h"

namespace uringscope {

struct SnapshotContext {
  std::string tool_version{};
  uint64_t wall_ns = 0;
  unsigned ncpus = 0;
  KernelInfo kernel{};
  TargetInfo target{};
  uint64_t end_ns = 0;        // CLOCK_MONOTONIC at the end of the window (bpf_ktime_get_ns)
  uint64_t leak_age_ns = 0;   // in flight longer than this at the end: a leak (or a wait)
  // What only the final reading knows, so that the snapshot is complete when it is built
  // and never written again: the fd of each ring (in order; -1 for none) for rings whose
  // fd the BPF side could not learn, the --check findings named after the rings, and the
  // sampled series of long-waiting requests.
  std::function<std::vector<int>(const std::vector<Ring>&)> ring_fds{};
  std::function<HazardInfo(const std::vector<Ring>&)> hazards{};
  std::vector<WaitingSample> waiting_samples{};
};

// Rows -> rings with their ops and counters, the errno table onto its ops, io threads
// onto their processes and rings, the in-flight table into LeakInfo; then aggregate().
// Rows that no ring owns (lost allocation races) and an idle catch-all row are dropped.
Snapshot build_snapshot(const RawTables& raw, SnapshotContext context);

}  // namespace uringscope
