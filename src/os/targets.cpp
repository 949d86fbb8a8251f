// SPDX-License-Identifier: MIT
#include "os/targets.h"

#include <fmt/format.h>
#include <poll.h>

#include <cerrno>

#include "util/error.h"

namespace uringscope {
namespace {

bool fd_readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP));
}

}  // namespace

void open_targets(const TargetSpec& spec, const SignalChannel& signals, Targets& t) {
  if (!spec.command.empty()) {
    resolve_command(spec.command.front());
    t.child.emplace(spec.command, child_credentials(spec.keep_root), signals.original_mask());
    t.info.mode = TargetMode::Command;
    t.info.command = spec.command;
    t.info.pids = {t.child->pid()};
  } else if (!spec.pids.empty()) {
    t.info.mode = TargetMode::Pid;
    for (int pid : spec.pids) {
      WatchedProcess proc = watch_process(pid);
      bool seen = false;
      for (const auto& p : t.processes) seen |= p.tgid == proc.tgid;
      if (seen) continue;
      t.info.pids.push_back(proc.tgid);
      t.processes.push_back(std::move(proc));
    }
  } else {
    t.info.mode = TargetMode::All;
  }
}

void check_still_running(const Targets& t) {
  for (const auto& proc : t.processes) {
    if (fd_readable(proc.pidfd.get())) {
      throw Error(fmt::format("process {} ({}) exited before uringscope attached", proc.tgid,
                              proc.comm));
    }
  }
}

void pass_on(const signalfd_siginfo& info, const Targets& t) {
  if (t.child && !sent_by_terminal(info) && !our_output_closed(info))
    t.child->signal(static_cast<int>(info.ssi_signo));
}

int wait_for_command(const SignalChannel& signals, Child& child) {
  while (!child.exited()) {
    pollfd fds[2] = {{signals.fd(), POLLIN, 0}, {child.pidfd(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      if (auto info = signals.read();
          info && !sent_by_terminal(*info) && !our_output_closed(*info)) {
        child.signal(static_cast<int>(info->ssi_signo));
      }
    }
    if (fds[1].revents) child.reap(true);
  }
  return child.reap(true).value_or(1);
}

std::string describe_targets(const Targets& t) {
  switch (t.info.mode) {
    case TargetMode::Command:
      return fmt::format("running {} (pid {})", t.info.command.front(), t.child->pid());
    case TargetMode::Pid: {
      std::string pids;
      for (const auto& p : t.processes) {
        pids += fmt::format("{}{} ({})", pids.empty() ? "" : ", ", p.tgid, p.comm);
      }
      return "watching " + pids;
    }
    case TargetMode::All:
      break;
  }
  return "watching every process";
}

}  // namespace uringscope
