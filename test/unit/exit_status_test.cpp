// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "cli/exit_status.h"

namespace uringscope {
namespace {

Finding finding(const char* tag, Severity severity) {
  Finding f;
  f.tag = tag;
  f.severity = severity;
  return f;
}

TEST(ExitStatus, ParseFailOn) {
  EXPECT_EQ(parse_fail_on("info"), Severity::Info);
  EXPECT_EQ(parse_fail_on("WARN"), Severity::Warn);
  EXPECT_EQ(parse_fail_on("Crit"), Severity::Crit);
  EXPECT_FALSE(parse_fail_on("error").has_value());
  EXPECT_FALSE(parse_fail_on("").has_value());
}

TEST(ExitStatus, CleanRunIsZero) {
  EXPECT_EQ(exit_status(std::nullopt, std::nullopt, {}), 0);
  EXPECT_EQ(exit_status(0, Severity::Info, {}), 0);
}

TEST(ExitStatus, WithoutFailOnFindingsDoNotMatter) {
  EXPECT_EQ(exit_status(0, std::nullopt, {finding("OVERFLOW", Severity::Crit)}), 0);
}

TEST(ExitStatus, ThresholdIsInclusive) {
  const std::vector<Finding> warn = {finding("PUNT", Severity::Warn)};
  EXPECT_EQ(exit_status(0, Severity::Info, warn), 3);
  EXPECT_EQ(exit_status(0, Severity::Warn, warn), 3);
  EXPECT_EQ(exit_status(0, Severity::Crit, warn), 0);
  EXPECT_EQ(exit_status(std::nullopt, Severity::Crit, {finding("OVERFLOW", Severity::Crit)}), 3);
}

TEST(ExitStatus, ToolAndNoDataNeverTrip) {
  const std::vector<Finding> fidelity = {finding("TOOL", Severity::Info),
                                         finding("NODATA", Severity::Info)};
  EXPECT_EQ(exit_status(0, Severity::Info, fidelity), 0);
  // Even if a later version raised their severity.
  EXPECT_EQ(exit_status(0, Severity::Info, {finding("TOOL", Severity::Crit)}), 0);
}

TEST(ExitStatus, CommandStatusComesBeforeFindings) {
  const std::vector<Finding> crit = {finding("OVERFLOW", Severity::Crit)};
  EXPECT_EQ(exit_status(7, Severity::Info, crit), 7);
  EXPECT_EQ(exit_status(130, std::nullopt, {}), 130);  // killed by SIGINT
  EXPECT_EQ(exit_status(7, std::nullopt, {}), 7);
}

}  // namespace
}  // namespace uringscope
