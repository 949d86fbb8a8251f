// SPDX-License-Identifier: MIT
// NODATA: no io_uring activity at all in the window, so the report measured nothing.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"

namespace uringscope::rules {

namespace {

bool ring_saw_activity(const Ring& ring) {
  const Counters& c = ring.counters;
  if (c.enter_calls || c.submissions || c.completions) return true;
  return std::any_of(ring.ops.begin(), ring.ops.end(),
                     [](const OpStats& op) { return op.submitted || op.completed; });
}

}  // namespace

void rule_nodata(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (std::any_of(snapshot.rings.begin(), snapshot.rings.end(), ring_saw_activity)) return;
  // Enter calls on a ring the tool could not resolve are still io_uring activity.
  if (snapshot.tool.enter_no_ring > 0) return;

  const double seconds = static_cast<double>(snapshot.wall_ns) / 1e9;
  const std::string window =
      snapshot.wall_ns ? fmt::format("the {:.1f} s window", seconds) : std::string("the window");
  std::string message = fmt::format(
      "No io_uring activity in the target during {}: no submissions, completions or "
      "io_uring_enter() calls on any ring",
      window);
  message += snapshot.rings.empty()
                 ? "."
                 : fmt::format(" ({} ring{} found, all idle).", snapshot.rings.size(),
                               snapshot.rings.size() == 1 ? "" : "s");
  message += " An empty report here means nothing was measured, not that io_uring is healthy.";
  out.push_back(Finding{
      .tag = kTagNodata,
      .severity = Severity::Info,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message),
      .suggestion =
          "Check the pid (and -f for children), and that the program really uses io_uring: "
          "Docker's default seccomp profile blocks the io_uring syscalls, many runtimes fall "
          "back to epoll or thread pools when io_uring is unavailable or off by default "
          "(Node.js/libuv needs UV_USE_IO_URING=1). If it does I/O in bursts, widen the "
          "window with -d.",
      .evidence = {count_evidence("rings", snapshot.rings.size()),
                   count_evidence("wall_ns", snapshot.wall_ns)},
  });
}

}  // namespace uringscope::rules
