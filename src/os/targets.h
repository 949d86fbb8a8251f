// SPDX-License-Identifier: MIT
// The processes a run watches: a command uringscope starts, pids given with -p, or
// everything (-a).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "os/process.h"
#include "os/signals.h"
#include "uringscope/target_info.h"

namespace uringscope {

struct Targets {
  std::optional<Child> child;
  std::vector<WatchedProcess> processes;
  TargetInfo info;
};

// What to watch, as the command line gave it: a command to start (run as the invoking
// user unless keep_root), else pids, else every process.
struct TargetSpec {
  std::vector<std::string> command;
  std::vector<int> pids;
  bool keep_root = false;
};

// Filled in place: a Child is neither copyable nor movable. Throws Error for a command
// that does not exist or a pid that does not.
void open_targets(const TargetSpec& spec, const SignalChannel& signals, Targets& t);

// Every watched pid must still be alive once we are attached; otherwise there is
// nothing to watch and an empty report would mislead. Throws Error.
void check_still_running(const Targets& t);

// Passes a SIGINT/SIGTERM/SIGHUP on to the command unless the terminal already sent it
// to the whole process group.
void pass_on(const signalfd_siginfo& info, const Targets& t);

// After the report: the command keeps running unwatched until it exits; its status is
// the run's. Signals sent to us in the meantime are passed on.
int wait_for_command(const SignalChannel& signals, Child& child);

// "running ./app (pid 12)", "watching 12 (app), 13 (db)", "watching every process".
std::string describe_targets(const Targets& t);

}  // namespace uringscope
