// SPDX-License-Identifier: MIT
// The kernel as a run sees it once loaded: rejected and detached programs turn their
// features off, the enter row says how io_uring_enter is really counted, and a lost punt
// program downgrades the full tier.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "loader/load_outcome.h"

namespace uringscope {

void PrintTo(const KernelInfo& k, std::ostream* os) {
  *os << k.release << " tier=" << tier_name(k.tier);
  for (const FeatureState& f : k.features)
    *os << "\n  " << f.name << (f.enabled ? " on: " : " off: ") << f.detail;
}

namespace {

KernelInfo probed(Tier tier = Tier::Full) {
  KernelInfo k;
  k.release = "6.18.0";
  k.tier = tier;
  k.features = {{"submit", true, "io_uring_submit_req(req), 6.4+ shape"},
                {"punt", true, "io_uring_queue_async_work(req, rw), 6.0+ shape"},
                {"enter", true,
                 "fentry on __x64_sys_io_uring_enter, else the syscalls/sys_enter_io_uring_enter "
                 "tracepoint"},
                {"io_threads", true, "sched_switch(preempt, prev, next[, prev_state])"}};
  return k;
}

TEST(KernelAfterLoad, NothingFailedChangesNothing) {
  EXPECT_EQ(kernel_after_load(probed(), {}), probed());
  // The probe offered "fentry, else the tracepoint" and the fentry attached: the probe's
  // detail names the taken path first and stays.
  EXPECT_EQ(kernel_after_load(probed(), {{}, {}, "fentry on __x64_sys_io_uring_enter"}), probed());
}

TEST(KernelAfterLoad, TheFallbackTakenReplacesTheOffer) {
  const std::string taken =
      "syscalls/sys_enter_io_uring_enter tracepoint (fentry did not attach: No such device)";
  KernelInfo expected = probed();
  expected.features[2].detail = taken;
  EXPECT_EQ(kernel_after_load(probed(), {{}, {}, taken}), expected);
}

TEST(KernelAfterLoad, AProbeDetailThatNamesTheTakenPathStays) {
  KernelInfo in = probed();
  in.features[2].detail =
      "syscalls/sys_enter_io_uring_enter tracepoint (fentry refused: Operation not permitted)";
  EXPECT_EQ(kernel_after_load(in, {{}, {}, "syscalls/sys_enter_io_uring_enter tracepoint"}), in);
}

TEST(KernelAfterLoad, EnterDetailLeavesAnOffEnterAlone) {
  KernelInfo in = probed();
  in.features[2] = {"enter", false, "skipped (URINGSCOPE_SKIP_FEATURES)"};
  EXPECT_EQ(kernel_after_load(in, {{}, {}, "fentry on __x64_sys_io_uring_enter"}), in);
}

TEST(KernelAfterLoad, RejectedAndDetachedProgramsTurnTheirFeatureOff) {
  LoadOutcome outcome;
  outcome.rejections = {{"usc_sched", FeatureId::IoThreads, "rejected by this kernel's verifier: x"}};
  outcome.detached = {{"usc_enter_fentry", FeatureId::Enter, "did not attach: No such device"},
                      {"usc_nope", std::nullopt, "did not attach: y"}};
  const KernelInfo k = kernel_after_load(probed(), outcome);
  KernelInfo expected = probed();
  expected.features[2] = {"enter", false, "usc_enter_fentry: did not attach: No such device"};
  expected.features[3] = {"io_threads", false, "usc_sched: rejected by this kernel's verifier: x"};
  EXPECT_EQ(k, expected);
}

TEST(KernelAfterLoad, LosingPuntDowngradesOnlyTheFullTier) {
  LoadOutcome outcome;
  outcome.detached = {{"usc_punt", FeatureId::Punt, "did not attach: z"}};
  EXPECT_EQ(kernel_after_load(probed(), outcome).tier, Tier::Legacy);
  EXPECT_EQ(kernel_after_load(probed(Tier::Legacy), outcome).tier, Tier::Legacy);
  EXPECT_EQ(kernel_after_load(probed(), {}).tier, Tier::Full);
  KernelInfo untiered = probed();
  untiered.tier.reset();
  EXPECT_EQ(kernel_after_load(untiered, outcome).tier, std::nullopt);
}

}  // namespace
}  // namespace uringscope
