// SPDX-License-Identifier: MIT
// The io_uring_enter fentry per architecture: the probe offers it only on the syscall
// entry of the architecture the BPF object was built for, whose pt_regs it reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "probe_btf.h"

namespace uringscope {
namespace {

using namespace probe_fixture;

constexpr const char* kArm64Entry = "__arm64_sys_io_uring_enter";
constexpr const char* kX86Entry = "__x64_sys_io_uring_enter";

bool loads(const KernelSupport& s, const char* program) {
  return std::count(s.programs.begin(), s.programs.end(), program) == 1;
}

KernelSupport probe_as(const KernelBtf& k, Arch arch, bool syscall_tracepoints) {
  ProbeEnvironment env = env_with_syscalls(syscall_tracepoints);
  env.arch = arch;
  return probe_kernel(k.get(), env);
}

TEST(ProbeArch, TheBuildArchitectureIsTheDefault) {
#if defined(__aarch64__)
  EXPECT_EQ(kBuildArch, Arch::Arm64);
  EXPECT_STREQ(kEnterFentryFunction, kArm64Entry);
#else
  EXPECT_EQ(kBuildArch, Arch::X86_64);
  EXPECT_STREQ(kEnterFentryFunction, kX86Entry);
#endif
  EXPECT_EQ(ProbeEnvironment{}.arch, kBuildArch);
  EXPECT_STREQ(enter_fentry_function(Arch::Arm64), kArm64Entry);
  EXPECT_STREQ(enter_fentry_function(Arch::X86_64), kX86Entry);
}

TEST(ProbeArch, Arm64TakesTheFentryOnItsOwnSyscallEntry) {
  auto k = kernel_6_18();
  k.function(kArm64Entry, {k.struct_ptr("pt_regs")});
  const auto both = probe_as(k, Arch::Arm64, true);
  EXPECT_TRUE(both.enter);
  EXPECT_EQ(feature(both, "enter").detail,
            "fentry on __arm64_sys_io_uring_enter, else the syscalls/sys_enter_io_uring_enter "
            "tracepoint");
  EXPECT_TRUE(loads(both, "usc_enter_fentry"));
  EXPECT_TRUE(loads(both, "usc_enter"));
  const auto fentry_only = probe_as(k, Arch::Arm64, false);
  EXPECT_EQ(feature(fentry_only, "enter").detail, "fentry on __arm64_sys_io_uring_enter");
  EXPECT_TRUE(loads(fentry_only, "usc_enter_fentry"));
  EXPECT_FALSE(loads(fentry_only, "usc_enter"));
}

TEST(ProbeArch, AnotherArchitecturesEntryIsNotTaken) {
  // An x86 object reads di/si/r10, an arm64 one regs[0..3]: the other's entry must not
  // be offered even if a kernel's BTF had it.
  auto arm_kernel = kernel_6_18();
  arm_kernel.function(kArm64Entry, {arm_kernel.struct_ptr("pt_regs")});
  const auto x86_on_arm = probe_as(arm_kernel, Arch::X86_64, true);
  EXPECT_EQ(feature(x86_on_arm, "enter").detail, "syscalls/sys_enter_io_uring_enter tracepoint");
  EXPECT_FALSE(loads(x86_on_arm, "usc_enter_fentry"));

  auto x86_kernel = kernel_6_18();
  x86_kernel.function(kX86Entry, {x86_kernel.struct_ptr("pt_regs")});
  const auto arm_on_x86 = probe_as(x86_kernel, Arch::Arm64, true);
  EXPECT_EQ(feature(arm_on_x86, "enter").detail, "syscalls/sys_enter_io_uring_enter tracepoint");
  EXPECT_FALSE(loads(arm_on_x86, "usc_enter_fentry"));

  // Neither way in: off, and the reason names the entry this build needs.
  const auto neither = probe_as(x86_kernel, Arch::Arm64, false);
  EXPECT_FALSE(neither.enter);
  EXPECT_NE(feature(neither, "enter").detail.find("no __arm64_sys_io_uring_enter for fentry"),
            std::string::npos)
      << feature(neither, "enter").detail;
}

TEST(ProbeArch, Arm64EntryMustTakeThePtRegsPointer) {
  auto k = kernel_6_18();
  const auto& t = k.types();
  k.function(kArm64Entry, {t.unsigned_, t.u32, t.u32, t.u32});
  const auto s = probe_as(k, Arch::Arm64, true);
  EXPECT_EQ(feature(s, "enter").detail, "syscalls/sys_enter_io_uring_enter tracepoint");
  EXPECT_FALSE(loads(s, "usc_enter_fentry"));
}

}  // namespace
}  // namespace uringscope
