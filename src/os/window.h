// SPDX-License-Identifier: MIT
// The observation window: waits until it is over (the command exits, every watched pid
// exits, -d expires, or a signal asks us to stop) and runs the periodic work of the
// run in between, each on its own timer: draining the trace buffer, publishing a
// snapshot for the metrics endpoint, printing a live interval.
#pragma once

#include <functional>
#include <optional>

#include "os/signals.h"
#include "os/targets.h"

namespace uringscope {

struct PeriodicTask {
  double every_s = 0;
  std::function<void()> run;
};

enum class WindowEnd { CommandExited, TargetsExited, Duration, Signal };

WindowEnd run_window(const SignalChannel& signals, Targets& targets,
                     std::optional<double> duration_s, const std::vector<PeriodicTask>& tasks);

}  // namespace uringscope
