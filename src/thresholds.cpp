// SPDX-License-Identifier: MIT
#include "uringscope/thresholds.h"

#include <array>

namespace uringscope {
namespace {

// Keep docs/findings.md in step: a unit test checks that every name below appears
// there with its value.
constexpr std::array<Threshold, kThresholdCount> kThresholds = {{
    {ThresholdId::PuntMinPct, "PUNT", "punt_min_pct", 10.0, "%",
     "A punted request pays a handoff to an io-wq worker (queueing, a wakeup, a context "
     "switch, then usually a blocking call) where the inline path costs a few "
     "microseconds. Healthy programs punt a little: the first reads of a cold file, an "
     "occasional -EAGAIN that no poll can wait out. 1 % would fire on every cold start; "
     "at 10 % one request in ten takes the slow path, so everything from p90 up is "
     "io-wq latency, a systematic pattern worth changing code for."},
    {ThresholdId::PuntMinSubmitted, "PUNT", "punt_min_submitted", 64.0, "requests",
     "Fewer requests of an op make its share noise: at 64 the 10 % bar needs 7 punts, "
     "more than a few cold-cache reads at startup produce, and the binomial standard "
     "error of a 10 % share is under 4 points. An op used fewer than 64 times in the "
     "window rarely decides tail latency anyway. Applied per (ring, op) row and to the "
     "all-rings total."},
    {ThresholdId::BatchWarnBelow, "BATCH", "batch_warn_below", 1.5, "SQEs/enter",
     "With every submitting call carrying at least one SQE, a mean under 1.5 forces more "
     "than half of the calls to carry exactly one: the program pays about one "
     "io_uring_enter() per request, the syscall cost io_uring exists to amortize. The "
     "lower edge of the product's ~1.5-2 band."},
    {ThresholdId::BatchInfoBelow, "BATCH", "batch_info_below", 2.0, "SQEs/enter",
     "A mean under 2 means some calls carry a single SQE (calls of two or more alone "
     "cannot average below 2), so part of the overhead batching removes is still paid. "
     "Request/response servers often have only one or two ready requests at a time, so "
     "this is INFO and never trips --fail-on=warn. The upper edge of the ~1.5-2 band."},
    {ThresholdId::BatchMinEnterCalls, "BATCH", "batch_min_enter_calls", 200.0, "calls",
     "A busy ring by count. Fewer submitting calls cost well under a millisecond of "
     "syscall time in total, whatever the batch size, and every program submits a few "
     "requests singly while it starts up (setup, registration, the first request of a "
     "loop); 200 calls keep such a prologue from deciding the average."},
    {ThresholdId::BatchMinSqes, "BATCH", "batch_min_sqes", 200.0, "SQEs",
     "Tells a gap in the tool from a problem in the program: when the submit "
     "tracepoint is missing or its program failed to attach, enter calls are still "
     "counted but SQEs are not, and the average falls towards 0. Asking for as many SQEs "
     "as the enter-call floor means a ring only qualifies when its submissions were "
     "actually seen."},
    {ThresholdId::BatchMinEnterRate, "BATCH", "batch_min_enter_rate", 1000.0, "calls/s",
     "A busy ring by rate. A syscall round trip costs roughly 0.1-1 us (more with "
     "speculative-execution mitigations), so under 1,000 submitting calls a second they "
     "cost at most about 0.1 % of one CPU and batching cannot buy anything measurable; "
     "such a program is usually a request/response loop with one request to submit at a "
     "time. Checked only when the window length is known."},
    {ThresholdId::ToolUntrackedMinPct, "TOOL", "tool_untracked_min_pct", 1.0, "%",
     "Untracked completions carry no latency. The requests already in flight at attach "
     "are also the longest-running ones, so they are missing from exactly the tail: once "
     "they reach 1 % of completions they are as many as the samples p99 stands on, and "
     "the reader must know before trusting it. Below 1 % (a long window, or a program run "
     "under the scope from its start) they cannot move p99 much."},
    {ThresholdId::ToolEnterNoRingMin, "TOOL", "tool_enter_no_ring_min", 16.0, "calls",
     "A few enter calls whose ring cannot be resolved are expected at the edges of the "
     "window (calls already inside io_uring_enter() at attach, the last calls on a ring "
     "being torn down), each costing one call of batching accuracy. More than 16 points "
     "at a ring the tool cannot resolve at all, whose enter calls, and so its average "
     "batch, are then undercounted."},
}};

constexpr bool ids_match_positions() {
  for (std::size_t i = 0; i < kThresholds.size(); ++i) {
    if (static_cast<std::size_t>(kThresholds[i].id) != i) return false;
  }
  return true;
}
static_assert(ids_match_positions(), "kThresholds must be ordered by ThresholdId");

}  // namespace

const Threshold& threshold(ThresholdId id) { return kThresholds[static_cast<std::size_t>(id)]; }

std::span<const Threshold> all_thresholds() { return kThresholds; }

}  // namespace uringscope
