// SPDX-License-Identifier: MIT
// The one table of what uringscope can observe: each feature's name (as --version, the
// report header, JSON `kernel.features` and OpenMetrics print it), whether a run is
// possible without it, what the user loses when it is off, the BPF programs that serve
// it, and which runs load it. The probe, the loader, the CLI, the renderers and the
// rules all read it, so a feature's identity never travels as a re-typed string.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace uringscope {

// In the order of kFeatures, which is the order every feature list is printed in.
enum class FeatureId : uint8_t {
  Submit,
  Complete,
  Punt,
  Create,
  Overflow,
  FdWalk,
  Enter,
  PollArm,
  TaskAdd,
  TaskWork,
  LocalWork,
  ShortWrite,
  ReqFailed,
  IoThreads,
  FileGet,
  Fork,
  RingExit,
  AuxReq,
  CheckOverlap,
  CheckUnmap,
  CheckBufreg,
  Catchers,
};
inline constexpr std::size_t kFeatureCount = 22;

// Which runs load a feature's programs: loading them otherwise would cost every run.
enum class FeatureNeed { EveryRun, Trace, Follow, Check };

// Full: requests tracked end to end with punt attribution; Legacy: an older kernel whose
// completions carry no request pointer, or punts unseen; Unsupported: no run possible.
enum class Tier { Full, Legacy, Unsupported };
std::string_view tier_name(Tier tier);  // "full" | "legacy" | "unsupported"
std::string_view tier_name(std::optional<Tier> tier);  // "" where no probe ran

struct FeatureSpec {
  FeatureId id;
  std::string_view name;
  bool required;          // submit and complete: without them there is no run
  std::string_view loss;  // what the user loses when it is off; ends every off-reason
  // Skeleton program names, empty slots last. A feature has one program per tracepoint
  // shape the kernel may have, or for enter, one per way into io_uring_enter.
  std::array<std::string_view, 4> programs;
  FeatureNeed need = FeatureNeed::EveryRun;
};

inline constexpr std::array<FeatureSpec, kFeatureCount> kFeatures{{
    {FeatureId::Submit, "submit", true,
     "requests are not tracked: no submissions, opcodes or latencies",
     {"usc_sub_req", "usc_sub_sqe", "usc_sub_sqe_ctx"}},
    {FeatureId::Complete, "complete", true, "completions, errors and latencies are not measured",
     {"usc_cqe", "usc_cqe_req", "usc_cqe_ud"}},
    {FeatureId::Punt, "punt", false, "punts to io-wq are not counted",
     {"usc_punt", "usc_punt_ctx_req", "usc_punt_ctx_rw"}},
    {FeatureId::Create, "create", false,
     "rings created during the run are found at their first submission, without sizes or "
     "setup flags",
     {"usc_create"}},
    {FeatureId::Overflow, "overflow", false, "overflowed CQEs are not counted", {"usc_cqe_ovf"}},
    {FeatureId::FdWalk, "fd_walk", false,
     "rings opened before attach are found only at their first submission, without fd, "
     "sizes or setup flags",
     {"usc_ring_fds"}},
    {FeatureId::Enter, "enter", false,
     "io_uring_enter calls and submit batch sizes are not counted",
     {"usc_enter_fentry", "usc_enter"}},
    {FeatureId::PollArm, "poll_arm", false, "poll-arm retries (POLL-RETRY) are not counted",
     {"usc_poll_arm", "usc_poll_arm_ctx"}},
    {FeatureId::TaskAdd, "task_add", false,
     "poll wakeups queued as task work are not counted (DEFER-TW cannot measure lag)",
     {"usc_task_add"}},
    {FeatureId::TaskWork, "task_work", false, "task-work runs are not counted", {"usc_tw_run"}},
    {FeatureId::LocalWork, "local_work", false,
     "DEFER_TASKRUN local task work is not counted (no DEFER-TW finding)",
     {"usc_local_tw"}},
    {FeatureId::ShortWrite, "short_write", false, "short writes are not counted",
     {"usc_short_write"}},
    {FeatureId::ReqFailed, "req_failed", false,
     "requests rejected before issue are counted only by their CQE, possibly under the "
     "wrong opcode",
     {"usc_req_failed"}},
    {FeatureId::IoThreads, "io_threads", false,
     "SQPOLL sleeps and io-wq workers are not seen (no SQPOLL or WORKERS finding)",
     {"usc_sched", "usc_thread_exit"}},
    {FeatureId::FileGet, "file_get", false,
     "--trace cannot show which io-wq worker issued a punted request",
     {"usc_file_get"}, FeatureNeed::Trace},
    {FeatureId::Fork, "fork", false, "-f cannot follow forked children",
     {"usc_fork", "usc_fork_exit"},
     FeatureNeed::Follow},
    {FeatureId::RingExit, "ring_exit", false,
     "rows of destroyed rings are not reused: a run that sees more rings than the table "
     "holds counts the rest in the catch-all ring, and the CQEs a destroyed ring's program "
     "never reaped are not counted",
     {"usc_ring_exit", "usc_ring_teardown"}},
    {FeatureId::AuxReq, "aux_req", false,
     "CQEs posted without a request pointer (multishot CQEs) are matched by (ring, "
     "user_data) alone: those of two live requests sharing a user_data are attributed to "
     "neither",
     {"usc_aux_req"}},
    // --check's three detectors. Overlaps are found in the submit and complete programs'
    // --check records, so that detector has no program of its own: it needs the
    // request's command area in BTF.
    {FeatureId::CheckOverlap, "check_overlap", false,
     "--check cannot see what memory requests target: no HAZARD, and no HAZARD-UAF or "
     "HAZARD-BUFREG either",
     {}, FeatureNeed::Check},
    {FeatureId::CheckUnmap, "check_unmap", false,
     "--check cannot see memory unmapped under a request (no HAZARD-UAF)",
     {"usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit"},
     FeatureNeed::Check},
    {FeatureId::CheckBufreg, "check_bufreg", false,
     "--check cannot see registered buffers changed under a request (no HAZARD-BUFREG)",
     {"usc_ck_register"}, FeatureNeed::Check},
    // Not a tracepoint of its own: whether the programs above load with their catchers,
    // second copies that handle the events the kernel skips the first for
    // (bpf/catch.bpf.h). A catcher is named after its program with kCatcherSuffix and
    // serves the same feature.
    {FeatureId::Catchers, "catchers", false,
     "an event that arrives on a CPU where the same program is preempted is skipped by "
     "the kernel and lost (counted in tool_stats.kernel_misses)",
     {}},
}};

inline constexpr std::string_view kCatcherSuffix = "_catch";
constexpr bool is_catcher(std::string_view program) { return program.ends_with(kCatcherSuffix); }

constexpr const FeatureSpec& feature_spec(FeatureId id) {
  return kFeatures[static_cast<std::size_t>(id)];
}
constexpr std::string_view feature_name(FeatureId id) { return feature_spec(id).name; }

// The feature called `name`, or nullopt.
std::optional<FeatureId> feature_by_name(std::string_view name);
// The feature a skeleton program serves, or nullopt for a name not in the table.
std::optional<FeatureId> feature_of_program(std::string_view program);

}  // namespace uringscope
