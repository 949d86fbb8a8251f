// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

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
};

// Rows -> rings with their ops and counters, the errno table onto its ops, io threads
// onto their processes and rings, the in-flight table into LeakInfo; then aggregate().
// Rows that no ring owns (lost allocation races) and an idle catch-all row are dropped.
Snapshot build_snapshot(const RawTables& raw, SnapshotContext context);

}  // namespace uringscope
