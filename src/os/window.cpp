// SPDX-License-Identifier: MIT
#include "os/window.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "util/error.h"
#include "util/unique_fd.h"

namespace uringscope {
namespace {

timespec to_timespec(double seconds) {
  timespec ts{};
  const double whole = std::floor(seconds);
  ts.tv_sec = static_cast<time_t>(whole);
  ts.tv_nsec = static_cast<long>((seconds - whole) * 1e9);
  if (ts.tv_sec == 0 && ts.tv_nsec == 0) ts.tv_nsec = 1;
  return ts;
}

// A one-shot timer, or a periodic one when `periodic`.
UniqueFd make_timer(double seconds, bool periodic) {
  UniqueFd fd(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!fd) throw Error(fmt::format("timerfd_create: {}", strerror(errno)));
  itimerspec spec{};
  spec.it_value = to_timespec(seconds);
  if (periodic) spec.it_interval = spec.it_value;
  if (timerfd_settime(fd.get(), 0, &spec, nullptr) != 0) {
    throw Error(fmt::format("timerfd_settime: {}", strerror(errno)));
  }
  return fd;
}

void acknowledge(int timer) {
  uint64_t expirations;
  ssize_t n = read(timer, &expirations, sizeof expirations);
  (void)n;
}

}  // namespace

WindowEnd run_window(const SignalChannel& signals, Targets& t, std::optional<double> duration_s,
                     const std::vector<PeriodicTask>& tasks) {
  UniqueFd deadline;
  if (duration_s) deadline = make_timer(*duration_s, false);
  std::vector<UniqueFd> ticks;
  for (const PeriodicTask& task : tasks) ticks.push_back(make_timer(task.every_s, true));
  std::vector<bool> exited(t.processes.size(), false);

  for (;;) {
    // Fixed slots first, then one per task, then one per watched process still alive.
    std::vector<pollfd> fds{{signals.fd(), POLLIN, 0},
                            {deadline ? deadline.get() : -1, POLLIN, 0},
                            {t.child ? t.child->pidfd() : -1, POLLIN, 0}};
    const std::size_t first_task = fds.size();
    for (const UniqueFd& tick : ticks) fds.push_back({tick.get(), POLLIN, 0});
    std::vector<std::size_t> proc_of_slot(fds.size(), SIZE_MAX);
    for (std::size_t i = 0; i < t.processes.size(); ++i) {
      if (exited[i]) continue;
      fds.push_back({t.processes[i].pidfd.get(), POLLIN, 0});
      proc_of_slot.push_back(i);
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("poll: {}", strerror(errno)));
    }
    if (fds[0].revents) {
      if (auto info = signals.read()) {
        pass_on(*info, t);
        return WindowEnd::Signal;
      }
    }
    if (fds[1].revents) return WindowEnd::Duration;
    if (fds[2].revents) {
      t.child->reap(true);
      return WindowEnd::CommandExited;
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (!fds[first_task + i].revents) continue;
      acknowledge(ticks[i].get());
      tasks[i].run();
    }
    for (std::size_t slot = 0; slot < fds.size(); ++slot) {
      if (proc_of_slot[slot] != SIZE_MAX && fds[slot].revents) exited[proc_of_slot[slot]] = true;
    }
    if (!t.processes.empty() && std::all_of(exited.begin(), exited.end(), [](bool e) { return e; })) {
      return WindowEnd::TargetsExited;
    }
  }
}

}  // namespace uringscope
