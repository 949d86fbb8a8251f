// SPDX-License-Identifier: MIT
// The work a run does on timers while it observes, beside its outputs: rows of destroyed
// rings given back, the set of long-waiting requests sampled, --trace and --check records
// drained; and what each leaves in the final snapshot.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "check/hazard_analyzer.h"
#include "cli/options.h"
#include "cli/waiting_sampler.h"
#include "loader/tracer.h"
#include "os/window.h"
#include "trace/trace_writer.h"

namespace uringscope {

class WindowWork {
 public:
  // `trace` is the run's --trace writer, when there is one; it must outlive this.
  WindowWork(const Options& opts, Tracer& tracer, std::optional<TraceWriter>& trace,
             uint64_t start_ns);
  void schedule(std::vector<PeriodicTask>& tasks);
  // Right before detaching: waits (a second at most) for the teardown of every ring whose
  // owner has exited, so that a ring a program destroyed in its last moments is reported
  // destroyed with its numbers, not alive (its end is only seen while attached).
  void await_teardowns();
  // Right after detaching: the last sample and reclaim, every record left.
  void after_detach();
  // What the final snapshot takes from this work: the waiting series, and with --check
  // the hazards, named after the snapshot's rings. Empty function without --check.
  std::vector<WaitingSample> waiting_samples() const { return waiting_.samples(); }
  std::function<HazardInfo(const std::vector<Ring>&)> hazards() const;
  // --trace is finished with the final snapshot's ring names and drop count.
  void complete(const Snapshot& snap);

 private:
  void sample_waiting(bool last);
  // Hands the trace records waiting in the kernel to the writer, and tells it up to when
  // they are complete when the drain got them all.
  void drain_trace(uint64_t budget);

  Tracer& tracer_;
  std::optional<TraceWriter>& trace_;
  uint64_t start_ns_;
  uint64_t leak_age_ns_;
  WaitingSampler waiting_;
  std::optional<HazardAnalyzer> hazards_;
};

}  // namespace uringscope
