// SPDX-License-Identifier: MIT
// Catchers: loaded where the kernel runs tracepoint programs preemptibly (6.19+) or its
// release cannot be read, not before, and what the overrides do to them.
#include <gtest/gtest.h>

#include <string>

#include "probe/overrides.h"
#include "probe_btf.h"
#include "util/error.h"

namespace uringscope {
namespace {

using namespace probe_fixture;

KernelSupport probe_release(const std::string& release) {
  ProbeEnvironment env = env_with_syscalls(true);
  env.kernel_release = release;
  return probe_kernel(kernel_6_18().get(), env);
}

struct CatcherCase {
  const char* release;
  bool on;
  const char* detail_has;
};

TEST(Catchers, DecidedByTheRelease) {
  const CatcherCase cases[] = {
      {"6.18.44-fc-v1272", false, "not needed: this kernel runs tracepoint programs with "
                                  "preemption disabled"},
      {"6.12.117+deb12-amd64", false, "not needed"},
      {"5.15.0", false, "not needed"},
      {"6.19.0", true, "6.19+ runs tracepoint programs preemptibly"},
      {"7.2.13+deb14-amd64", true, "a second copy of each handles the events the kernel skips"},
      {"10.0", true, "6.19+"},
      {"custom", true, "release 'custom' not understood: loaded to be safe"},
      {"7", true, "not understood"},
      {"", true, "not understood"},
  };
  for (const CatcherCase& c : cases) {
    const auto s = probe_release(c.release);
    const FeatureState& row = feature(s, "catchers");
    EXPECT_EQ(row.enabled, c.on) << c.release;
    EXPECT_EQ(s.catchers, c.on) << c.release;
    EXPECT_TRUE(contains(row.detail, c.detail_has)) << c.release << ": " << row.detail;
    // Catchers are added by the loader beside each program: the probe's list is the same.
    EXPECT_EQ(s.programs, kPrograms618) << c.release;
  }
}

TEST(Catchers, ForcedOnAndSkipped) {
  auto s = probe_release("6.18.44");
  ASSERT_FALSE(s.catchers);
  force_features(s, {"catchers"});
  EXPECT_TRUE(s.catchers);
  EXPECT_TRUE(feature(s, "catchers").enabled);
  EXPECT_EQ(feature(s, "catchers").detail, "forced on (URINGSCOPE_FORCE_FEATURES)");

  auto on = probe_release("7.2.13");
  ASSERT_TRUE(on.catchers);
  skip_features(on, {"catchers"});
  EXPECT_FALSE(on.catchers);
  EXPECT_FALSE(feature(on, "catchers").enabled);
  EXPECT_EQ(on.programs, kPrograms618);
}

TEST(Catchers, OnlyCatchersCanBeForcedOn) {
  auto s = probe_release("6.18");
  EXPECT_THROW(force_features(s, {"submit"}), Error);
  EXPECT_THROW(force_features(s, {"no_such_feature"}), Error);
  EXPECT_FALSE(s.catchers);
}

TEST(Catchers, ServeTheirProgramsFeature) {
  EXPECT_EQ(feature_of_program("usc_sub_req_catch"), FeatureId::Submit);
  EXPECT_EQ(feature_of_program("usc_ring_exit_catch"), FeatureId::RingExit);
  EXPECT_EQ(feature_of_program("usc_nothing_catch"), std::nullopt);
  EXPECT_EQ(feature_of_program("_catch"), std::nullopt);
}

}  // namespace
}  // namespace uringscope
