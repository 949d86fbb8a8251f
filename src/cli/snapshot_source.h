// SPDX-License-Identifier: MIT
// How a run turns the tracer's tables into snapshots while it observes. Only the run
// loop's thread calls take(): the metrics server asks it for snapshots through
// metrics/scrape_demand.h and never touches the tracer.
#pragma once

#include <vector>

#include "loader/tracer.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// Snapshots for the whole run: periodically (live mode, metrics) without the leak scan,
// and once at the end with it.
class SnapshotSource {
 public:
  SnapshotSource(const Tracer& tracer, KernelInfo kernel, TargetInfo target, uint64_t start_ns,
                 double leak_age_s);

  // `with_leaks` copies the in-flight table (2 MiB by default) for the leak scan: the end
  // of the run and the metrics endpoint need it, live intervals do not.
  Snapshot take(bool with_leaks, bool final_reading = false) const;
  // -f: the children followed during the run join the target list.
  void add_followed(const std::vector<uint32_t>& tgids);

 private:
  const Tracer& tracer_;
  KernelInfo kernel_;
  TargetInfo target_;
  uint64_t start_ns_;
  uint64_t leak_age_ns_;
};

uint64_t monotonic_ns();

}  // namespace uringscope
