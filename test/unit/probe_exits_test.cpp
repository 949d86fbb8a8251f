// SPDX-License-Identifier: MIT
// ring_exit: where destroyed rings give their rows back (bpf/retire.bpf.c); the exit
// programs that forget exited threads.
#include <gtest/gtest.h>

#include <algorithm>

#include "probe_btf.h"

namespace uringscope {
namespace {

using namespace probe_fixture;

constexpr std::string_view kLoss =
    "rows of destroyed rings are not reused: a run that sees more rings than the table holds "
    "counts the rest in the catch-all ring, and the CQEs a destroyed ring's program never "
    "reaped are not counted";

TEST(ProbeRingExit, KallsymsAddressMakesTheProgramCompareFunctions) {
  ProbeEnvironment env = env_with_syscalls();
  env.ring_exit_work = 0xffffffff8122a020ull;
  const KernelSupport s = probe_kernel(kernel_6_18().get(), env);
  EXPECT_TRUE(feature(s, "ring_exit").enabled);
  EXPECT_EQ(feature(s, "ring_exit").detail, "workqueue_execute_end of io_ring_exit_work");
  EXPECT_EQ(s.ring_exit_work, 0xffffffff8122a020ull);
  EXPECT_EQ(s.programs, kPrograms618);
}

TEST(ProbeRingExit, WithoutKallsymsEveryWorkItemIsLookedUp) {
  const KernelSupport s = probe(kernel_6_18());
  EXPECT_TRUE(feature(s, "ring_exit").enabled);
  EXPECT_TRUE(contains(feature(s, "ring_exit").detail, "every work item looked up"));
  EXPECT_EQ(s.ring_exit_work, 0u);
}

TEST(ProbeRingExit, EveryKernelOfTheMatrixHasIt) {
  for (const KernelBtf& k : {kernel_6_12(), kernel_6_1(), kernel_5_19(), kernel_5_18(), kernel_5_15()})
    EXPECT_TRUE(feature(probe(k), "ring_exit").enabled);
}

TEST(ProbeRingExit, KernelWithoutTheTracepointLosesOnlyRowReuse) {
  const auto full = probe(kernel_6_18());
  ProbeEnvironment env = env_with_syscalls();
  env.ring_exit_work = 0xffffffff8122a020ull;
  const KernelSupport s = probe_kernel(kernel_6_18({"workqueue_execute_end"}).get(), env);
  EXPECT_FALSE(feature(s, "ring_exit").enabled);
  EXPECT_EQ(feature(s, "ring_exit").detail,
            "no workqueue_execute_end tracepoint: " + std::string(kLoss));
  EXPECT_EQ(s.ring_exit_work, 0u);  // nothing to compare against without the program
  EXPECT_EQ(feature_flags(s), all_on_but({"ring_exit"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_ring_exit"}));
  expect_as_full_except(s, full, "ring_exit");
}

TEST(ProbeRingExit, OtherShapesOfTheTracepointAreOff) {
  KernelBtf one_arg({"workqueue_execute_end"});
  add_618_tracepoints(one_arg);
  one_arg.add_workqueue_execute_end({one_arg.types().work_struct});  // the 5.7 shape: (work)
  EXPECT_FALSE(feature(probe(one_arg), "ring_exit").enabled);
  EXPECT_TRUE(contains(feature(probe(one_arg), "ring_exit").detail, "unrecognised prototype"));

  KernelBtf other_struct({"workqueue_execute_end"});
  add_618_tracepoints(other_struct);
  other_struct.add_workqueue_execute_end({other_struct.types().task, other_struct.types().work_func});
  EXPECT_FALSE(feature(probe(other_struct), "ring_exit").enabled);
}

// sched_process_exit adds the programs that forget exited threads (io threads; -f's
// followed processes) to the features that own them.
TEST(ProbeThreadExit, SchedProcessExitAddsTheExitPrograms) {
  KernelBtf k = kernel_6_18();
  k.add_sched_process_exit({k.types().task, k.types().bool_});
  const KernelSupport s = probe(k);
  Strings want = kPrograms618;
  want.insert(std::find(want.begin(), want.end(), "usc_sched") + 1, "usc_thread_exit");
  want.insert(std::find(want.begin(), want.end(), "usc_fork") + 1, "usc_fork_exit");
  EXPECT_EQ(s.programs, want);
  EXPECT_EQ(feature_flags(s), all_on_but({}));
}

TEST(ProbeThreadExit, WithoutSchedSwitchThereIsNoThreadToForget) {
  KernelBtf k = kernel_6_18({"sched_switch"});
  k.add_sched_process_exit({k.types().task, k.types().bool_});
  const KernelSupport s = probe(k);
  EXPECT_EQ(std::count(s.programs.begin(), s.programs.end(), "usc_thread_exit"), 0);
}

}  // namespace
}  // namespace uringscope
