// SPDX-License-Identifier: MIT
// REQ_F_*_BIT lookup, the io_uring_enter paths, and kernel_info().
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "probe_btf.h"

namespace uringscope {
namespace {

using namespace probe_fixture;


// --- REQ_F_*_BIT lookup -----------------------------------------------------------------

TEST(ProbeKernel, ReqBitsFromEnum64) {
  KernelBtf k;
  k.anonymous_enum64({{"REQ_F_FORCE_ASYNC_BIT", 4}, {"REQ_F_ISREG_BIT", 33}});
  EXPECT_EQ(probe(k).req_bits, bits(4, -1, 33));
}

TEST(ProbeKernel, ReqBitOutsideA64BitWordIsAbsent) {
  KernelBtf k;
  k.anonymous_enum(
      {{"REQ_F_FORCE_ASYNC_BIT", 4}, {"REQ_F_CQE_SKIP_BIT", 64}, {"REQ_F_ISREG_BIT", -1}});
  EXPECT_EQ(probe(k).req_bits, bits(4, -1, -1));
}

TEST(ProbeKernel, ReqBitsInANamedEnumAreFoundToo) {
  // The scan goes by enumerator name, not by which enum holds it.
  KernelBtf k;
  k.checked(btf__add_enum(k.raw(), "io_uring_op", 4));
  k.checked(btf__add_enum_value(k.raw(), "IORING_OP_NOP", 0));
  k.checked(btf__add_enum(k.raw(), "req_bits", 4));
  k.checked(btf__add_enum_value(k.raw(), "REQ_F_ISREG_BIT", 29));
  EXPECT_EQ(probe(k).req_bits, bits(-1, -1, 29));
}

TEST(ProbeKernel, FirstReqBitEnumeratorWins) {
  // vmlinux is deduplicated, so a second REQ_F_ISREG_BIT would be foreign BTF: keep the
  // answer deterministic rather than letting a later copy override the kernel's.
  KernelBtf k;
  k.anonymous_enum({{"REQ_F_ISREG_BIT", 30}});
  k.anonymous_enum({{"REQ_F_ISREG_BIT", 12}});
  EXPECT_EQ(probe(k).req_bits, bits(-1, -1, 30));
}

// --- environment and rendering ----------------------------------------------------------

TEST(ProbeKernel, EnterPrefersFentryAndKeepsTheTracepointAsFallback) {
  auto k = kernel_6_18();
  k.function("__x64_sys_io_uring_enter", {k.struct_ptr("pt_regs")});
  const auto both = probe(k, true);
  EXPECT_TRUE(both.enter);
  EXPECT_TRUE(feature(both, "enter").enabled);
  EXPECT_TRUE(contains(feature(both, "enter").detail, "fentry on __x64_sys_io_uring_enter, else"))
      << feature(both, "enter").detail;
  // fentry first, the tracepoint loaded as fallback (attached only if fentry fails).
  const auto fentry_at = std::find(both.programs.begin(), both.programs.end(), "usc_enter_fentry");
  const auto tp_at = std::find(both.programs.begin(), both.programs.end(), "usc_enter");
  ASSERT_NE(fentry_at, both.programs.end());
  ASSERT_NE(tp_at, both.programs.end());
  EXPECT_LT(fentry_at, tp_at);

  // No syscall tracepoints (CONFIG_FTRACE_SYSCALLS off): fentry alone still counts.
  const auto fentry_only = probe(k, false);
  EXPECT_TRUE(fentry_only.enter);
  EXPECT_EQ(feature(fentry_only, "enter").detail, "fentry on __x64_sys_io_uring_enter");
  EXPECT_EQ(std::count(fentry_only.programs.begin(), fentry_only.programs.end(), "usc_enter"), 0);
}

TEST(ProbeKernel, EnterFentryRefusedAtTheTrialLoadIsNotOffered) {
  auto k = kernel_6_18();
  k.function("__x64_sys_io_uring_enter", {k.struct_ptr("pt_regs")});
  ProbeEnvironment env = env_with_syscalls(true);
  env.enter_fentry = {FentryTrial::Refused, "Operation not permitted"};
  const auto refused = probe_kernel(k.get(), env);
  EXPECT_TRUE(refused.enter);
  EXPECT_EQ(feature(refused, "enter").detail,
            "syscalls/sys_enter_io_uring_enter tracepoint (fentry refused: Operation not "
            "permitted)");
  EXPECT_EQ(std::count(refused.programs.begin(), refused.programs.end(), "usc_enter_fentry"), 0);
  EXPECT_EQ(std::count(refused.programs.begin(), refused.programs.end(), "usc_enter"), 1);
  // Refused and no syscall tracepoints either: the feature is off, with both reasons.
  env.syscall_tracepoints = false;
  const auto neither = probe_kernel(k.get(), env);
  EXPECT_FALSE(neither.enter);
  EXPECT_TRUE(contains(feature(neither, "enter").detail, "not counted"));
  // Loads (or untried, as for --version without privileges): fentry first, as offered.
  env = env_with_syscalls(true);
  env.enter_fentry = {FentryTrial::Loads, ""};
  EXPECT_TRUE(contains(feature(probe_kernel(k.get(), env), "enter").detail, "fentry on"));
}

TEST(ProbeKernel, EnterFentryNeedsThePtRegsEntryPoint) {
  // No such FUNC (another architecture): the tracepoint alone, as before.
  EXPECT_EQ(feature(probe(kernel_6_18(), true), "enter").detail,
            "syscalls/sys_enter_io_uring_enter tracepoint");
  // A FUNC of that name that does not take the pt_regs pointer the program reads.
  auto k = kernel_6_18();
  const auto& t = k.types();
  k.function("__x64_sys_io_uring_enter", {t.unsigned_, t.u32, t.u32, t.u32});
  const auto s = probe(k, true);
  EXPECT_EQ(feature(s, "enter").detail, "syscalls/sys_enter_io_uring_enter tracepoint");
  EXPECT_EQ(std::count(s.programs.begin(), s.programs.end(), "usc_enter_fentry"), 0);
  auto other_struct = kernel_6_18();
  other_struct.function("__x64_sys_io_uring_enter", {other_struct.struct_ptr("io_kiocb")});
  const auto wrong = probe(other_struct, true);
  EXPECT_EQ(std::count(wrong.programs.begin(), wrong.programs.end(), "usc_enter_fentry"), 0);
}

TEST(ProbeKernel, AuxReqNeedsTheRequestPostingFunctionAndTrampolines) {
  const auto on = probe(kernel_6_18(), true);
  EXPECT_EQ(feature(on, "aux_req").detail, "fentry on io_req_post_cqe");
  EXPECT_EQ(std::count(on.programs.begin(), on.programs.end(), "usc_aux_req"), 1);
  // Decided by BTF, not by version: a 6.1 kernel with the function (a backport) has it.
  auto backport = kernel_6_1();
  backport.function("io_req_post_cqe", {backport.types().req, backport.types().s32, backport.types().u32});
  EXPECT_TRUE(feature(probe(backport, true), "aux_req").enabled);
  // A function of that name without the request first is not one the program can read.
  auto reshaped = kernel_6_1();
  reshaped.function("io_req_post_cqe", {reshaped.types().ctx, reshaped.types().u64});
  const auto off = probe(reshaped, true);
  EXPECT_FALSE(feature(off, "aux_req").enabled);
  EXPECT_TRUE(contains(feature(off, "aux_req").detail,
                       "no io_req_post_cqe(struct io_kiocb *, ...) in kernel BTF; CQEs posted "
                       "without a request pointer"));
  EXPECT_EQ(std::count(off.programs.begin(), off.programs.end(), "usc_aux_req"), 0);
  // Trampolines refused at the trial load: off, saying why, and not loaded.
  ProbeEnvironment env = env_with_syscalls(true);
  env.enter_fentry = {FentryTrial::Refused, "Operation not permitted"};
  const auto refused = probe_kernel(kernel_6_18().get(), env);
  EXPECT_FALSE(feature(refused, "aux_req").enabled);
  EXPECT_TRUE(contains(feature(refused, "aux_req").detail,
                       "fentry refused: Operation not permitted; CQEs posted without"));
  EXPECT_EQ(std::count(refused.programs.begin(), refused.programs.end(), "usc_aux_req"), 0);
}

TEST(ProbeKernel, SyscallTracepointsToggleEnter) {
  const auto k = kernel_6_18();
  const auto with = probe(k, true);
  const auto without = probe(k, false);
  EXPECT_TRUE(with.enter);
  EXPECT_TRUE(feature(with, "enter").enabled);
  EXPECT_EQ(with.programs, kPrograms618);

  EXPECT_FALSE(without.enter);
  EXPECT_FALSE(feature(without, "enter").enabled);
  EXPECT_TRUE(contains(feature(without, "enter").detail, "sys_enter_io_uring_enter"));
  EXPECT_TRUE(contains(feature(without, "enter").detail, "not counted"));
  // --check's syscall detectors go with them.
  EXPECT_EQ(without.programs,
            minus(kPrograms618, {"usc_enter", "usc_ck_munmap", "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit", "usc_ck_register"}));
  EXPECT_EQ(feature_flags(without), all_on_but({"enter", "check_unmap", "check_bufreg"}));
  // enter is not part of the tier decision.
  EXPECT_EQ(without.tier, Tier::Full);
}

TEST(TierName, AllTiers) {
  EXPECT_EQ(tier_name(Tier::Full), "full");
  EXPECT_EQ(tier_name(Tier::Legacy), "legacy");
  EXPECT_EQ(tier_name(Tier::Unsupported), "unsupported");
}

TEST(KernelInfo, CopiesReleaseTierNameAndFeatures) {
  KernelSupport support;
  support.tier = Tier::Legacy;
  support.features = {{"submit", true, "io_uring_submit_sqe(...), 5.15-5.17 shape"},
                      {"overflow", false, "no io_uring_cqe_overflow tracepoint"}};
  const KernelInfo info = kernel_info(support, "5.15.0-91-generic");
  EXPECT_EQ(info.release, "5.15.0-91-generic");
  EXPECT_EQ(tier_name(info.tier), "legacy");
  ASSERT_EQ(info.features.size(), 2u);
  EXPECT_EQ(info.features[0].name, "submit");
  EXPECT_TRUE(info.features[0].enabled);
  EXPECT_EQ(info.features[0].detail, "io_uring_submit_sqe(...), 5.15-5.17 shape");
  EXPECT_EQ(info.features[1].name, "overflow");
  EXPECT_FALSE(info.features[1].enabled);
  EXPECT_EQ(info.features[1].detail, "no io_uring_cqe_overflow tracepoint");
}

TEST(KernelInfo, FullTierFromProbe) {
  const KernelInfo info = kernel_info(probe(kernel_6_18()), "6.18.0");
  EXPECT_EQ(info.release, "6.18.0");
  EXPECT_EQ(tier_name(info.tier), "full");
  ASSERT_EQ(info.features.size(), kFeatureCount);
  EXPECT_EQ(info.features[13].name, "io_threads");
  EXPECT_TRUE(info.features[13].enabled);
  EXPECT_EQ(info.features[14].name, "file_get");
  EXPECT_TRUE(info.features[14].enabled);
  EXPECT_EQ(info.features[15].name, "fork");
  EXPECT_TRUE(info.features[15].enabled);
}


}  // namespace
}  // namespace uringscope
