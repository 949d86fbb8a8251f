// SPDX-License-Identifier: MIT
// The floor below the tracepoints: a kernel whose io_uring tracepoints have a shape the
// probe reads, but whose BPF lacks the helpers the spine's programs call, is refused in
// one line before anything loads. Debian's 5.10 is such a kernel: io_uring's 5.15
// tracepoints backported, no bpf_get_current_task_btf (5.11) nor bpf_timer (5.15).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probe/overrides.h"
#include "probe_btf.h"
#include "util/error.h"

namespace uringscope {
namespace {

using namespace probe_fixture;

// enum bpf_func_id as the kernel's BTF has it, with the helpers up to `last` (5.10 ends
// at BPF_FUNC_ima_inode_hash, 157; 5.11 adds get_current_task_btf, 158; 5.15 the timer,
// 169-171).
void add_func_ids(KernelBtf& k, const std::vector<std::string>& names) {
  k.checked(btf__add_enum(k.raw(), "bpf_func_id", 4));
  int value = 150;
  for (const std::string& name : names) k.checked(btf__add_enum_value(k.raw(), name.c_str(), value++));
}

const std::vector<std::string> kHelpers510 = {"BPF_FUNC_unspec", "BPF_FUNC_ima_inode_hash"};
const std::vector<std::string> kHelpers515 = {
    "BPF_FUNC_unspec", "BPF_FUNC_ima_inode_hash", "BPF_FUNC_get_current_task_btf",
    "BPF_FUNC_timer_init", "BPF_FUNC_timer_set_callback", "BPF_FUNC_timer_start"};

// Debian 11's 5.10.223: the 5.15 builder's tracepoints, 5.10's helpers.
KernelBtf kernel_5_10_debian() {
  KernelBtf k = kernel_5_15();
  add_func_ids(k, kHelpers510);
  return k;
}

std::string error_of(const auto& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ProbeFloor, Debian510HasThe515TracepointsButNotTheHelpers) {
  const auto s = probe(kernel_5_10_debian());
  // The shapes are read as on 5.15; only the programs cannot load.
  EXPECT_EQ(s.submit, SubmitShape::SubmitSqe515);
  EXPECT_EQ(s.complete, CompleteShape::Legacy4);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_FALSE(feature(s, "submit").enabled);
  EXPECT_EQ(feature(s, "submit").detail,
            "usc_sub_sqe_ctx calls BPF helpers this kernel lacks: bpf_get_current_task_btf() "
            "(5.11+); requests are not tracked: no submissions, opcodes or latencies");
  EXPECT_FALSE(feature(s, "complete").enabled);
  EXPECT_EQ(feature(s, "complete").detail,
            "usc_cqe_ud calls BPF helpers this kernel lacks: bpf_get_current_task_btf() "
            "(5.11+), bpf_timer_*() (5.15+); completions, errors and latencies are not measured");
  for (const std::string& p : s.programs) {
    EXPECT_NE(p, "usc_sub_sqe_ctx");
    EXPECT_NE(p, "usc_cqe_ud");
  }
  // The rest is what the tracepoints say, as on 5.15.
  EXPECT_TRUE(feature(s, "punt").enabled);
  EXPECT_TRUE(contains(feature(s, "punt").detail, "5.15-5.17"));
}

TEST(ProbeFloor, The515HelpersKeepTheLegacyTier) {
  KernelBtf k = kernel_5_15();
  add_func_ids(k, kHelpers515);
  const auto s = probe(k);
  EXPECT_EQ(s.tier, Tier::Legacy);
  EXPECT_EQ(s.features, probe(kernel_5_15()).features);
  EXPECT_EQ(s.programs, probe(kernel_5_15()).programs);
}

TEST(ProbeFloor, WithoutTheTimerOnlyCompleteIsOffAndTheKernelUnsupported) {
  KernelBtf k = kernel_6_18();
  add_func_ids(k, {"BPF_FUNC_unspec", "BPF_FUNC_get_current_task_btf", "BPF_FUNC_timer_init"});
  const auto s = probe(k);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(feature(s, "submit").enabled);
  EXPECT_EQ(feature(s, "complete").detail,
            "usc_cqe calls BPF helpers this kernel lacks: bpf_timer_*() (5.15+); completions, "
            "errors and latencies are not measured");
}

TEST(ProbeFloor, NoHelperEnumInBtfLeavesTheVerdictToTheVerifier) {
  // Synthetic or stripped BTF without enum bpf_func_id: nothing to judge by.
  EXPECT_EQ(probe(kernel_5_15()).tier, Tier::Legacy);
  EXPECT_EQ(probe(kernel_6_18()).tier, Tier::Full);
}

TEST(ProbeFloor, TheRefusalIsOneLineNamingWhatTheSpineLacks) {
  const auto s = probe(kernel_5_10_debian());
  const std::string refusal = error_of([&] { check_runnable(s, false); });
  EXPECT_EQ(refusal,
            "this kernel is not supported (tier unsupported): submit: usc_sub_sqe_ctx calls BPF "
            "helpers this kernel lacks: bpf_get_current_task_btf() (5.11+); complete: "
            "usc_cqe_ud calls BPF helpers this kernel lacks: bpf_get_current_task_btf() "
            "(5.11+), bpf_timer_*() (5.15+) (uringscope --version shows every feature)");
  EXPECT_EQ(refusal.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace uringscope
