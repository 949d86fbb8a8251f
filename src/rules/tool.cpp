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
#include "uringscope/fields.h"

namespace uringscope::rules {

namespace {

constexpr std::string_view kTrackedOnly = " Latency statistics cover tracked requests only.";

// What one of the tool's loss counters means for the report, and its remedy; `message`
// has one {} for the count. In the order the findings are listed. A table-full loss has
// two remedies: with -a, fewer processes compete for the table; a run that already
// traces one process tree has too many rings (or ops) of its own for it.
struct ToolLossText {
  uint64_t ToolStats::*member;
  std::string_view message;
  std::string_view suggestion;
  std::string_view suggestion_for_one_tree = {};
  // The one-tree remedy when destroyed rings give their rows back (feature ring_exit).
  std::string_view suggestion_with_row_reuse = {};
};

constexpr ToolLossText kLossTexts[] = {
    {&ToolStats::rings_full,
     "The tool's ring table was full: {} rings got no row, and their events were counted "
     "under the catch-all ring, so per-ring numbers are incomplete.",
     "Narrow the target (-p PID instead of -a) so fewer rings compete for the table.",
     "The traced processes created more rings than the table holds (a destroyed ring keeps "
     "its row): trace a shorter window, or one part of the test suite at a time.",
     "The traced processes had more rings open at once than the table holds (destroyed "
     "rings give their rows back): trace fewer of them at a time."},
    {&ToolStats::opstats_full,
     "The tool's per-op table was full: {} (ring, op) pairs got no row, and their events "
     "were counted under a catch-all row, so per-op numbers are incomplete.",
     "Narrow the target (-p PID instead of -a) so fewer (ring, op) pairs compete for the "
     "table.",
     "The traced processes used more (ring, op) pairs than the table holds, usually from "
     "many short-lived rings: trace a shorter window, or one part of the work at a time.",
     "The traced processes had more (ring, op) pairs in use at once than the table holds "
     "(destroyed rings give theirs back): trace fewer of them at a time."},
    {&ToolStats::op_out_of_range,
     "{} requests had opcodes beyond the tool's opcode table and were counted together in "
     "one row.",
     "The kernel is newer than this uringscope; upgrade uringscope to see those ops by name."},
    {&ToolStats::overflow_no_req,
     "{} overflowed CQEs belonged to requests the tool did not track: the overflow count is "
     "exact, but those CQEs are not attributed to an op.",
     "Run the program under uringscope from its start so its requests are tracked."},
    {&ToolStats::errno_full,
     "{} error completions had codes the tool's errno table had no room for: they count as "
     "errors, but ERRORS cannot name their codes and counts them as unexpected.",
     "Narrow the target (-p PID instead of -a) so fewer (ring, op, errno) triples compete "
     "for the table."},
    {&ToolStats::threads_full,
     "{} io threads (io-wq workers, SQPOLL threads) were not recorded because the tool's "
     "thread table was full: worker counts read low, and SQPOLL numbers may be missing.",
     "Narrow the target (-p PID instead of -a); a process that really runs thousands of "
     "io-wq workers is itself the problem WORKERS describes."},
    {&ToolStats::udata_ambiguous,
     "{} CQEs without a request pointer carried a user_data that two live requests shared: "
     "the tool did not guess whose they were, so they count as untracked completions.",
     "Give concurrent requests distinct user_data (a connection pointer plus the op, say): "
     "multishot CQEs on 6.13+ name only their user_data."},
    {&ToolStats::udata_evicted,
     "{} requests in flight were displaced from the tool's user_data index by other "
     "requests: a CQE of theirs without a request pointer would count as untracked.",
     "Counts stay exact unless the untracked completions above grow; very many long-lived "
     "requests in flight at once cause this."},
    {&ToolStats::zc_ambiguous,
     "{} zero-copy sends waited for their notification while another send with the same "
     "user_data did too: their CQEs count, but their latencies could not be told apart and "
     "are left out.",
     "Give each zero-copy send its own user_data until its notification arrives."},
    {&ToolStats::notif_no_req,
     "{} zero-copy notifications belonged to sends the tool did not track (submitted "
     "before attach): they count as untracked completions of their ring.",
     "Run the program under uringscope from its start so its sends are tracked."},
    {&ToolStats::latency_torn,
     "{} latency samples were discarded because the request's entry changed while it was "
     "read (a racing submit on another CPU): the histograms miss that many samples.",
     "Nothing to change: this is rare, and every count stays exact."},
    {&ToolStats::trace_drops,
     "{} --trace records were lost because the trace buffer was full: the timeline has gaps "
     "(requests without their start or end), while the report's counts are complete.",
     "Trace a shorter window, or fewer processes (-p instead of -a): records are drained "
     "ten times a second into a fixed-size buffer."},
    {&ToolStats::check_drops,
     "{} --check records were lost because the check buffer was full: a hazard among those "
     "requests may be missing, and one whose end record was lost can be reported as "
     "overlapping a later request.",
     "Check a shorter window, or fewer processes: records are drained ten times a second "
     "into a fixed-size buffer."},
    {&ToolStats::check_unseen,
     "{} memory ranges were not checked by --check: iovecs of vectored requests beyond "
     "their first 8, or iovec arrays that could not be read when the request was submitted.",
     "Hazards in those ranges are not reported; the others are."},
    {&ToolStats::kernel_misses,
     "The kernel skipped uringscope's programs {} times: an event fired on a CPU where the "
     "same program was already running, preempted or interrupted mid-run, and the kernel "
     "runs a program once per CPU at a time. Counts may miss up to that many events.",
     "Where tracepoints run their programs preemptibly (6.19+), a second copy of each "
     "program handles most such events (feature catchers) and these are the ones both "
     "copies missed: read the counts as lower bounds, or trace on fewer busy CPUs "
     "(taskset for the program, fewer other loads)."},
    // Last, and only past a threshold: a few unmatched calls barely move a batch average.
    {&ToolStats::enter_no_ring,
     "{} io_uring_enter() calls could not be matched to a ring: the rings they belong to "
     "show too few enter calls, so their average batch reads high.",
     "Run the program under uringscope from its start, so every ring is seen when it is "
     "created."},
};

std::string_view tool_field_name(uint64_t ToolStats::*member) {
  for (const ToolField& field : kToolFields)
    if (field.member == member) return field.name;
  return {};
}

// All are INFO: they qualify the numbers, they are not problems of the target.
Finding tool_finding(std::string message, std::string suggestion, std::vector<Evidence> evidence) {
  return Finding{
      .tag = kTagTool,
      .severity = Severity::Info,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message) + std::string(kTrackedOnly),
      .suggestion = std::move(suggestion),
      .evidence = std::move(evidence),
  };
}

// Completions without a seen submission, and requests evicted from the in-flight table.
void untracked_findings(const Snapshot& snapshot, std::vector<Finding>& out) {
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
    out.push_back(tool_finding(
        fmt::format("{} of {} completions ({}) belong to requests whose submission the tool "
                    "did not see: submitted before attach, or evicted from its in-flight "
                    "table. They count in the totals but carry no latency.",
                    format_count(untracked), format_count(completions),
                    format_percent(untracked_pct)),
        "Run the program under uringscope from its start instead of attaching with -p, or "
        "use a longer window (-d) so requests already in flight at attach weigh less.",
        {count_evidence("untracked_completions", untracked),
         count_evidence("completions", completions),
         real_evidence("untracked_pct", untracked_pct)}));
  }
  if (drops > 0) {
    out.push_back(tool_finding(
        fmt::format("{} requests were not tracked because the tool's in-flight table had "
                    "no free way for them (more requests in flight at once than its "
                    "buckets hold); their completions count as untracked.",
                    format_count(drops)),
        "Counts are unaffected. With very many requests in flight at once (deep queues, "
        "long-lived poll or multishot requests), read the latency percentiles as a sample.",
        {count_evidence("inflight_map_drops", drops)}));
  }
}

bool loss_reported(uint64_t ToolStats::*member, uint64_t count) {
  if (member == &ToolStats::enter_no_ring)
    return static_cast<double>(count) > thr(ThresholdId::ToolEnterNoRingMin);
  return count > 0;
}

}  // namespace

// One finding per cause: each degrades a different part of the report and has its own
// remedy.
void rule_tool(const Snapshot& snapshot, std::vector<Finding>& out) {
  untracked_findings(snapshot, out);
  for (const ToolLossText& loss : kLossTexts) {
    const uint64_t count = snapshot.tool.*loss.member;
    if (!loss_reported(loss.member, count)) continue;
    const bool one_tree = snapshot.target.mode != TargetMode::All;
    const bool row_reuse = feature_on(snapshot.kernel.features, FeatureId::RingExit, IfAbsent::Off);
    std::string_view suggestion = loss.suggestion;
    if (one_tree && !loss.suggestion_for_one_tree.empty()) suggestion = loss.suggestion_for_one_tree;
    if (one_tree && row_reuse && !loss.suggestion_with_row_reuse.empty())
      suggestion = loss.suggestion_with_row_reuse;
    out.push_back(tool_finding(fmt::format(fmt::runtime(loss.message), format_count(count)),
                               std::string(suggestion),
                               {count_evidence(std::string(tool_field_name(loss.member)), count)}));
  }
}

}  // namespace uringscope::rules
