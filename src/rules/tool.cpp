// SPDX-License-Identifier: MIT
// TOOL: the tool's own losses that qualify the numbers in the report.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

// One finding per cause: each degrades a different part of the report and has its own
// remedy. All are INFO: they qualify the numbers, they are not problems of the target.
void rule_tool(const Snapshot& snapshot, std::vector<Finding>& out) {
  constexpr std::string_view kTrackedOnly = " Latency statistics cover tracked requests only.";
  auto add = [&out, kTrackedOnly](std::string message, std::string suggestion,
                                  std::vector<Evidence> evidence) {
    message += kTrackedOnly;
    out.push_back(Finding{
        .tag = "TOOL",
        .severity = Severity::Info,
        .ring = std::nullopt,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion = std::move(suggestion),
        .evidence = std::move(evidence),
    });
  };

  uint64_t completions = 0;
  uint64_t untracked = 0;
  uint64_t drops = 0;
  for (const Ring& ring : snapshot.rings) {
    completions += ring.counters.completions;
    untracked += ring.counters.untracked_completions;
    drops += ring.counters.inflight_map_drops;
  }

  const double untracked_pct = pct_of(untracked, completions);
  if (completions > 0 && untracked_pct >= thr(ThresholdId::ToolUntrackedMinPct)) {
    add(fmt::format("{} of {} completions ({}) belong to requests whose submission the tool "
                    "did not see: submitted before attach, or evicted from its in-flight "
                    "table. They count in the totals but carry no latency.",
                    format_count(untracked), format_count(completions),
                    format_percent(untracked_pct)),
        "Run the program under uringscope from its start instead of attaching with -p, or "
        "use a longer window (-d) so requests already in flight at attach weigh less.",
        {count_evidence("untracked_completions", untracked),
         count_evidence("completions", completions),
         real_evidence("untracked_pct", untracked_pct)});
  }
  if (drops > 0) {
    add(fmt::format("{} tracked requests were evicted from the tool's in-flight table (more "
                    "requests in flight at once than its buckets hold); their completions "
                    "count as untracked.",
                    format_count(drops)),
        "Counts are unaffected. With very many requests in flight at once (deep queues, "
        "long-lived poll or multishot requests), read the latency percentiles as a sample.",
        {count_evidence("inflight_map_drops", drops)});
  }

  const ToolStats& tool = snapshot.tool;
  if (tool.rings_full > 0) {
    add(fmt::format("The tool's ring table was full: {} events of rings it had no row for "
                    "were counted under the catch-all ring, so per-ring numbers are "
                    "incomplete.",
                    format_count(tool.rings_full)),
        "Narrow the target (-p PID instead of -a) so fewer rings compete for the table.",
        {count_evidence("rings_full", tool.rings_full)});
  }
  if (tool.opstats_full > 0) {
    add(fmt::format("The tool's per-op table was full: {} events were counted under a "
                    "catch-all row, so per-op numbers are incomplete.",
                    format_count(tool.opstats_full)),
        "Narrow the target (-p PID instead of -a) so fewer (ring, op) pairs compete for "
        "the table.",
        {count_evidence("opstats_full", tool.opstats_full)});
  }
  if (tool.op_out_of_range > 0) {
    add(fmt::format("{} requests had opcodes beyond the tool's opcode table and were "
                    "counted together in one row.",
                    format_count(tool.op_out_of_range)),
        "The kernel is newer than this uringscope; upgrade uringscope to see those ops by "
        "name.",
        {count_evidence("op_out_of_range", tool.op_out_of_range)});
  }
  if (tool.overflow_no_req > 0) {
    add(fmt::format("{} overflowed CQEs belonged to requests the tool did not track: the "
                    "overflow count is exact, but those CQEs are not attributed to an op.",
                    format_count(tool.overflow_no_req)),
        "Run the program under uringscope from its start so its requests are tracked.",
        {count_evidence("overflow_no_req", tool.overflow_no_req)});
  }
  if (tool.errno_full > 0) {
    add(fmt::format("{} error completions had codes the tool's errno table had no room for: "
                    "they count as errors, but ERRORS cannot name their codes and counts them "
                    "as unexpected.",
                    format_count(tool.errno_full)),
        "Narrow the target (-p PID instead of -a) so fewer (ring, op, errno) triples compete "
        "for the table.",
        {count_evidence("errno_full", tool.errno_full)});
  }
  if (tool.threads_full > 0) {
    add(fmt::format("{} io threads (io-wq workers, SQPOLL threads) were not recorded because "
                    "the tool's thread table was full: worker counts read low, and SQPOLL "
                    "numbers may be missing.",
                    format_count(tool.threads_full)),
        "Narrow the target (-p PID instead of -a); a process that really runs thousands of "
        "io-wq workers is itself the problem WORKERS describes.",
        {count_evidence("threads_full", tool.threads_full)});
  }
  if (tool.trace_drops > 0) {
    add(fmt::format("{} --trace records were lost because the trace buffer was full: the "
                    "timeline has gaps (requests without their start or end), while the "
                    "report's counts are complete.",
                    format_count(tool.trace_drops)),
        "Trace a shorter window, or fewer processes (-p instead of -a): records are drained "
        "ten times a second into a fixed-size buffer.",
        {count_evidence("trace_drops", tool.trace_drops)});
  }
  if (static_cast<double>(tool.enter_no_ring) > thr(ThresholdId::ToolEnterNoRingMin)) {
    add(fmt::format("{} io_uring_enter() calls could not be matched to a ring: the rings "
                    "they belong to show too few enter calls, so their average batch reads "
                    "high.",
                    format_count(tool.enter_no_ring)),
        "Run the program under uringscope from its start, so every ring is seen when it is "
        "created.",
        {count_evidence("enter_no_ring", tool.enter_no_ring)});
  }
}

}  // namespace uringscope::rules
