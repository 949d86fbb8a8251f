// SPDX-License-Identifier: MIT
// What one run measured, as plain values: the rules engine and every renderer take a
// Snapshot and nothing else, so they are testable without a kernel.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uringscope/features.h"
#include "uringscope/file_stats.h"
#include "uringscope/hazards.h"
#include "uringscope/histogram.h"
#include "uringscope/liburing_uprobes.h"
#include "uringscope/target_info.h"

namespace uringscope {

// Counters that exist per ring and for all rings together. The JSON key of each field
// is its name in kCounterFields; fields are only ever added (schema stability).
struct Counters {
  uint64_t enter_calls = 0;            // io_uring_enter() calls
  uint64_t enter_submit_calls = 0;     // ... of which with to_submit > 0
  uint64_t to_submit_sum = 0;          // sum of to_submit
  uint64_t submissions = 0;            // SQEs seen at the submit tracepoint
  uint64_t completions = 0;            // CQEs posted (overflowed ones included)
  uint64_t punted = 0;                 // requests handed to io-wq
  uint64_t errors = 0;                 // CQEs with res < 0, -EAGAIN excluded
  uint64_t cq_overflows = 0;           // CQEs that overflowed the CQ ring
  uint64_t multishot_cqes = 0;         // CQEs with IORING_CQE_F_MORE
  uint64_t untracked_completions = 0;  // CQEs of requests never seen submitted
  uint64_t inflight_map_drops = 0;     // tracked requests evicted from the in-flight table
  uint64_t rings_created = 0;          // rings whose io_uring_create fell in the window
  uint64_t failed_requests = 0;        // rejected before issue (io_uring_req_failed)
  uint64_t poll_armed = 0;             // requests that waited on internal poll, then retried
  uint64_t poll_armed_regular = 0;     // ... on regular files
  uint64_t short_writes = 0;           // nonblocking buffered writes that wrote part
  uint64_t task_adds = 0;              // completions queued as task work
  uint64_t task_work_runs = 0;         // task-work passes that ran items
  uint64_t task_work_items = 0;        // ... items they ran
  uint64_t local_task_work_runs = 0;   // DEFER_TASKRUN local work passes that ran items
  uint64_t local_task_work_items = 0;
  uint64_t local_task_work_max_lag_ns = 0;  // longest queue-to-run wait (max, not sum)
  uint64_t local_task_work_pending_ns = 0;  // age of local work still waiting at the end
  uint64_t sqpoll_offcpu_ns = 0;       // SQPOLL thread switched out
  uint64_t sqpoll_sleeps = 0;          // ... voluntarily (idle)
  uint64_t sqpoll_preempts = 0;        // ... involuntarily
  uint64_t sqpoll_wakeups = 0;         // enter calls with IORING_ENTER_SQ_WAKEUP
  uint64_t workers_distinct = 0;       // io-wq threads of the owner seen running
  uint64_t cancelled_at_exit = 0;      // -ECANCELED CQEs posted while the owner was exiting
  uint64_t leaks_suspected = 0;        // in flight past the leak age, not waiting on an event
  uint64_t leaks_pending = 0;          // in flight past the leak age, waiting on an event
  uint64_t aux_cqes_by_request = 0;    // pointer-less CQEs matched by io_req_post_cqe's request
  // --check: hazards whose first request (the one already in flight) was the ring's.
  uint64_t hazard_overlaps = 0;
  uint64_t hazard_bufreg = 0;
  uint64_t hazard_unmap = 0;

  Counters& operator+=(const Counters& other);
  bool operator==(const Counters&) const = default;
};

// How a counter combines across rings: most add up, a few are a maximum, and
// workers_distinct is per process (rings of one process share its io-wq workers).
enum class CounterMerge { Sum, Max, PerProcess };

struct CounterField {
  std::string_view name;
  uint64_t Counters::*member;
  CounterMerge merge = CounterMerge::Sum;
};
extern const std::array<CounterField, 35> kCounterFields;

// Why requests went to io-wq, as far as the kernel shows it at the punt.
// kPuntReasonFields (fields.h) lists them with their names.
struct PuntReasons {
  uint64_t forced = 0;        // IOSQE_ASYNC: punted without an inline attempt
  uint64_t hashed = 0;        // hashed work: buffered writes, serialized per inode
  uint64_t regular_file = 0;  // other regular-file work, typically a page-cache miss
  uint64_t eagain = 0;        // the nonblocking attempt returned -EAGAIN, no poll possible

  PuntReasons& operator+=(const PuntReasons& other);
  bool operator==(const PuntReasons&) const = default;
};

struct ErrnoCount {
  int err = 0;  // positive errno (EBADF = 9)
  uint64_t count = 0;

  bool operator==(const ErrnoCount&) const = default;
};

// One opcode's numbers on one ring (or merged over rings). kOpCounterFields (fields.h)
// lists the plain counters with their JSON names.
struct OpStats {
  uint32_t opcode = 0;
  uint64_t submitted = 0;
  uint64_t completed = 0;       // CQEs, multishot intermediates and untracked included
  uint64_t untracked = 0;       // CQEs whose submit we did not see
  uint64_t punted = 0;
  PuntReasons punt_reasons;
  uint64_t errors = 0;          // res < 0, -EAGAIN excluded
  std::vector<ErrnoCount> errnos;  // by count, largest first; sums to errors unless the
                                   // errno table filled up
  uint64_t multishot_cqes = 0;
  uint64_t failed = 0;          // rejected before issue (bad SQE)
  uint64_t poll_armed = 0;
  uint64_t poll_armed_regular = 0;
  uint64_t cancelled_at_exit = 0;
  // Zero-copy sends (SEND_ZC, SENDMSG_ZC): the request ends at its notification CQE;
  // these keep the time to its result CQE and count the notifications.
  uint64_t zc_results = 0;        // result CQEs (F_MORE) of tracked sends
  uint64_t zc_result_sum_ns = 0;  // ... sum of their submit-to-result times
  uint64_t zc_notifications = 0;  // IORING_CQE_F_NOTIF CQEs matched to their send
  uint64_t bytes = 0;           // positive results of an op that moves data (opcode_moves_data)
  Histogram latency;            // submit -> final CQE, tracked requests only

  double punt_pct() const;      // punted / submitted, 0 when nothing was submitted
  double bytes_per_request() const;  // bytes / submitted (/ completed without a submit seen)
  OpStats& operator+=(const OpStats& other);
  bool operator==(const OpStats&) const = default;
};

// Where a request still in flight at the end was last seen.
enum class RequestWhere { Issued, Poll, IoWq, TaskWork, Notification };
std::string_view request_where_name(RequestWhere where);

// A request in flight at the end of the window (or when its owner exited) for longer
// than the leak age.
struct PendingRequest {
  uint32_t ring = 0;     // Ring::id
  uint32_t opcode = 0;
  uint64_t age_ns = 0;
  uint64_t user_data = 0;
  RequestWhere where = RequestWhere::Issued;
  bool abandoned = false;  // the owner exited and the kernel cancelled it
  bool waiting = false;    // waiting on an event (armed poll, or an op that waits by design)
  // The file it was on, named as the files table names it, when the kernel had given the
  // request its file (its poll arm, its punt) and --files was on; "" otherwise.
  std::string file;

  bool operator==(const PendingRequest&) const = default;
};

// Abandoned requests are classified like the others: an abandoned RECV still only
// waited for a peer, an abandoned open stuck in io-wq is still suspected.
// How many tracked requests had been in flight longer than the leak age, at one moment
// of the window: the series shows whether that set holds steady or keeps growing.
struct WaitingSample {
  uint64_t at_ns = 0;     // since the window opened
  uint64_t requests = 0;

  bool operator==(const WaitingSample&) const = default;
};
inline constexpr std::size_t kMaxWaitingSamples = 256;

struct LeakInfo {
  uint64_t threshold_ns = 0;          // --leak-age
  uint64_t suspected = 0;             // not waiting on an event: stuck, or never progressed
  uint64_t pending = 0;               // waiting on an event, past the leak age
  uint64_t oldest_ns = 0;             // oldest of either kind
  // Suspected first, then pending; oldest first within each; at most kMaxLeakRecords.
  std::vector<PendingRequest> requests;
  // Evenly spaced through the window, oldest first, at most kMaxWaitingSamples; empty
  // when the run did not sample (a saved report, a live interval).
  std::vector<WaitingSample> waiting_samples;

  bool operator==(const LeakInfo&) const = default;
};
inline constexpr std::size_t kMaxLeakRecords = 64;

// An owner's io-wq workers (`iou-wrk-*`), seen running in the window.
struct ProcessWorkers {
  uint32_t pid = 0;
  uint64_t distinct = 0;

  bool operator==(const ProcessWorkers&) const = default;
};

enum class RingSource { Create, FdTable, Submit, CatchAll };

// What a row of destroyed rings sums: one ring, or, past the number of destroyed rings
// kept one by one (--rings), every ring folded of one process, of one command name, or
// of every process (snapshot/retired_store.h).
enum class FoldScope : uint8_t { Ring, Process, Command, All };

// The end-to-end boundary from the rings' own indices (bpf/boundary.bpf.h): how many
// CQEs wait for the program, how long each waited to be reaped (or never was), and on SQPOLL
// rings how long SQEs waited for the poller.
struct RingBoundary {
  uint64_t cq_depth_samples = 0;  // CQEs posted while watched
  uint64_t cq_depth_sum = 0;      // ... sum of the CQEs ready and unreaped, each included
  uint64_t cq_depth_max = 0;
  Histogram reap_lag;             // every CQE's post -> first sight of the head past it
                                  // (upper bounds)
  Histogram reap_lag_min;         // post -> last sight of it unreaped (lower bounds)
  uint64_t reap_gap_sum_ns = 0;   // how much earlier each reap could have been: the
  uint64_t reap_gap_max_ns = 0;   // observation's resolution, per reap
  uint64_t timer_looks = 0;       // BPF timer looks at a quiet ring's waiting CQEs
  uint64_t reap_untimed = 0;      // CQEs seen reaped without a post time (their slot was
                                  // taken by a later CQE, or they came through overflow)
  uint64_t reap_never = 0;        // CQEs still unreaped when the ring was torn down
  uint64_t reap_never_max_ns = 0; // ... the oldest one's age then
  // SQPOLL rings (bpf/boundary_sq.bpf.h): SQEs watched from their first sighting in the SQ
  // ring until the poller took them. Lower bounds: each SQE was written at most its
  // resolution earlier. The SQEs taken before any look saw them waiting are in it as 0.
  Histogram sq_wait;
  uint64_t sq_taken_unseen = 0;
  uint64_t sq_res_sum_ns = 0;
  uint64_t sq_res_max_ns = 0;
  uint64_t sq_timer_looks = 0;    // BPF timer looks at the SQ while the poller was off-CPU
  // liburing's exported calls (bpf/liburing.bpf.c), when uprobes attached: submit
  // batching as the program asked for it, and the exact reap lag of the CQEs a waiting or
  // batch call handed over (post to the program being handed the CQE).
  uint64_t lu_submit_calls = 0;
  uint64_t lu_submit_sqes = 0;
  uint64_t lu_submit_max = 0;
  uint64_t lu_cqes_handed = 0;
  Histogram lu_reap_lag;

  double cq_depth_avg() const;    // 0 when no sample
  uint64_t reap_gap_mean_ns() const;
  uint64_t sq_res_mean_ns() const;  // over the SQEs seen waiting
  double lu_sqes_per_submit() const;  // 0 without a call
  bool liburing_seen() const { return lu_submit_calls || lu_cqes_handed; }
  bool operator==(const RingBoundary&) const = default;
};

struct Ring {
  uint32_t id = 0;             // report id: order of first sight, from 0
  uint64_t ctx = 0;            // kernel address of the io_ring_ctx (identity only)
  uint32_t pid = 0;
  std::string comm;
  int32_t fd = -1;             // -1 when unknown
  uint32_t sq_tid = 0;         // SQPOLL thread, 0 when none seen
  uint32_t bpf_row = 0;        // the ring's row in the kernel tables (trace records carry it)
  uint64_t first_ns = 0;       // bpf_ktime_get_ns() when first seen: orders the ids
  uint64_t observed_ns = 0;    // how long it existed inside the window (0: unknown, read
                               // the window's length): a share of time is a share of this
  bool destroyed = false;      // destroyed during the run, its row given back
  FoldScope fold = FoldScope::Ring;  // a fold: pid is 0 past Process, comm "" for All
  uint64_t folded_rings = 0;   // destroyed rings a fold sums (0: not a fold)
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
  uint32_t setup_flags = 0;    // IORING_SETUP_*
  RingSource source = RingSource::Submit;
  Counters counters;
  std::vector<OpStats> ops;    // ascending opcode, only opcodes that saw activity
  std::vector<FileStats> files;  // per (file, op), busiest first; empty with --no-files
  RingBoundary boundary;       // all zero when Snapshot::boundary_measured is false

  bool sqpoll() const;
  // sched_switch fires only for a thread that runs, so an SQPOLL thread asleep from before
  // the window to after it leaves every counter at zero: "no sleep" means "always polling"
  // only once the thread was seen on a CPU (switched, or submitting).
  bool sqpoll_thread_seen_running() const;
  double avg_batch() const;    // SQEs per submitting enter call, 0 when no such call
  bool operator==(const Ring&) const = default;
};

// One row of the feature table as observed on this kernel, in kFeatures order.
struct FeatureState {
  std::string name;     // feature_name(): also the JSON key, so a string, not a FeatureId
  bool enabled = false;
  std::string detail;   // the variant in use, or why the feature is off

  bool operator==(const FeatureState&) const = default;
};

struct KernelInfo {
  std::string release;
  std::optional<Tier> tier;  // Full or Legacy in a run; unset where no probe ran
  std::vector<FeatureState> features;

  bool operator==(const KernelInfo&) const = default;
};

// What a missing row means: the probe always lists every feature, so in a run a missing
// row is off; hand-built snapshots and old baselines may have no rows at all, and a rule
// must not read "not recorded" as "not measured".
enum class IfAbsent { Off, On };
// Whether the feature's row says it is on: the one way the CLI and the rules ask.
bool feature_on(const std::vector<FeatureState>& features, FeatureId id,
                IfAbsent if_absent = IfAbsent::Off);

// The tool's own losses; each one degrades what the numbers mean. kToolFields (fields.h)
// lists them with their names.
struct ToolStats {
  uint64_t rings_full = 0;         // rings refused a row: counted in the catch-all ring
  uint64_t opstats_full = 0;       // (ring, op) pairs refused a row: in the catch-all row
  uint64_t op_out_of_range = 0;    // opcodes beyond the table
  uint64_t enter_no_ring = 0;      // enter calls whose ring we could not resolve
  uint64_t overflow_no_req = 0;    // overflowed CQEs of untracked requests
  uint64_t errno_full = 0;         // error CQEs whose errno could not be recorded
  uint64_t threads_full = 0;       // io threads not recorded (thread table full)
  uint64_t trace_drops = 0;        // --trace records lost: the ring buffer was full

  bool operator==(const ToolStats&) const = default;
  uint64_t udata_ambiguous = 0;    // pointer-less CQEs two live requests could own
  uint64_t udata_evicted = 0;      // live requests displaced from the user_data index
  uint64_t zc_ambiguous = 0;       // zero-copy sends whose notification was ambiguous
  uint64_t notif_no_req = 0;       // notification CQEs of untracked sends
  uint64_t latency_torn = 0;       // latency samples discarded (entry rewritten)
  uint64_t check_drops = 0;        // --check records lost: the check buffer was full
  uint64_t check_unseen = 0;       // --check: iovecs or memory not checked
  uint64_t files_full = 0;         // CQEs left out of the per-file rows (file table full)
  uint64_t names_full = 0;         // files left unnamed (file name table full)
  uint64_t kernel_misses = 0;      // events the kernel did not run our program for
};

struct Snapshot {
  std::string tool_version;
  uint64_t wall_ns = 0;       // length of the observation window
  unsigned ncpus = 0;
  KernelInfo kernel;
  TargetInfo target;
  std::vector<Ring> rings;    // ascending id
  ToolStats tool;
  LeakInfo leak;
  std::vector<ProcessWorkers> workers;
  HazardInfo hazards;  // --check
  // The boundary (Ring::boundary) was measured: the kernel's CQE order was learned.
  bool boundary_measured = false;
  LiburingUprobes liburing;  // the boundary's exact source, when attached

  // All rings together; filled by aggregate().
  Counters totals;
  std::vector<OpStats> ops;

  bool operator==(const Snapshot&) const = default;
};

// Fills snapshot.totals and snapshot.ops from the rings.
void aggregate(Snapshot& snapshot);

std::string_view target_mode_name(TargetMode mode);
std::string_view ring_source_name(RingSource source);
std::string_view fold_scope_name(FoldScope scope);

}  // namespace uringscope
