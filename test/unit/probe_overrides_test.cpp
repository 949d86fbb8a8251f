// SPDX-License-Identifier: MIT
// What the user may change in the probe's answer (URINGSCOPE_FORCE_PROGRAMS,
// URINGSCOPE_SKIP_FEATURES), and the checks that refuse a run before anything loads.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "probe/overrides.h"
#include "util/error.h"

namespace uringscope {
namespace {

using Strings = std::vector<std::string>;

// A 6.18-like answer: every feature on, one program each (enter with its fallback).
KernelSupport full_support() {
  KernelSupport s;
  s.tier = Tier::Full;
  for (const FeatureSpec& spec : kFeatures) {
    s.features.push_back({std::string(spec.name), true, "shape"});
    s.programs.emplace_back(spec.programs[0]);
  }
  s.programs.emplace_back("usc_enter");
  return s;
}

const FeatureState& row(const KernelSupport& s, std::string_view name) {
  for (const FeatureState& f : s.features) {
    if (f.name == name) return f;
  }
  static const FeatureState kMissing{"<missing>", false, ""};
  return kMissing;
}

std::string error_of(const auto& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ForcePrograms, ReplacesTheProgramsOfTheSameFeature) {
  KernelSupport s = full_support();
  force_programs(s, {"usc_cqe_ud", "usc_enter"});
  EXPECT_EQ(std::count(s.programs.begin(), s.programs.end(), "usc_cqe"), 0);
  EXPECT_EQ(std::count(s.programs.begin(), s.programs.end(), "usc_enter_fentry"), 0);
  EXPECT_EQ(s.programs.end()[-2], "usc_cqe_ud");
  EXPECT_EQ(s.programs.back(), "usc_enter");
  EXPECT_EQ(s.programs.size(), kFeatures.size());
  // The features' rows are the probe's: only the programs change.
  EXPECT_EQ(s.features, full_support().features);
}

TEST(ForcePrograms, AnUnknownProgramIsAddedForTheLoaderToRefuse) {
  KernelSupport s = full_support();
  force_programs(s, {"usc_nope"});
  EXPECT_EQ(s.programs.size(), full_support().programs.size() + 1);
  EXPECT_EQ(s.programs.back(), "usc_nope");
}

TEST(SkipFeatures, TurnsTheFeatureOffAndDropsAllItsPrograms) {
  KernelSupport s = full_support();
  skip_features(s, {"enter", "io_threads"});
  EXPECT_FALSE(row(s, "enter").enabled);
  EXPECT_EQ(row(s, "enter").detail, "skipped (URINGSCOPE_SKIP_FEATURES)");
  EXPECT_FALSE(row(s, "io_threads").enabled);
  EXPECT_TRUE(row(s, "punt").enabled);
  for (const std::string& p : s.programs) {
    EXPECT_NE(feature_of_program(p), FeatureId::Enter) << p;
    EXPECT_NE(p, "usc_sched");
  }
  EXPECT_EQ(s.programs.size(), full_support().programs.size() - 3);
}

TEST(SkipFeatures, RefusesTheSpineAndUnknownNames) {
  KernelSupport s = full_support();
  EXPECT_EQ(error_of([&] { skip_features(s, {"complete"}); }),
            "URINGSCOPE_SKIP_FEATURES: 'complete' is required and cannot be skipped");
  EXPECT_EQ(error_of([&] { skip_features(s, {"poll"}); }),
            "URINGSCOPE_SKIP_FEATURES: no feature 'poll' (uringscope --version lists them)");
  EXPECT_EQ(error_of([&] { skip_features(s, {"usc_sched"}); }),
            "URINGSCOPE_SKIP_FEATURES: no feature 'usc_sched' (uringscope --version lists them)");
}

TEST(CheckRunnable, UnsupportedIsOneLineNamingTheSpineFeaturesThatAreOff) {
  KernelSupport s = full_support();
  s.tier = Tier::Unsupported;
  s.features[0] = {"submit", false,
                   "no io_uring_submit_req or io_uring_submit_sqe tracepoint: requests are not "
                   "tracked: no submissions, opcodes or latencies"};
  s.features[4] = {"overflow", false, "no io_uring_cqe_overflow tracepoint"};
  // The loss is everything, so only the cause is said; optional features stay out.
  EXPECT_EQ(error_of([&] { check_runnable(s, false); }),
            "this kernel is not supported (tier unsupported): submit: no io_uring_submit_req or "
            "io_uring_submit_sqe tracepoint (uringscope --version shows every feature)");
}

TEST(CheckRunnable, FollowNeedsTheForkTracepoint) {
  KernelSupport s = full_support();
  EXPECT_EQ(error_of([&] { check_runnable(s, true); }), "<no error>");
  s.tier = Tier::Legacy;
  EXPECT_EQ(error_of([&] { check_runnable(s, false); }), "<no error>");
  for (FeatureState& f : s.features)
    if (f.name == "fork") f = {"fork", false, "no sched_process_fork tracepoint"};
  EXPECT_EQ(error_of([&] { check_runnable(s, false); }), "<no error>");
  EXPECT_EQ(error_of([&] { check_runnable(s, true); }),
            "-f needs the sched_process_fork tracepoint, which this kernel lacks");
}

}  // namespace
}  // namespace uringscope
