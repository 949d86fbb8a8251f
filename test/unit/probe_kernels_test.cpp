// SPDX-License-Identifier: MIT
// The probe on each kernel range it supports, as one table: the shapes, tier, programs,
// feature flags, REQ_F bits and the --version details a kernel of that range must get.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "probe_btf.h"

namespace uringscope {
namespace {

using namespace probe_fixture;

struct Detail {
  std::string_view feature;
  std::string_view text;
};

struct KernelCase {
  const char* name;
  KernelBtf (*build)();
  SubmitShape submit;
  CompleteShape complete;
  PuntShape punt;
  bool create, overflow, fd_walk, enter;
  Tier tier;
  Strings programs;
  Flags flags;
  std::array<int, US_RF__COUNT> req_bits;
  std::vector<Detail> detail_is;   // the whole detail text
  std::vector<Detail> detail_has;  // a part of it
};

// On 5.15-5.19 the 6.0+ events are missing or in an older shape.
const Flags kFlags5x = {true, true, true, true, true, true, true,     //
                        true, false, false, false, false, false, true,  //
                        false, true, true, false, true, true, true, false};
Flags without_overflow(Flags flags) {
  flags[4] = false;
  return flags;
}

constexpr std::string_view kFileGetNoRequestFirst4 =
    "io_uring_file_get has 4 args without a request first: an older shape; --trace "
    "cannot show which io-wq worker issued a punted request";
constexpr std::string_view kForkOn = "sched_process_fork(parent, child) (used by -f)";
constexpr std::string_view kFileGetOn = "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)";

const std::vector<KernelCase> kKernels = {
    {"Linux618", [] { return kernel_6_18(); }, SubmitShape::SubmitReq, CompleteShape::Cqe,
     PuntShape::Req2, true, true, true, true, Tier::Full,
     {"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf", "usc_ring_fds",
      "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run", "usc_local_tw",
      "usc_short_write", "usc_req_failed", "usc_sched", "usc_file_get", "usc_fork", "usc_ring_exit", "usc_aux_req", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"},
     all_on_but({}), bits(4, 6, 30),
     {{"submit", "io_uring_submit_req(req), 6.4+ shape"},
      {"poll_arm", "io_uring_poll_arm(req, mask, events), 6.0+ shape"},
      {"task_add", "io_uring_task_add(req, mask), 6.0+ shape"},
      {"task_work", "io_uring_task_work_run(tctx, count), 6.9+ shape"},
      {"req_failed", "io_uring_req_failed(sqe, req, error), 6.0+ shape"},
      {"file_get", kFileGetOn},
      {"fork", kForkOn}},
     {{"complete", "6.13+"},
      {"punt", "6.0+"},
      {"local_work", "6.1+"},
      {"short_write", "io_uring_short_write(ctx, fpos"},
      {"io_threads", "sched_switch(preempt, prev, next"}}},

    {"Linux612", [] { return kernel_6_12(); }, SubmitShape::SubmitReq, CompleteShape::Req7,
     PuntShape::Req2, true, true, true, true, Tier::Full,
     {"usc_sub_req", "usc_cqe_req", "usc_punt", "usc_create", "usc_cqe_ovf", "usc_ring_fds",
      "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run", "usc_local_tw",
      "usc_short_write", "usc_req_failed", "usc_sched", "usc_file_get", "usc_fork", "usc_ring_exit", "usc_aux_req", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"},
     all_on_but({}), bits(4, 6, 29), {},
     {{"complete", "5.19-6.12"},
      {"task_work", "6.9+"},
      {"file_get", "io_uring_file_get(req, fd), 6.0+ shape"},
      {"fork", "sched_process_fork(parent, child)"}}},

    {"Linux61", [] { return kernel_6_1(); }, SubmitShape::SubmitSqe, CompleteShape::Req7,
     PuntShape::Req2, true, true, true, true, Tier::Full,
     {"usc_sub_sqe", "usc_cqe_req", "usc_punt", "usc_create", "usc_cqe_ovf", "usc_ring_fds",
      "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run", "usc_local_tw",
      "usc_short_write", "usc_req_failed", "usc_sched", "usc_file_get", "usc_fork", "usc_ring_exit", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"},
     all_on_but({"aux_req"}), bits(4, 6, 31),
     // 6.0-6.8 still pass `loops`: the same program, the other shape. 6.0 is where
     // file_get became (req, fd).
     {{"task_work", "io_uring_task_work_run(tctx, count, loops), 6.0-6.8 shape"},
      {"file_get", kFileGetOn},
      {"aux_req",
       "no io_req_post_cqe(struct io_kiocb *, ...) in kernel BTF; CQEs posted without a "
       "request pointer (multishot CQEs) are matched by (ring, user_data) alone: those of "
       "two live requests sharing a user_data are attributed to neither"}},
     {{"submit", "6.0-6.3"}, {"local_work", "local_work_run(ctx, count, loops)"}}},

    {"Linux519", [] { return kernel_5_19(); }, SubmitShape::SubmitSqe518, CompleteShape::Req7,
     PuntShape::Legacy7, true, true, true, true, Tier::Full,
     {"usc_sub_sqe_ctx", "usc_cqe_req", "usc_punt_ctx_req", "usc_create", "usc_cqe_ovf",
      "usc_ring_fds", "usc_enter", "usc_poll_arm_ctx", "usc_sched", "usc_fork", "usc_ring_exit", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"},
     kFlags5x, bits(4, 6, 29),
     {{"poll_arm", "io_uring_poll_arm(ctx, req, ...), 5.15-5.19 shape"},
      {"task_add",
       "io_uring_task_add has 5 args: unrecognised prototype; poll wakeups queued as task "
       "work are not counted (DEFER-TW cannot measure lag)"},
      {"task_work",
       "no io_uring_task_work_run tracepoint (added in 6.0): task-work runs are not counted"},
      {"req_failed",
       "io_uring_req_failed has 4 args: unrecognised prototype; requests rejected before "
       "issue are counted only by their CQE, possibly under the wrong opcode"},
      // (ctx, req, user_data, fd): the request is there, but not first.
      {"file_get", kFileGetNoRequestFirst4},
      {"fork", kForkOn}},
     {{"submit", "5.18-5.19"},
      {"punt", "5.18-5.19"},
      {"local_work", "no io_uring_local_work_run tracepoint"},
      {"short_write", "no io_uring_short_write tracepoint"}}},

    // prev_state (5.18+) is a fourth sched_switch argument the program does not read:
    // io_threads stays on.
    {"Linux518", [] { return kernel_5_18(); }, SubmitShape::SubmitSqe518, CompleteShape::Req5,
     PuntShape::Legacy7, true, false, true, true, Tier::Full,
     {"usc_sub_sqe_ctx", "usc_cqe_req", "usc_punt_ctx_req", "usc_create", "usc_ring_fds",
      "usc_enter", "usc_poll_arm_ctx", "usc_sched", "usc_fork", "usc_ring_exit", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"},
     without_overflow(kFlags5x), bits(4, 6, -1),
     {{"overflow",
       "no io_uring_cqe_overflow tracepoint (added in 5.19): overflowed CQEs are not counted"},
      {"file_get", kFileGetNoRequestFirst4}},
     {{"complete", "5.18 shape"},
      {"poll_arm", "5.15-5.19"},
      {"req_failed", "io_uring_req_failed has 4 args"}}},

    // No request pointer at completion: usable, but not Full.
    {"Linux515", [] { return kernel_5_15(); }, SubmitShape::SubmitSqe515,
     CompleteShape::Legacy4, PuntShape::Legacy5, true, false, true, true, Tier::Legacy,
     {"usc_sub_sqe_ctx", "usc_cqe_ud", "usc_punt_ctx_rw", "usc_create", "usc_ring_fds",
      "usc_enter", "usc_poll_arm_ctx", "usc_sched", "usc_fork", "usc_ring_exit", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit",
                     "usc_ck_register"},
     without_overflow(kFlags5x), bits(4, -1, 23),
     // req_failed came in 5.16: absent, not unrecognised. file_get is (void *ctx, int fd):
     // the 6.0+ count, but a ctx where the request would be.
     {{"req_failed",
       "no io_uring_req_failed tracepoint: requests rejected before issue are counted only "
       "by their CQE, possibly under the wrong opcode"},
      {"file_get",
       "io_uring_file_get has 2 args without a request first: an older shape; --trace "
       "cannot show which io-wq worker issued a punted request"},
      {"fork", kForkOn}},
     // Three-argument sched_switch (no prev_state before 5.18) is read the same way.
     {{"submit", "5.15-5.17"},
      {"complete", "5.15-5.17"},
      {"punt", "5.15-5.17"},
      {"poll_arm", "5.15-5.19"},
      {"task_add", "io_uring_task_add has 4 args"},
      {"task_work", "no io_uring_task_work_run tracepoint"},
      {"io_threads", "sched_switch(preempt, prev, next"}}},
};

void PrintTo(const KernelCase& c, std::ostream* os) { *os << c.name; }

class ProbeKernelRange : public testing::TestWithParam<KernelCase> {};

TEST_P(ProbeKernelRange, ShapesTierAndPrograms) {
  const KernelCase& c = GetParam();
  const auto s = probe(c.build());
  EXPECT_EQ(s.submit, c.submit);
  EXPECT_EQ(s.complete, c.complete);
  EXPECT_EQ(s.punt, c.punt);
  EXPECT_EQ(s.create, c.create);
  EXPECT_EQ(s.overflow, c.overflow);
  EXPECT_EQ(s.fd_walk, c.fd_walk);
  EXPECT_EQ(s.enter, c.enter);
  EXPECT_EQ(s.tier, c.tier);
  EXPECT_EQ(s.programs, c.programs);
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  EXPECT_EQ(feature_flags(s), c.flags);
  EXPECT_EQ(s.req_bits, c.req_bits);
}

TEST_P(ProbeKernelRange, FeatureDetails) {
  const KernelCase& c = GetParam();
  const auto s = probe(c.build());
  for (const Detail& d : c.detail_is) EXPECT_EQ(feature(s, d.feature).detail, d.text) << d.feature;
  for (const Detail& d : c.detail_has) EXPECT_TRUE(contains(feature(s, d.feature).detail, d.text));
}

// The choosers name their programs beside the shapes they read; the table must agree, or
// the loader would switch off the wrong feature when one fails.
TEST_P(ProbeKernelRange, EveryProgramServesTheFeatureThatChoseIt) {
  const auto s = probe(GetParam().build());
  for (const std::string& program : s.programs) {
    const auto id = feature_of_program(program);
    ASSERT_TRUE(id.has_value()) << program;
    EXPECT_TRUE(feature(s, feature_name(*id)).enabled) << program;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ProbeKernelRange, testing::ValuesIn(kKernels),
                         [](const testing::TestParamInfo<KernelCase>& info) {
                           return std::string(info.param.name);
                         });

// The shared lists the other probe tests start from are the 6.18 answer.
TEST(ProbeKernel, SharedListsAreThe618Answer) {
  const auto s = probe(kernel_6_18());
  EXPECT_EQ(s.programs, kPrograms618);
  EXPECT_EQ(feature_names(s),
            (Strings{"submit", "complete", "punt", "create", "overflow", "fd_walk", "enter",
                     "poll_arm", "task_add", "task_work", "local_work", "short_write",
                     "req_failed", "io_threads", "file_get", "fork", "ring_exit", "aux_req",
                     "check_overlap", "check_unmap", "check_bufreg", "catchers"}));
}

}  // namespace
}  // namespace uringscope
