// SPDX-License-Identifier: MIT
// Catchers: whether each tracepoint program loads with a second copy that handles the
// events the kernel skips the first for (bpf/catch.bpf.h, US_PROG).
//
// The kernel runs a raw tracepoint program once per CPU at a time and skips an event
// that fires while it runs there. Up to 6.18 tracepoints run their programs with
// preemption disabled, so only an interrupt can nest, which the io_uring tracepoints do
// not do on top of our programs. From 6.19 they run them with migration disabled only,
// and a task preempted inside a program makes the kernel skip that program for the other
// tasks on the CPU: in the 7.2 guest, with a CPU hog beside a ring churn, about one
// submit in a hundred, sometimes every submit of a ring.
#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include "probe/choosers.h"

namespace uringscope {
namespace {

constexpr std::pair<int, int> kFirstPreemptibleRelease{6, 19};

// (major, minor) of a release string such as "7.2.13+deb14-amd64"; nullopt when it does
// not start that way.
std::optional<std::pair<int, int>> release_version(std::string_view release) {
  int major = 0;
  int minor = 0;
  const char* end = release.data() + release.size();
  auto [after_major, e1] = std::from_chars(release.data(), end, major);
  if (e1 != std::errc() || after_major == end || *after_major != '.') return std::nullopt;
  auto [after_minor, e2] = std::from_chars(after_major + 1, end, minor);
  if (e2 != std::errc()) return std::nullopt;
  return std::pair{major, minor};
}

}  // namespace

Choice<bool> choose_catchers(const ProbeEnvironment& env) {
  const auto version = release_version(env.kernel_release);
  if (version && *version < kFirstPreemptibleRelease)
    return {false, "not needed: this kernel runs tracepoint programs with preemption disabled", {}};
  // A release the probe cannot read gets them: their cost is a few nanoseconds an event,
  // the alternative lost events.
  if (!version)
    return {true, "release '" + env.kernel_release + "' not understood: loaded to be safe", {}};
  return {true, "6.19+ runs tracepoint programs preemptibly: a second copy of each handles "
                "the events the kernel skips the first for", {}};
}

}  // namespace uringscope
