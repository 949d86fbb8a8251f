// SPDX-License-Identifier: MIT
// The feature table: the names every output prints, which features a run cannot do
// without, which runs load which programs, and program -> feature without prefixes.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "uringscope/features.h"
#include "uringscope/snapshot.h"

namespace uringscope {
namespace {

TEST(FeatureTable, NamesInPrintOrder) {
  std::vector<std::string> names;
  for (const FeatureSpec& spec : kFeatures) names.emplace_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "submit", "complete", "punt", "create", "overflow", "fd_walk", "enter",
                       "poll_arm", "task_add", "task_work", "local_work", "short_write",
                       "req_failed", "io_threads", "file_get", "fork", "ring_exit", "aux_req",
                       "check_overlap", "check_unmap", "check_bufreg", "catchers"}));
}

TEST(FeatureTable, LookupByIdAndName) {
  for (const FeatureSpec& spec : kFeatures) {
    EXPECT_EQ(feature_spec(spec.id).name, spec.name);
    EXPECT_EQ(feature_by_name(spec.name), spec.id) << spec.name;
  }
  EXPECT_EQ(feature_by_name("poll"), std::nullopt);
  EXPECT_EQ(feature_by_name(""), std::nullopt);
  EXPECT_EQ(feature_by_name("Submit"), std::nullopt);
}

TEST(FeatureTable, OnlyTheSpineIsRequired) {
  std::set<std::string> required;
  for (const FeatureSpec& spec : kFeatures) {
    if (spec.required) required.emplace(spec.name);
  }
  EXPECT_EQ(required, (std::set<std::string>{"submit", "complete"}));
}

TEST(FeatureTable, OnlyFileGetForkAndCheckWaitForTheirOption) {
  const std::set<FeatureId> check = {FeatureId::CheckOverlap, FeatureId::CheckUnmap,
                                     FeatureId::CheckBufreg};
  for (const FeatureSpec& spec : kFeatures) {
    const FeatureNeed expected = spec.id == FeatureId::FileGet ? FeatureNeed::Trace
                                 : spec.id == FeatureId::Fork  ? FeatureNeed::Follow
                                 : check.count(spec.id)        ? FeatureNeed::Check
                                                               : FeatureNeed::EveryRun;
    EXPECT_EQ(spec.need, expected) << spec.name;
  }
}

// check_overlap and catchers are the exceptions: the overlap records come from the
// submit and complete programs, and the guard picks those programs' twins.
TEST(FeatureTable, EveryFeatureSaysWhatIsLostAndHasAProgram) {
  for (const FeatureSpec& spec : kFeatures) {
    EXPECT_FALSE(spec.loss.empty()) << spec.name;
    EXPECT_EQ(spec.programs[0].empty(),
              spec.id == FeatureId::CheckOverlap || spec.id == FeatureId::Catchers)
        << spec.name;
  }
}

// Every program of the skeleton, as bpf/*.bpf.c names them.
TEST(FeatureTable, EachProgramServesExactlyOneFeature) {
  const std::vector<std::pair<std::string, FeatureId>> programs = {
      {"usc_sub_req", FeatureId::Submit},       {"usc_sub_sqe", FeatureId::Submit},
      {"usc_sub_sqe_ctx", FeatureId::Submit},   {"usc_cqe", FeatureId::Complete},
      {"usc_cqe_req", FeatureId::Complete},     {"usc_cqe_ud", FeatureId::Complete},
      {"usc_cqe_ovf", FeatureId::Overflow},     {"usc_punt", FeatureId::Punt},
      {"usc_punt_ctx_req", FeatureId::Punt},        {"usc_punt_ctx_rw", FeatureId::Punt},
      {"usc_create", FeatureId::Create},        {"usc_ring_fds", FeatureId::FdWalk},
      {"usc_enter", FeatureId::Enter},          {"usc_enter_fentry", FeatureId::Enter},
      {"usc_poll_arm", FeatureId::PollArm},     {"usc_poll_arm_ctx", FeatureId::PollArm},
      {"usc_task_add", FeatureId::TaskAdd},     {"usc_tw_run", FeatureId::TaskWork},
      {"usc_local_tw", FeatureId::LocalWork},   {"usc_short_write", FeatureId::ShortWrite},
      {"usc_req_failed", FeatureId::ReqFailed}, {"usc_sched", FeatureId::IoThreads},
      {"usc_thread_exit", FeatureId::IoThreads},
      {"usc_file_get", FeatureId::FileGet},     {"usc_fork", FeatureId::Fork},
      {"usc_fork_exit", FeatureId::Fork},       {"usc_ring_exit", FeatureId::RingExit},
      {"usc_ring_teardown", FeatureId::RingExit}, {"usc_aux_req", FeatureId::AuxReq},
      {"usc_ck_munmap", FeatureId::CheckUnmap}, {"usc_ck_madvise", FeatureId::CheckUnmap},
      {"usc_ck_mremap", FeatureId::CheckUnmap}, {"usc_ck_mremap_exit", FeatureId::CheckUnmap},
      {"usc_ck_register", FeatureId::CheckBufreg},
  };
  std::size_t listed = 0;
  for (const FeatureSpec& spec : kFeatures) {
    for (std::string_view p : spec.programs) listed += !p.empty();
  }
  EXPECT_EQ(listed, programs.size());
  for (const auto& [program, feature] : programs) {
    EXPECT_EQ(feature_of_program(program), feature) << program;
  }
}

TEST(FeatureTable, NoPrefixMatching) {
  EXPECT_EQ(feature_of_program("usc_sub"), std::nullopt);
  EXPECT_EQ(feature_of_program("usc_cqe_new"), std::nullopt);
  EXPECT_EQ(feature_of_program("usc_punt_60"), std::nullopt);
  EXPECT_EQ(feature_of_program(""), std::nullopt);
  EXPECT_EQ(feature_of_program("submit"), std::nullopt);
}

TEST(FeatureOn, ReadsTheRowByTheTableName) {
  const std::vector<FeatureState> features = {{"local_work", true, "x"}, {"punt", false, "y"}};
  EXPECT_TRUE(feature_on(features, FeatureId::LocalWork));
  EXPECT_FALSE(feature_on(features, FeatureId::Punt));
  EXPECT_FALSE(feature_on(features, FeatureId::Punt, IfAbsent::On));
}

TEST(FeatureOn, AMissingRowIsWhatTheCallerSays) {
  const std::vector<FeatureState> features = {{"poll", true, "not a feature name"}};
  EXPECT_FALSE(feature_on(features, FeatureId::Submit));
  EXPECT_FALSE(feature_on(features, FeatureId::PollArm));
  EXPECT_TRUE(feature_on(features, FeatureId::Submit, IfAbsent::On));
  EXPECT_TRUE(feature_on({}, FeatureId::LocalWork, IfAbsent::On));
}

TEST(TierName, UnsetPrintsNothing) {
  EXPECT_EQ(tier_name(std::optional<Tier>()), "");
  EXPECT_EQ(tier_name(std::optional<Tier>(Tier::Legacy)), "legacy");
}

}  // namespace
}  // namespace uringscope
