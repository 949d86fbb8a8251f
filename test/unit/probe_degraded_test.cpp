// SPDX-License-Identifier: MIT
// The probe on kernels that lack a tracepoint or have one in a shape it does not read:
// one feature off with a reason, the tier decided by the spine alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "probe_btf.h"

namespace uringscope {
namespace {

using namespace probe_fixture;

// --- degraded kernels -----------------------------------------------------------------

TEST(ProbeKernel, MissingPuntIsLegacyWithEverythingElseOn) {
  const auto s = probe(kernel_6_18({"queue_async_work"}));
  EXPECT_EQ(s.submit, SubmitShape::SubmitReq);
  EXPECT_EQ(s.complete, CompleteShape::Cqe);
  EXPECT_EQ(s.punt, PuntShape::None);
  EXPECT_EQ(s.tier, Tier::Legacy);
  EXPECT_EQ(feature_flags(s), all_on_but({"punt"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_punt"}));
  EXPECT_EQ(feature(s, "punt").detail,
            "no io_uring_queue_async_work tracepoint: punts to io-wq are not counted");
}

TEST(ProbeKernel, MissingSubmitIsUnsupported) {
  const auto s = probe(kernel_6_18({"submit_req"}));
  EXPECT_EQ(s.submit, SubmitShape::None);
  EXPECT_EQ(s.complete, CompleteShape::Cqe);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_FALSE(feature(s, "submit").enabled);
  EXPECT_TRUE(contains(feature(s, "submit").detail,
                       "no io_uring_submit_req or io_uring_submit_sqe tracepoint"));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "not tracked"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sub_req"}));
}

TEST(ProbeKernel, MissingCompleteIsUnsupported) {
  const auto s = probe(kernel_6_12({"complete"}));
  EXPECT_EQ(s.submit, SubmitShape::SubmitReq);
  EXPECT_EQ(s.complete, CompleteShape::None);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_EQ(feature(s, "complete").detail,
            "no io_uring_complete tracepoint: completions, errors and latencies are not "
            "measured");
}

TEST(ProbeKernel, MissingCreateAndIteratorTurnOnlyThoseOff) {
  KernelBtf k({"create"});
  add_618_tracepoints(k);  // no bpf_iter__task_file struct either
  const auto s = probe(k);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(feature_flags(s), all_on_but({"create", "fd_walk"}));
  EXPECT_TRUE(contains(feature(s, "create").detail, "no io_uring_create tracepoint"));
  EXPECT_TRUE(contains(feature(s, "fd_walk").detail, "bpf_iter__task_file"));
  EXPECT_TRUE(contains(feature(s, "fd_walk").detail, "5.8"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_create", "usc_ring_fds"}));
  EXPECT_EQ(s.req_bits, bits(-1, -1, -1));
}

// --- unrecognised prototypes ----------------------------------------------------------

TEST(ProbeKernel, SubmitSqeWithUnknownArgCount) {
  KernelBtf k({"submit_req"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("submit_sqe", {t.req, t.bool_, t.int_});
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_FALSE(feature(s, "submit").enabled);
  EXPECT_TRUE(contains(feature(s, "submit").detail,
                       "io_uring_submit_sqe has 3 args: unrecognised prototype"));
  EXPECT_EQ(s.programs.front(), "usc_cqe");
}

TEST(ProbeKernel, SevenArgSubmitSqeWithFourByteArg2) {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, t.u32, t.u64, t.u32, t.bool_, t.bool_});
  k.tracepoint("complete", {t.void_ptr, t.u64, t.int_, t.unsigned_});
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "submit").detail, "7 args"));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "unrecognised prototype"));
}

TEST(ProbeKernel, SevenArgSubmitSqeWithPointerArg2) {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, t.req, t.u64, t.u32, t.bool_, t.bool_});
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
}

TEST(ProbeKernel, SubmitSqeArg2ThroughConstVolatile) {
  // `const volatile u8` is still a one-byte opcode: modifiers must not hide the width.
  KernelBtf k;
  const auto& t = k.types();
  const int cv_u8 = k.checked(btf__add_const(k.raw(), k.checked(btf__add_volatile(k.raw(), t.u8))));
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, cv_u8, t.u64, t.u32, t.bool_, t.bool_});
  EXPECT_EQ(probe(k).submit, SubmitShape::SubmitSqe515);
}

TEST(ProbeKernel, CompleteWithUnknownArgCount) {
  KernelBtf k({"complete"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("complete", {t.void_ptr, t.void_ptr, t.u64, t.int_, t.unsigned_, t.u64});
  const auto s = probe(k);
  EXPECT_EQ(s.complete, CompleteShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "complete").detail,
                       "io_uring_complete has 6 args: unrecognised prototype"));
  EXPECT_TRUE(contains(feature(s, "complete").detail, "not measured"));
}

TEST(ProbeKernel, CompleteWithThreeArgsNeedsATypedCtx) {
  // usc_cqe loads through ctx: a void * there is not a prototype it can read.
  KernelBtf k({"complete"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("complete", {t.void_ptr, t.void_ptr, t.cqe});
  const auto s = probe(k);
  EXPECT_EQ(s.complete, CompleteShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "complete").detail,
                       "io_uring_complete has 3 args but its ctx is not a struct io_ring_ctx *"));
}

TEST(ProbeKernel, PuntWithUnknownArgCountIsLegacy) {
  KernelBtf k({"queue_async_work"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("queue_async_work", {t.req, t.int_, t.unsigned_});
  const auto s = probe(k);
  EXPECT_EQ(s.punt, PuntShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Legacy);
  EXPECT_EQ(feature(s, "punt").detail,
            "io_uring_queue_async_work has 3 args: unrecognised prototype; punts to io-wq are "
            "not counted");
}

TEST(ProbeKernel, CreateAndOverflowNeedFiveArgs) {
  KernelBtf k({"create", "cqe_overflow"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32});
  k.add_tracepoint("cqe_overflow", {t.void_ptr, t.ull, t.s32, t.u32, t.void_ptr, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(s.create);
  EXPECT_FALSE(s.overflow);
  EXPECT_TRUE(contains(feature(s, "create").detail, "io_uring_create has 4 args"));
  EXPECT_TRUE(contains(feature(s, "overflow").detail, "io_uring_cqe_overflow has 6 args"));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_enter", "usc_poll_arm",
                     "usc_task_add", "usc_tw_run", "usc_local_tw", "usc_short_write",
                     "usc_req_failed", "usc_sched", "usc_file_get", "usc_fork",
                     "usc_ring_exit", "usc_aux_req", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"}));
}

// --- poll, task work, writes, failures, io threads ------------------------------------

TEST(ProbeKernel, TaskWorkRunWithAndWithoutLoopsBothSelectTwRun) {
  struct Case {
    bool loops;
    const char* shape;
  };
  for (const Case& c : {Case{false, "(tctx, count), 6.9+ shape"},
                        Case{true, "(tctx, count, loops), 6.0-6.8 shape"}}) {
    SCOPED_TRACE(c.loops ? "task_work_run with 3 args" : "task_work_run with 2 args");
    auto k = kernel_6_18({"task_work_run"});
    const auto& t = k.types();
    if (c.loops)
      k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_});
    else
      k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_});
    const auto s = probe(k);
    EXPECT_TRUE(feature(s, "task_work").enabled);
    EXPECT_TRUE(contains(feature(s, "task_work").detail, c.shape));
    EXPECT_EQ(s.programs, kPrograms618);
    EXPECT_EQ(s.programs[9], "usc_tw_run");
  }
}

TEST(ProbeKernel, TaskWorkRunWithOtherArgCountsIsOff) {
  for (int args : {1, 4}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"task_work_run"});
    const auto& t = k.types();
    if (args == 1)
      k.add_tracepoint("task_work_run", {t.void_ptr});
    else
      k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_, t.unsigned_});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "task_work").enabled);
    EXPECT_TRUE(contains(feature(s, "task_work").detail,
                         "io_uring_task_work_run has " + std::to_string(args) +
                             " args: unrecognised prototype; task-work runs are not counted"));
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_tw_run"}));
  }
}

TEST(ProbeKernel, ReqFailedWithFourArgsIsOff) {
  // The 5.18-5.19 shape (sqe, ctx, req, error) on an otherwise 6.18 kernel.
  auto k = kernel_6_18({"req_failed"});
  const auto& t = k.types();
  k.add_tracepoint("req_failed", {t.sqe, t.void_ptr, t.void_ptr, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "req_failed").enabled);
  EXPECT_TRUE(contains(feature(s, "req_failed").detail, "4 args"));
  EXPECT_EQ(feature(s, "req_failed").detail,
            "io_uring_req_failed has 4 args: unrecognised prototype; requests rejected before "
            "issue are counted only by their CQE, possibly under the wrong opcode");
  EXPECT_EQ(feature_flags(s), all_on_but({"req_failed"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_req_failed"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, ReqFailedWithTwoArgsIsOff) {
  // The 5.16-5.17 shape (sqe, error).
  auto k = kernel_6_18({"req_failed"});
  const auto& t = k.types();
  k.add_tracepoint("req_failed", {t.sqe, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "req_failed").enabled);
  EXPECT_TRUE(contains(feature(s, "req_failed").detail,
                       "io_uring_req_failed has 2 args: unrecognised prototype"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_req_failed"}));
}

TEST(ProbeKernel, SchedSwitchWithFiveArgsIsOff) {
  auto k = kernel_6_18({"sched_switch"});
  const auto& t = k.types();
  k.add_sched_switch({t.bool_, t.task, t.task, t.unsigned_, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "5 args"));
  EXPECT_EQ(feature(s, "io_threads").detail,
            "sched_switch has 5 args: unrecognised prototype; SQPOLL sleeps and io-wq workers "
            "are not seen (no SQPOLL or WORKERS finding)");
  EXPECT_EQ(feature_flags(s), all_on_but({"io_threads"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, SchedSwitchWithTwoArgsIsOff) {
  auto k = kernel_6_18({"sched_switch"});
  const auto& t = k.types();
  k.add_sched_switch({t.bool_, t.task});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "sched_switch has 2 args"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, KernelWithoutSchedSwitchLosesOnlyIoThreads) {
  const auto full = probe(kernel_6_18());
  const auto s = probe(kernel_6_18({"sched_switch"}));
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_EQ(feature(s, "io_threads").detail,
            "no sched_switch tracepoint: SQPOLL sleeps and io-wq workers are not seen (no SQPOLL "
            "or WORKERS finding)");
  EXPECT_EQ(feature_flags(s), all_on_but({"io_threads"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
  // Everything else exactly as on the complete kernel.
  expect_as_full_except(s, full, "io_threads");
}

TEST(ProbeKernel, SchedSwitchIsNotAnIoUringTracepoint) {
  // The typedef is btf_trace_sched_switch; an io_uring_-prefixed one is someone else's.
  auto k = kernel_6_18({"sched_switch"});
  const auto& t = k.types();
  k.add_tracepoint("sched_switch", {t.bool_, t.task, t.task, t.unsigned_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "no sched_switch tracepoint"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, SchedSwitchTypedefToNonPointer) {
  auto k = kernel_6_18({"sched_switch"});
  k.checked(btf__add_typedef(k.raw(), "btf_trace_sched_switch", k.types().int_));
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_EQ(feature(s, "io_threads").detail,
            "btf_trace_sched_switch is not a pointer to a function prototype; SQPOLL sleeps and "
            "io-wq workers are not seen (no SQPOLL or WORKERS finding)");
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, SixArgPollArmSelectsTheLegacyProgram) {
  // 5.15-5.17 (opcode, user_data) and 5.18-5.19 (user_data, opcode) orders: the program
  // reads only ctx and req, which lead both.
  for (bool order_518 : {false, true}) {
    SCOPED_TRACE(order_518 ? "5.18-5.19 order" : "5.15-5.17 order");
    auto k = kernel_6_18({"poll_arm"});
    const auto& t = k.types();
    if (order_518)
      k.add_tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u64, t.u8, t.int_, t.int_});
    else
      k.add_tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u8, t.u64, t.int_, t.int_});
    const auto s = probe(k);
    EXPECT_TRUE(feature(s, "poll_arm").enabled);
    EXPECT_EQ(feature(s, "poll_arm").detail,
              "io_uring_poll_arm(ctx, req, ...), 5.15-5.19 shape");
    Strings expected = kPrograms618;
    expected[7] = "usc_poll_arm_ctx";
    EXPECT_EQ(s.programs, expected);
  }
}

TEST(ProbeKernel, PollArmWithOtherArgCountsIsOff) {
  for (int args : {2, 5}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"poll_arm"});
    const auto& t = k.types();
    if (args == 2)
      k.add_tracepoint("poll_arm", {t.req, t.int_});
    else
      k.add_tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u64, t.u8, t.int_});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "poll_arm").enabled);
    EXPECT_EQ(feature(s, "poll_arm").detail,
              "io_uring_poll_arm has " + std::to_string(args) +
                  " args: unrecognised prototype; poll-arm retries (POLL-RETRY) are not counted");
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_poll_arm"}));
  }
}

TEST(ProbeKernel, OneShapeFeaturesRejectOtherArgCounts) {
  // task_add, local_work_run and short_write each have one readable shape.
  auto k = kernel_6_18({"task_add", "local_work_run", "short_write"});
  const auto& t = k.types();
  k.add_tracepoint("task_add", {t.req, t.int_, t.int_});
  k.add_tracepoint("local_work_run", {t.void_ptr, t.int_});
  k.add_tracepoint("short_write", {t.void_ptr, t.u64, t.u64, t.u64, t.u64});
  const auto s = probe(k);
  EXPECT_EQ(feature_flags(s), all_on_but({"task_add", "local_work", "short_write"}));
  EXPECT_TRUE(contains(feature(s, "task_add").detail, "io_uring_task_add has 3 args"));
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "io_uring_local_work_run has 2 args"));
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "no DEFER-TW finding"));
  EXPECT_TRUE(contains(feature(s, "short_write").detail, "io_uring_short_write has 5 args"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_task_add", "usc_local_tw", "usc_short_write"}));
}

TEST(ProbeKernel, NewerFeaturesMissingFromA60Kernel) {
  // A 6.0-like kernel: task_work_run with loops, no local_work_run yet.
  auto k = kernel_6_18({"task_work_run", "local_work_run"});
  const auto& t = k.types();
  k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_});
  const auto s = probe(k);
  EXPECT_EQ(feature_flags(s), all_on_but({"local_work"}));
  EXPECT_EQ(feature(s, "local_work").detail,
            "no io_uring_local_work_run tracepoint (added in 6.1 with DEFER_TASKRUN): "
            "DEFER_TASKRUN local task work is not counted (no DEFER-TW finding)");
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_local_tw"}));
}

}  // namespace
}  // namespace uringscope
