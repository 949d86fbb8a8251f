// SPDX-License-Identifier: MIT
#include "rules/thresholds.h"

#include <array>

#include "uringscope/findings.h"

namespace uringscope {
namespace {

// Keep docs/findings.md in step: a unit test checks that every name below appears
// there with its value.
constexpr std::array<Threshold, kThresholdCount> kThresholds = {{
    {ThresholdId::PuntMinPct, kTagPunt, "punt_min_pct", 10.0, "%",
     "A punted request pays a handoff to an io-wq worker (queueing, a wakeup, a context "
     "switch, then usually a blocking call) where the inline path costs a few "
     "microseconds. Healthy programs punt a little: the first reads of a cold file, an "
     "occasional -EAGAIN that no poll can wait out. 1 % would fire on every cold start; "
     "at 10 % one request in ten takes the slow path, so everything from p90 up is "
     "io-wq latency, a systematic pattern worth changing code for."},
    {ThresholdId::PuntMinSubmitted, kTagPunt, "punt_min_submitted", 64.0, "requests",
     "Fewer requests of an op make its share noise: at 64 the 10 % bar needs 7 punts, "
     "more than a few cold-cache reads at startup produce, and the binomial standard "
     "error of a 10 % share is under 4 points. An op used fewer than 64 times in the "
     "window rarely decides tail latency anyway. Applied per (ring, op) row and to the "
     "all-rings total."},
    {ThresholdId::BatchWarnBelow, kTagBatch, "batch_warn_below", 1.5, "SQEs/enter",
     "With every submitting call carrying at least one SQE, a mean under 1.5 forces more "
     "than half of the calls to carry exactly one: the program pays about one "
     "io_uring_enter() per request, the syscall cost io_uring exists to amortize. The "
     "lower edge of the product's ~1.5-2 band."},
    {ThresholdId::BatchInfoBelow, kTagBatch, "batch_info_below", 2.0, "SQEs/enter",
     "A mean under 2 means some calls carry a single SQE (calls of two or more alone "
     "cannot average below 2), so part of the overhead batching removes is still paid. "
     "Request/response servers often have only one or two ready requests at a time, so "
     "this is INFO and never trips --fail-on=warn. The upper edge of the ~1.5-2 band."},
    {ThresholdId::BatchMinEnterCalls, kTagBatch, "batch_min_enter_calls", 200.0, "calls",
     "A busy ring by count. Fewer submitting calls cost well under a millisecond of "
     "syscall time in total, whatever the batch size, and every program submits a few "
     "requests singly while it starts up (setup, registration, the first request of a "
     "loop); 200 calls keep such a prologue from deciding the average."},
    {ThresholdId::BatchMinSqes, kTagBatch, "batch_min_sqes", 200.0, "SQEs",
     "Tells a gap in the tool from a problem in the program: when the submit "
     "tracepoint is missing or its program failed to attach, enter calls are still "
     "counted but SQEs are not, and the average falls towards 0. Asking for as many SQEs "
     "as the enter-call floor means a ring only qualifies when its submissions were "
     "actually seen."},
    {ThresholdId::BatchMinEnterRate, kTagBatch, "batch_min_enter_rate", 1000.0, "calls/s",
     "A busy ring by rate. A syscall round trip costs roughly 0.1-1 us (more with "
     "speculative-execution mitigations), so under 1,000 submitting calls a second they "
     "cost at most about 0.1 % of one CPU and batching cannot buy anything measurable; "
     "such a program is usually a request/response loop with one request to submit at a "
     "time. Checked only when the window length is known."},
    {ThresholdId::ToolUntrackedMinPct, kTagTool, "tool_untracked_min_pct", 1.0, "%",
     "Untracked completions carry no latency. The requests already in flight at attach "
     "are also the longest-running ones, so they are missing from exactly the tail: once "
     "they reach 1 % of completions they are as many as the samples p99 stands on, and "
     "the reader must know before trusting it. Below 1 % (a long window, or a program run "
     "under the scope from its start) they cannot move p99 much."},
    {ThresholdId::ToolEnterNoRingMin, kTagTool, "tool_enter_no_ring_min", 16.0, "calls",
     "A few enter calls whose ring cannot be resolved are expected at the edges of the "
     "window (calls already inside io_uring_enter() at attach, the last calls on a ring "
     "being torn down), each costing one call of batching accuracy. More than 16 points "
     "at a ring the tool cannot resolve at all, whose enter calls, and so its average "
     "batch, are then undercounted."},
    {ThresholdId::WorkersMin, kTagWorkers, "workers_min", 16.0, "threads",
     "The floor under the per-CPU limit, for small machines. io-wq starts a worker "
     "whenever queued work finds none idle and lets it go after about 5 s without work, "
     "so a burst of a dozen fsyncs, opens or cache-missing reads leaves a dozen iou-wrk "
     "threads behind; on a 2-CPU machine 4 per CPU (8) would call that a flood. 16 is "
     "more than such a burst and still far from the hundreds the finding is about."},
    {ThresholdId::WorkersPerCpu, kTagWorkers, "workers_per_cpu", 4.0, "threads/CPU",
     "io-wq caps a task's bounded workers (regular files, block devices) at "
     "min(sq_entries, 4 x online CPUs); unbounded work (sockets, pipes) is capped only by "
     "RLIMIT_NPROC. Reaching 4 per CPU means a whole bounded pool is busy, or unbound "
     "work fans out without limit: more threads than the CPUs can run, nearly all of "
     "them blocked, each with a kernel stack and usually a pinned buffer. The limit "
     "is max(workers_min, workers_per_cpu x CPUs)."},
    {ThresholdId::SqpollOffcpuMinPct, kTagSqpoll, "sqpoll_offcpu_min_pct", 50.0, "%",
     "The SQPOLL thread exists to be on a CPU when SQEs arrive. Off-CPU for at least "
     "half of the window, it sleeps more than it polls, so most bursts find it asleep; "
     "below half, sleeping in the pauses is sq_thread_idle doing its job of giving the "
     "CPU back."},
    {ThresholdId::SqpollMinWakeups, kTagSqpoll, "sqpoll_min_wakeups", 4.0, "wakeups",
     "The floor under the shares and the rate below: a program that pauses once at "
     "startup and once at shutdown wakes its poller two or three times whatever its "
     "pattern. Four IORING_ENTER_SQ_WAKEUP calls are the fewest that are not those, and "
     "few enough that a sparse program waking the thread for each of a dozen submissions "
     "is named."},
    {ThresholdId::SqpollWakeupEveryBelow, kTagSqpoll, "sqpoll_wakeup_every_below", 2.0,
     "SQEs/wakeup",
     "At most two SQEs per wake-up means the program had to wake the thread for nearly "
     "every submission: SQPOLL saved it no syscall at all, whatever the rate. Named at "
     "any rate, INFO while the wake-ups are fewer than sqpoll_min_wakeup_rate a second "
     "(the cost is small in absolute terms) and WARN from that rate on."},
    {ThresholdId::SqpollMinWakeupRate, kTagSqpoll, "sqpoll_min_wakeup_rate", 10.0, "wakeups/s",
     "A sleeping SQPOLL thread that the program wakes after a pause is the design. Ten "
     "wake-ups a second make it the program's steady pattern rather than the few pauses of "
     "a startup or shutdown, and a cost worth a WARN (each is a syscall and a thread "
     "wakeup); a rate, not a count, so that a 2 s run is as clear a case as a 10 s one. "
     "Below it, small bursts are not named, and a wake-up for nearly every submission is "
     "INFO."},
    {ThresholdId::SqpollWakeupBatchBelow, kTagSqpoll, "sqpoll_wakeup_batch_below", 16.0,
     "SQEs/wakeup",
     "Each wakeup is an io_uring_enter() plus a cross-CPU thread wakeup before the first "
     "SQE of the burst is looked at: several microseconds, more from a deep idle state. "
     "Over 16 SQEs or more that is well under a microsecond per request, about what a "
     "plain ring pays to submit the burst in one io_uring_enter(), so big bursts are "
     "fine; under 16 the program pays for a polling thread and still a syscall and a "
     "wakeup per small burst, and a plain ring would do as well."},
    {ThresholdId::SqpollBusyMinWindow, kTagSqpoll, "sqpoll_busy_min_window", 5.0, "s",
     "The thread sleeps only after sq_thread_idle without work (1 s when the program "
     "passes 0), so in a shorter window a thread that will sleep at the next pause may "
     "show no sleep yet. Five seconds outlast the default idle several times over: no "
     "sleep in that long means the thread polled without a pause, one CPU kept busy."},
    {ThresholdId::DeferTwMaxLag, kTagDeferTw, "defer_tw_max_lag", 100.0, "ms",
     "With DEFER_TASKRUN a completion waits until the submitting thread next enters the "
     "kernel to wait for completions. An event loop does that every iteration, so the "
     "wait is microseconds to a few milliseconds (one iteration, a scheduler time "
     "slice). 100 ms is far beyond any loop iteration or scheduling delay, and long "
     "enough for a user to notice: ready completions sat while the thread did "
     "something else."},
    {ThresholdId::PollRetryMinPct, kTagPollRetry, "poll_retry_min_pct", 50.0, "%",
     "A request that waits on poll pays an arm, a wakeup and a reissue from task work, "
     "a few microseconds. A server pays that on some of its receives and it is fine. "
     "From half of an op's requests on, the program mostly posts requests before the "
     "data (or buffer space) is there, where multishot receive with provided buffers "
     "saves the arm per request. INFO only: waiting for data is what network I/O is."},
    {ThresholdId::PollRetryMinSubmitted, kTagPollRetry, "poll_retry_min_submitted", 64.0,
     "requests",
     "The PUNT sample floor for the same reason: with fewer requests of an op a share is "
     "noise. At 64 the 50 % bar takes 32 waits, more than the first receives of a few "
     "connections at startup, and an op used fewer than 64 times is no hot path. A "
     "multishot receive (one request, many CQEs) stays under it, as it should."},
    {ThresholdId::PollRetryRegularMin, kTagPollRetry, "poll_retry_regular_min", 16.0,
     "requests",
     "Regular files on local block file systems never wait on poll: a read completes or "
     "goes to io-wq. A poll-armed regular file is a FUSE or network file system, or a "
     "procfs/sysfs/tracefs-like file with a poll method. One or two are a program "
     "reading such a file once; 16 make it the program's I/O path, each request "
     "waiting on poll and then going to io-wq."},
    {ThresholdId::ErrorsMinPct, kTagErrors, "errors_min_pct", 5.0, "%",
     "Healthy programs see some errors (a peer resetting a connection, an open of a "
     "missing file), well under a percent of an op's completions. At 5 % one request "
     "in twenty fails in a way the program did not ask for (cancellations and expected "
     "timeouts are excluded): a systematic cause, not the network's background noise."},
    {ThresholdId::ErrorsMinCount, kTagErrors, "errors_min_count", 10.0, "errors",
     "A rate over a handful of requests is noise: 2 errors in 20 requests are 10 %. Ten "
     "unexpected errors make a repeated failure worth naming the code of, and keep out "
     "the few failures some programs cause on purpose at startup (trying an opcode or "
     "a flag to see whether the kernel has it)."},
    {ThresholdId::LeakGrowthMin, kTagLeak, "leak_growth_min", 8.0, "requests",
     "The set of requests waiting longer than the leak age must have grown by at least "
     "this many over the window. A floor, not the test: the test is the share and the "
     "shape below, so that a leak of a few requests a second is as clear in a 2 s window "
     "as in a minute (one every 133 ms puts 12 past the 0.5 s age by the end of 2 s). "
     "Below 8, the few receives a server arms for new connections that stay idle through "
     "a short window, or a handful of slow requests that happened to start late in it, "
     "could make the case."},
    {ThresholdId::LeakGrowthMinSharePct, kTagLeak, "leak_growth_min_share_pct", 50.0, "%",
     "Of the set waiting at the end, at least half must have joined it during the window "
     "(the set at least doubled). A server's steady set of armed receives is there from "
     "the start and stays the size of its connection count; a set that is mostly new by "
     "the end is being added to faster than anything completes or cancels it."},
    {ThresholdId::LeakGrowthMinRisingPct, kTagLeak, "leak_growth_min_rising_pct", 25.0, "%",
     "The set must rise in at least a quarter of the sampling intervals (four samples a "
     "second): growth spread over the window, not one burst of requests that got stuck "
     "together, which the stuck-request finding already names. A leak at one request a "
     "second still rises in every fourth interval."},
    {ThresholdId::LeakGrowthMaxDipPct, kTagLeak, "leak_growth_max_dip_pct", 10.0, "%",
     "The set must never fall more than a tenth below its largest size so far: a set that "
     "drains back is served, only slowly, which latency shows, not a leak. A tenth leaves "
     "room for the few requests of a leaking program that do complete."},
    {ThresholdId::LeakGrowthMaxStepPct, kTagLeak, "leak_growth_max_step_pct", 50.0, "%",
     "No one sampling interval may bring more than half of the growth: requests that "
     "started together cross the leak age together (a server arming a receive on each of "
     "its connections, then leaving them idle), a step, not a trend. A leak adds its "
     "requests over time, a fraction of the growth per interval."},
    {ThresholdId::ReapLag, kTagReapLag, "reap_lag", 20.0, "ms",
     "A CQE the program has not reaped is a request the kernel finished and the program "
     "still waits for: the lag adds to that request's latency as the program sees it. An "
     "event loop that reaps every iteration shows microseconds to a few milliseconds: "
     "measured here, fio and Node's libuv under load reach p99 3-5 ms and maxima of 7 ms, "
     "when other threads hold the CPUs. 20 ms is beyond what waiting for a CPU explains "
     "(the scheduler's latency target is 6-24 ms by CPU count, and a runnable loop is "
     "seldom made to wait all of it), and twenty times the 1 ms tick at which a quiet "
     "ring is looked at: past it, the loop itself left its completions waiting."},
    {ThresholdId::ReapLagWarnSharePct, kTagReapLag, "reap_lag_warn_share_pct", 1.0, "%",
     "REAP-LAG is INFO for any CQE that certainly waited past reap_lag, and WARN when they "
     "are a pattern: at least 1 % of the ring's CQEs, which puts the p99 itself past the "
     "threshold. A share, so that a short run with 40 CQEs is judged as a long one with "
     "40,000; the floor below keeps a single stall out of it."},
    {ThresholdId::ReapLagWarnMin, kTagReapLag, "reap_lag_warn_min", 3.0, "CQEs",
     "The floor under that share: one or two late reaps in a small run are a share of "
     "several percent, and one stall (a page fault, a preemption, a debugger) makes them. "
     "Three is the fewest that one stall does not explain."},
    {ThresholdId::ReapLagWarnFactor, kTagReapLag, "reap_lag_warn_factor", 10.0, "x",
     "One CQE that certainly waited ten times reap_lag (200 ms) is WARN alone, however few "
     "CQEs the ring had: a fifth of a second is a stall a user sees, which no scheduling "
     "delay explains. That includes a CQE never reaped, by its age when the ring was torn "
     "down."},
    {ThresholdId::SqWaitP99, kTagSqWait, "sq_wait_p99", 10.0, "ms",
     "An awake SQPOLL thread takes an SQE within microseconds of the tail moving, and one "
     "woken with IORING_ENTER_SQ_WAKEUP within the wakeup's scheduling latency (tens of "
     "microseconds on an idle CPU, a few milliseconds on a busy one). 10 ms at p99 is "
     "past both: the thread slept with SQEs there and nobody woke it, or it was kept off "
     "its CPU. Ten times the 1 ms tick at which a sleeping poller's SQ is looked at, so "
     "the tick's resolution cannot make it."},
    {ThresholdId::SqWaitMinWatched, kTagSqWait, "sq_wait_min_watched", 20.0, "SQEs",
     "SQEs watched on the ring before its p99 means anything: below 20 the p99 is the one "
     "or two slowest SQEs, which a single stall (a preemption of the poller) makes."},
    {ThresholdId::GroupMinRings, kEveryTag, "group_min_rings", 4.0, "rings",
     "A finding with the same tag, op and fix on this many rings becomes one finding that "
     "names them all: a test suite or a server with a ring per worker repeats one cause "
     "on hundreds of rings, and a hundred identical paragraphs hide the one that differs. "
     "Up to three rings read well one by one and are left so, which keeps every report "
     "of a program with a few rings exactly as it was; from four on, the group (its worst "
     "three in full) is shorter than the list."},
    {ThresholdId::GroupShown, kEveryTag, "group_shown", 3.0, "rings",
     "The members of a group written in full, worst first (severity, then the time their "
     "ring's requests took): enough to see whether the worst is an outlier or the rule, "
     "few enough that a group takes a few lines. The JSON report lists every ring."},
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
