// SPDX-License-Identifier: MIT
// file_get, sched_process_fork and BTF that is broken or missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "probe_btf.h"

namespace uringscope {
namespace {

using namespace probe_fixture;


// --- file_get (--trace) and fork (-f) -------------------------------------------------

constexpr std::string_view kFileGetOff =
    "; --trace cannot show which io-wq worker issued a punted request";
constexpr std::string_view kForkAbsent =
    "no sched_process_fork tracepoint: -f cannot follow forked children";
constexpr std::string_view kForkOff =
    "sched_process_fork is not (task_struct *parent, task_struct *child): unrecognised "
    "prototype; -f cannot follow forked children";
constexpr std::string_view kForkNotProto =
    "btf_trace_sched_process_fork is not a pointer to a function prototype; -f cannot "
    "follow forked children";

TEST(ProbeKernel, TwoArgFileGetWithVoidPointerFirstIsOff) {
  // The 5.15-5.17 shape (void *ctx, int fd) on an otherwise 6.18 kernel: two args like
  // 6.0+, but no request to read.
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  k.add_tracepoint("file_get", {t.void_ptr, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 2 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, TwoArgFileGetWithAnotherStructPointerFirstIsOff) {
  // A struct pointer is not enough: it has to be struct io_kiocb.
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  k.add_tracepoint("file_get", {t.ctx, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_TRUE(contains(feature(s, "file_get").detail, "io_uring_file_get has 2 args"));
  EXPECT_TRUE(contains(feature(s, "file_get").detail, kFileGetOff));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
}

TEST(ProbeKernel, FourArgFileGetIsOff) {
  // The 5.18-5.19 shape (void *ctx, void *req, ull user_data, int fd).
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  k.add_tracepoint("file_get", {t.void_ptr, t.void_ptr, t.ull, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 4 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, FileGetWithRequestFirstButOtherArgCountsIsOff) {
  // usc_file_get reads (req, fd); a request first does not make another count readable.
  for (int args : {1, 3, 4}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"file_get"});
    const auto& t = k.types();
    if (args == 1)
      k.add_tracepoint("file_get", {t.req});
    else if (args == 3)
      k.add_tracepoint("file_get", {t.req, t.int_, t.unsigned_});
    else
      k.add_tracepoint("file_get", {t.req, t.void_ptr, t.ull, t.int_});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "file_get").enabled);
    EXPECT_TRUE(contains(feature(s, "file_get").detail,
                         "io_uring_file_get has " + std::to_string(args) + " args"));
    EXPECT_TRUE(contains(feature(s, "file_get").detail, kFileGetOff));
    EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
  }
}

TEST(ProbeKernel, FileGetRequestBehindTypedefsAndConstIsOn) {
  // `typedef const struct io_kiocb kiocb_t; typedef kiocb_t *kiocb_ptr_t;` is still a
  // struct io_kiocb *: wrappers must not hide the struct.
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  const int kiocb = btf__find_by_name_kind(k.raw(), "io_kiocb", BTF_KIND_STRUCT);
  ASSERT_GT(kiocb, 0);
  const int const_kiocb = k.checked(btf__add_const(k.raw(), kiocb));
  const int kiocb_t = k.checked(btf__add_typedef(k.raw(), "kiocb_t", const_kiocb));
  const int ptr = k.checked(btf__add_ptr(k.raw(), kiocb_t));
  const int ptr_t = k.checked(btf__add_typedef(k.raw(), "kiocb_ptr_t", ptr));
  k.add_tracepoint("file_get", {ptr_t, t.int_});
  const auto s = probe(k);
  EXPECT_TRUE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)");
  EXPECT_EQ(s.programs, kPrograms618);
}

TEST(ProbeKernel, KernelWithoutFileGetLosesOnlyFileGet) {
  const auto s = probe(kernel_6_18({"file_get"}));
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "no io_uring_file_get tracepoint: --trace cannot show which io-wq worker issued a "
            "punted request");
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_fork", "usc_ring_exit", "usc_aux_req", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, FileGetTypedefToNonPointer) {
  auto k = kernel_6_18({"file_get"});
  k.bogus_tracepoint("file_get", k.types().int_);
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "btf_trace_io_uring_file_get is not a pointer to a function prototype: unrecognised "
            "prototype; --trace cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
}

TEST(ProbeKernel, KernelWithoutSchedProcessForkLosesOnlyFork) {
  const auto full = probe(kernel_6_18());
  const auto s = probe(kernel_6_18({"sched_process_fork"}));
  EXPECT_FALSE(feature(s, "fork").enabled);
  EXPECT_EQ(feature(s, "fork").detail,
            kForkAbsent);
  EXPECT_EQ(feature_flags(s), all_on_but({"fork"}));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_file_get", "usc_ring_exit", "usc_aux_req", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"}));
  // Everything else exactly as on the complete kernel.
  expect_as_full_except(s, full, "fork");
}

TEST(ProbeKernel, SchedProcessForkWithNonTaskStructArgsIsOff) {
  using T = KernelBtf::Types;
  struct Case {
    const char* what;
    int T::*parent;
    int T::*child;
  };
  for (const Case& c : {Case{"void *, void *", &T::void_ptr, &T::void_ptr},
                        Case{"task_struct *, void *", &T::task, &T::void_ptr},
                        Case{"void *, task_struct *", &T::void_ptr, &T::task},
                        Case{"io_ring_ctx *, io_ring_ctx *", &T::ctx, &T::ctx},
                        Case{"task_struct *, int", &T::task, &T::int_}}) {
    SCOPED_TRACE(c.what);
    auto k = kernel_6_18({"sched_process_fork"});
    const auto& t = k.types();
    k.add_sched_process_fork({t.*c.parent, t.*c.child});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "fork").enabled);
    EXPECT_EQ(feature(s, "fork").detail, kForkOff);
    EXPECT_EQ(feature_flags(s), all_on_but({"fork"}));
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
  }
}

TEST(ProbeKernel, SchedProcessForkWithOtherArgCountsIsOff) {
  for (int args : {1, 3}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"sched_process_fork"});
    const auto& t = k.types();
    if (args == 1)
      k.add_sched_process_fork({t.task});
    else
      k.add_sched_process_fork({t.task, t.task, t.task});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "fork").enabled);
    EXPECT_EQ(feature(s, "fork").detail, kForkOff);
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
  }
}

TEST(ProbeKernel, SchedProcessForkIsNotAnIoUringTracepoint) {
  auto k = kernel_6_18({"sched_process_fork"});
  const auto& t = k.types();
  k.add_tracepoint("sched_process_fork", {t.task, t.task});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "fork").enabled);
  EXPECT_EQ(feature(s, "fork").detail, kForkAbsent);
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
}

TEST(ProbeKernel, SchedProcessForkTypedefToNonPointer) {
  auto k = kernel_6_18({"sched_process_fork"});
  k.checked(btf__add_typedef(k.raw(), "btf_trace_sched_process_fork", k.types().task));
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "fork").enabled);
  EXPECT_EQ(feature(s, "fork").detail, kForkNotProto);
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
}

TEST(ProbeKernel, FileGetAndForkDoNotDecideTheTier) {
  // Both off on a 6.18 kernel: still Full, and the 14 older features unchanged.
  const auto s = probe(kernel_6_18({"file_get", "sched_process_fork"}));
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get", "fork"}));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_ring_exit", "usc_aux_req", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"}));
}

// --- odd BTF ----------------------------------------------------------------------------

TEST(ProbeKernel, TracepointTypedefToNonPointer) {
  KernelBtf k({"complete"});
  add_618_tracepoints(k);
  k.bogus_tracepoint("complete", k.types().int_);
  const auto s = probe(k);
  EXPECT_EQ(s.complete, CompleteShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "complete").detail, "unrecognised prototype"));
}

TEST(ProbeKernel, TracepointTypedefToDataPointer) {
  KernelBtf k({"submit_req"});
  add_618_tracepoints(k);
  k.bogus_tracepoint("submit_req", k.types().req);
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
  EXPECT_TRUE(contains(feature(s, "submit").detail, "btf_trace_io_uring_submit_req"));
}

TEST(ProbeKernel, PrototypeWithoutAnyParameter) {
  KernelBtf k({"queue_async_work"});
  add_618_tracepoints(k);
  const int proto = k.checked(btf__add_func_proto(k.raw(), 0));
  k.bogus_tracepoint("queue_async_work", k.checked(btf__add_ptr(k.raw(), proto)));
  const auto s = probe(k);
  EXPECT_EQ(s.punt, PuntShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Legacy);
}

TEST(ProbeKernel, EmptyBtfIsUnsupported) {
  const KernelBtf k;
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::None);
  EXPECT_EQ(s.complete, CompleteShape::None);
  EXPECT_EQ(s.punt, PuntShape::None);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_EQ(feature_flags(s), (Flags{false, false, false, false, false, false, true,  //
                                     false, false, false, false, false, false, false,  //
                                     false, false, false, false, true, true, true, false}));
  EXPECT_EQ(s.programs, (Strings{"usc_enter", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit", "usc_ck_register"}));
  EXPECT_EQ(s.req_bits, bits(-1, -1, -1));
  EXPECT_EQ(feature(s, "poll_arm").detail,
            "no io_uring_poll_arm tracepoint: poll-arm retries (POLL-RETRY) are not counted");
  EXPECT_TRUE(contains(feature(s, "task_add").detail, "no io_uring_task_add tracepoint"));
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "(added in 6.1 with DEFER_TASKRUN)"));
  EXPECT_TRUE(contains(feature(s, "short_write").detail, "(added in 6.0)"));
  EXPECT_EQ(feature(s, "io_threads").detail,
            "no sched_switch tracepoint: SQPOLL sleeps and io-wq workers are not seen (no SQPOLL "
            "or WORKERS finding)");
  EXPECT_EQ(feature(s, "file_get").detail,
            "no io_uring_file_get tracepoint: --trace cannot show which io-wq worker issued a "
            "punted request");
  EXPECT_EQ(feature(s, "fork").detail,
            kForkAbsent);
}

TEST(ProbeKernel, NullBtf) {
  const auto s = probe_kernel(nullptr, env_with_syscalls(true));
  EXPECT_EQ(s.submit, SubmitShape::None);
  EXPECT_EQ(s.complete, CompleteShape::None);
  EXPECT_EQ(s.punt, PuntShape::None);
  EXPECT_FALSE(s.create || s.overflow || s.fd_walk || s.enter);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(s.programs.empty());
  EXPECT_EQ(s.req_bits, bits(-1, -1, -1));
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  for (const auto& f : s.features) {
    EXPECT_FALSE(f.enabled) << f.name;
    EXPECT_TRUE(contains(f.detail, "no kernel BTF")) << f.name;
  }
  EXPECT_EQ(feature(s, "file_get").detail,
            "no kernel BTF (/sys/kernel/btf/vmlinux): --trace cannot show which io-wq worker "
            "issued a punted request");
  EXPECT_EQ(feature(s, "fork").detail,
            "no kernel BTF (/sys/kernel/btf/vmlinux): -f cannot follow forked children");
}

}  // namespace
}  // namespace uringscope
