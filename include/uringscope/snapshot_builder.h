// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

#include "uringscope/raw_tables.h"
#include "uringscope/snapshot.h"

namespace uringscope {

struct SnapshotContext {
  std::string tool_version;
  uint64_t wall_ns = 0;
  unsigned ncpus = 0;
  KernelInfo kernel;
  TargetInfo target;
};

// Rows -> rings with their ops and counters, then aggregate(). Rows that no ring owns
// (lost allocation races) and an idle catch-all row are dropped.
Snapshot build_snapshot(const RawTables& raw, SnapshotContext context);

}  // namespace uringscope
