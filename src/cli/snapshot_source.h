// SPDX-License-Identifier: MIT
// How a run turns the tracer's tables into snapshots while it observes. Only the run
// loop's thread calls take(): the metrics server asks it for snapshots through
// metrics/scrape_demand.h and never touches the tracer.
#pragma once

#include <functional>
#include <vector>

#include "loader/tracer.h"
#include "snapshot/snapshot_builder.h"
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
  Snapshot take(bool with_leaks) const;
  // The last reading, after detaching, with the leak scan and what only the end knows:
  // the fds /proc gives rings the BPF side found no fd for, the --check findings named
  // after the rings (`hazards`, when --check ran), the series of long-waiting requests.
  Snapshot take_final(std::function<HazardInfo(const std::vector<Ring>&)> hazards,
                      std::vector<WaitingSample> waiting_samples) const;
  // -f: the children followed during the run join the target list.
  void add_followed(const std::vector<uint32_t>& tgids);

 private:
  SnapshotContext context() const;

  const Tracer& tracer_;
  KernelInfo kernel_;
  TargetInfo target_;
  uint64_t start_ns_;
  uint64_t leak_age_ns_;
};

uint64_t monotonic_ns();

}  // namespace uringscope
