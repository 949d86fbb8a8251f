// SPDX-License-Identifier: MIT
// What a run shows while it observes: -i's interval lines, top's screen, and the
// snapshots --metrics scrapers ask for (metrics/scrape_demand.h). All of them read the
// kernel tables on the run loop's thread, the only one that touches the tracer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cli/options.h"
#include "cli/snapshot_source.h"
#include "metrics/ring_series.h"
#include "metrics/scrape_demand.h"
#include "os/signals.h"
#include "os/targets.h"
#include "os/window.h"
#include "top/top_view.h"

namespace uringscope {

class LiveView;

class WindowViews {
 public:
  // `demand` is the metrics endpoint's, null without --metrics; it must outlive this.
  WindowViews(const Options& opts, const SnapshotSource& source, ScrapeDemand* demand,
              uint64_t start_ns);
  ~WindowViews();
  // Takes top's screen or prints -i's header, publishes the first snapshot for scrapers,
  // and adds the periodic work.
  void schedule(std::vector<PeriodicTask>& tasks);
  // The observation window (os/window.h), which top's q also ends; top's screen is
  // given back before this returns, whichever way.
  void observe(const SignalChannel& signals, Targets& targets,
               const std::vector<PeriodicTask>& tasks);
  // Right after detaching: -i's last, partial interval.
  void after_detach();
  // The run's last reading, for scrapers from now on.
  void finish(const Snapshot& last);

 private:
  Snapshot metrics_reading();
  // The snapshot the endpoint renders: bounded file rows and ring series.
  Snapshot for_metrics(Snapshot snap);

  const Options& opts_;
  const SnapshotSource& source_;
  ScrapeDemand* demand_;
  uint64_t start_ns_;
  std::unique_ptr<LiveView> live_;
  std::optional<top::TopView> top_;
  RingSeriesChoice metrics_rings_;  // kept from reading to reading
};

}  // namespace uringscope
