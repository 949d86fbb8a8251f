// SPDX-License-Identifier: MIT
// The kernel tier for --check (docs/check.md): each hazard the injector creates is found
// exactly once, with the evidence the ground truth names; the clean cases stay silent;
// without --check the hazard counts are zeros that say so.
#include <gtest/gtest.h>

#include <string>

#include "harness.h"

using harness::findings_with_tag;

using harness::num;

namespace {

class Check : public harness::KernelTest {
 protected:
  std::pair<nlohmann::json, harness::GroundTruth> checked(const std::vector<std::string>& args) {
    return run_scenario(args, 0, {}, {"--check"});
  }
};

TEST_F(Check, OverlappingReadsAreAHazard) {
  auto [report, gt] = checked({"hazard-overlap", "3"});
  const auto& hazards = report.at("hazards");
  EXPECT_TRUE(hazards.at("available").get<bool>());
  EXPECT_EQ(num(hazards, "overlap"), gt.value("overlaps"));
  EXPECT_EQ(num(report.at("counters"), "hazard_overlaps"), gt.value("overlaps"));
  for (const auto& h : hazards.at("records")) {
    EXPECT_EQ(h.at("kind"), "overlap");
    EXPECT_EQ(num(h, "len"), gt.value("overlap_len"));
    EXPECT_EQ(h.at("first").at("op"), "READ");
    EXPECT_EQ(h.at("second").at("op"), "READ");
  }
  const auto found = findings_with_tag(report, "HAZARD");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].at("severity"), "CRIT");
  EXPECT_EQ(num(hazards, "unmap") + num(hazards, "bufreg"), 0);
}

TEST_F(Check, TheSecondIovecOfAReadvIsChecked) {
  auto [report, gt] = checked({"hazard-vec-overlap"});
  ASSERT_EQ(num(report.at("hazards"), "overlap"), gt.value("overlaps"));
  const auto& h = report.at("hazards").at("records")[0];
  EXPECT_EQ(num(h.at("second"), "index"), gt.value("iovec"));
  EXPECT_EQ(num(h, "len"), gt.value("overlap_len"));
}

TEST_F(Check, AWriteFromBytesAReadIsFillingIsAHazard) {
  auto [report, gt] = checked({"hazard-write-read", "2"});
  const auto& hazards = report.at("hazards");
  ASSERT_EQ(num(hazards, "overlap"), gt.value("overlaps"));
  for (const auto& h : hazards.at("records")) {
    EXPECT_EQ(h.at("first").at("op"), "READ");
    EXPECT_EQ(h.at("second").at("op"), "WRITE");
    EXPECT_EQ(num(h, "len"), gt.value("overlap_len"));
  }
}

TEST_F(Check, RecvmsgIovecsAreReadFromTheMsghdr) {
  auto [report, gt] = checked({"hazard-recvmsg", "2"});
  const auto& hazards = report.at("hazards");
  ASSERT_EQ(num(hazards, "overlap"), gt.value("overlaps"));
  for (const auto& h : hazards.at("records")) {
    EXPECT_EQ(h.at("first").at("op"), "RECVMSG");
    EXPECT_EQ(h.at("second").at("op"), "RECVMSG");
    EXPECT_EQ(num(h.at("second"), "index"), gt.value("iovec"));
    EXPECT_EQ(num(h, "len"), gt.value("overlap_len"));
  }
}

TEST_F(Check, MemoryUnmappedUnderAReadIsAUseAfterFree) {
  auto [report, gt] = checked({"hazard-unmap"});
  ASSERT_EQ(num(report.at("hazards"), "unmap"), gt.value("unmaps"));
  const auto& h = report.at("hazards").at("records")[0];
  EXPECT_EQ(h.at("call"), "munmap");
  EXPECT_EQ(num(h, "len"), gt.value("len"));
  EXPECT_GT(num(h, "at_ns"), num(h.at("first"), "submit_ns"));
  EXPECT_FALSE(findings_with_tag(report, "HAZARD-UAF").empty());
}

TEST_F(Check, MemoryMovedByMremapUnderAReadIsAUseAfterFree) {
  auto [report, gt] = checked({"hazard-mremap"});
  gt.find("call", "mremap");
  ASSERT_EQ(num(report.at("hazards"), "unmap"), gt.value("unmaps"));
  const auto& h = report.at("hazards").at("records")[0];
  EXPECT_EQ(h.at("call"), "mremap (moved)");
  EXPECT_EQ(num(h, "len"), gt.value("len"));
  EXPECT_FALSE(findings_with_tag(report, "HAZARD-UAF").empty());
}

TEST_F(Check, ReplacingAFixedBufferInUseIsAHazard) {
  auto [report, gt] = checked({"hazard-bufupdate"});
  gt.find("call", "update");
  ASSERT_EQ(num(report.at("hazards"), "bufreg"), gt.value("bufreg"));
  const auto& h = report.at("hazards").at("records")[0];
  EXPECT_EQ(h.at("call"), "IORING_REGISTER_BUFFERS_UPDATE");
  EXPECT_TRUE(h.at("first").at("fixed").get<bool>());
  EXPECT_EQ(num(h.at("first"), "index"), 0);
}

TEST_F(Check, UnregisteringAFixedBufferInUseIsAHazard) {
  auto [report, gt] = checked({"hazard-bufreg"});
  ASSERT_EQ(num(report.at("hazards"), "bufreg"), gt.value("bufreg"));
  const auto& h = report.at("hazards").at("records")[0];
  EXPECT_TRUE(h.at("first").at("fixed").get<bool>());
  EXPECT_EQ(h.at("first").at("op"), "READ_FIXED");
  EXPECT_FALSE(findings_with_tag(report, "HAZARD-BUFREG").empty());
}

TEST_F(Check, CorrectProgramsStaySilent) {
  for (const char* scenario : {"check-clean-reuse", "check-clean-unmap", "check-clean-split"}) {
    auto [report, gt] = checked({scenario});
    const auto& hazards = report.at("hazards");
    EXPECT_TRUE(hazards.at("available").get<bool>()) << scenario;
    EXPECT_EQ(num(hazards, "overlap") + num(hazards, "unmap") + num(hazards, "bufreg"), 0)
        << scenario << ": " << hazards.dump();
    EXPECT_EQ(num(report.at("tool_stats"), "check_drops"), 0) << scenario;
  }
}

TEST_F(Check, WithoutCheckTheCountsAreZerosThatSaySo) {
  auto [report, gt] = run_scenario({"hazard-overlap", "1"});
  EXPECT_FALSE(report.at("hazards").at("available").get<bool>());
  EXPECT_EQ(num(report.at("hazards"), "overlap"), 0);
  EXPECT_EQ(num(report.at("counters"), "hazard_overlaps"), 0);
  EXPECT_TRUE(findings_with_tag(report, "HAZARD").empty());
}

}  // namespace
