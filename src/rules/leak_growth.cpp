// SPDX-License-Identifier: MIT
#include "rules/leak_growth.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

namespace {

constexpr std::size_t kMinSamples = 4;  // three intervals: a shape, not a pair of points

struct Growth {
  uint64_t first = 0;
  uint64_t last = 0;
  std::size_t rising = 0;     // intervals in which the set grew
  std::size_t intervals = 0;
  uint64_t largest = 0;
  uint64_t largest_step = 0;  // the most it grew in one interval
  bool dipped = false;        // fell more than the allowed share below its largest
  double seconds = 0;
};

Growth shape_of(const std::vector<WaitingSample>& samples) {
  Growth g;
  g.first = samples.front().requests;
  g.last = samples.back().requests;
  g.intervals = samples.size() - 1;
  g.seconds = static_cast<double>(samples.back().at_ns - samples.front().at_ns) / kNsPerS;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const uint64_t n = samples[i].requests;
    if (i > 0 && n > samples[i - 1].requests) {
      ++g.rising;
      g.largest_step = std::max(g.largest_step, n - samples[i - 1].requests);
    }
    g.largest = std::max(g.largest, n);
    if (static_cast<double>(n) * 100.0 <
        static_cast<double>(g.largest) * (100.0 - thr(ThresholdId::LeakGrowthMaxDipPct)))
      g.dipped = true;
  }
  return g;
}

bool grew_steadily(const Growth& g) {
  if (g.last <= g.first || g.dipped || g.seconds <= 0) return false;
  const uint64_t growth = g.last - g.first;
  return at_least(growth, ThresholdId::LeakGrowthMin) &&
         pct_of(growth, g.last) >= thr(ThresholdId::LeakGrowthMinSharePct) &&
         pct_of(g.rising, g.intervals) >= thr(ThresholdId::LeakGrowthMinRisingPct) &&
         pct_of(g.largest_step, growth) <= thr(ThresholdId::LeakGrowthMaxStepPct);
}

// The ops of the recorded long-waiting requests, for the message.
std::string ops_of(const LeakInfo& leak) {
  std::map<uint32_t, uint64_t> by_op;
  for (const PendingRequest& r : leak.requests) ++by_op[r.opcode];
  return op_count_list({by_op.begin(), by_op.end()}, 4);
}

}  // namespace

std::optional<Finding> growing_set_finding(const LeakInfo& leak) {
  if (leak.waiting_samples.size() < kMinSamples) return std::nullopt;
  const Growth g = shape_of(leak.waiting_samples);
  if (!grew_steadily(g)) return std::nullopt;
  const double per_s = static_cast<double>(g.last - g.first) / g.seconds;
  const std::string ops = ops_of(leak);
  std::string message = fmt::format(
      "The requests in flight longer than {} grew from {} to {} over {} ({}/s), rising in {} "
      "of {} sampling intervals and never draining back",
      format_duration(leak.threshold_ns), format_count(g.first), format_count(g.last),
      format_duration(static_cast<uint64_t>(g.seconds * kNsPerS)), format_fixed(per_s, 1),
      format_count(g.rising), format_count(g.intervals));
  message += recorded_ops_suffix(ops, leak.requests.size() < leak.pending + leak.suspected);
  message +=
      ": the program adds requests that do not complete faster than anything completes or "
      "cancels them, even if each one waits on an event.";
  return Finding{
      .tag = kTagLeak,
      .severity = Severity::Warn,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message),
      .suggestion =
          "Find what should end these requests: reads or receives on files and sockets whose "
          "peer never writes or has gone, polls never removed, timeouts never fired. Cancel "
          "them when their peer goes (io_uring_prep_cancel64(), or io_uring_prep_cancel_fd() "
          "with IORING_ASYNC_CANCEL_ALL when closing its file), and bound how many one "
          "connection may have in flight. A server whose count of idle connections is still "
          "ramping up reads the same way: then this is its connection count.",
      .evidence = {count_evidence("waiting_first", g.first), count_evidence("waiting_last", g.last),
                   real_evidence("growth_per_s", per_s),
                   count_evidence("rising_samples", g.rising),
                   count_evidence("intervals", g.intervals),
                   count_evidence("threshold_ns", leak.threshold_ns)},
  };
}

}  // namespace uringscope::rules
