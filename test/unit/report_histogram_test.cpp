// SPDX-License-Identifier: MIT
// The text report's per-op latency distributions, on the report fixture's READ histogram
// (test/support/report_fixture.cpp): 1,000,000 in [2^13, 2^14) ns, 102,000 in
// [2^20, 2^21), 236 in [2^23, 2^24).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/report.h"
#include "support/fixtures.h"

namespace uringscope {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t stars(const std::string& line) {
  const auto open = line.find('|');
  return std::count(line.begin() + static_cast<long>(open), line.end(), '*');
}

TEST(ReportHistogram, OneRowPerBucketFromTheFirstToTheLastFilledScaledToThePeak) {
  OpStats read;
  read.opcode = 22;
  read.latency = report_test::read_histogram();
  std::ostringstream out;
  render_latency_histograms(out, std::vector<OpStats>{read}, "");
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u + 11u) << out.str();  // title, header, slots 13..23
  EXPECT_EQ(lines[0], "READ (1,102,236 timed)");
  EXPECT_NE(lines[1].find("latency : count"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("8.19us -> 16.4us : 1,000,000"), std::string::npos) << lines[2];
  EXPECT_EQ(stars(lines[2]), 40u);              // the peak fills the bar
  EXPECT_EQ(stars(lines[3]), 0u);               // slot 14: empty, shown to keep the scale
  EXPECT_NE(lines[9].find(": 102,000"), std::string::npos) << lines[9];
  EXPECT_EQ(stars(lines[9]), 5u);               // 102,000 / 1,000,000 x 40 = 4.08, rounded up
  EXPECT_EQ(stars(lines[12]), 1u);              // 236: never less than one star
  for (const std::string& line : std::vector<std::string>(lines.begin() + 2, lines.end()))
    EXPECT_EQ(line.back(), '|') << line;
}

TEST(ReportHistogram, OpsWithFewTimedRequestsHaveNone) {
  OpStats few;
  few.opcode = 22;
  few.latency = report_test::uniform_histogram(kHistogramMinTimed - 1, 5000);
  EXPECT_FALSE(wants_histogram(few));
  std::ostringstream out;
  render_latency_histograms(out, std::vector<OpStats>{few});
  EXPECT_EQ(out.str(), "");
  few.latency = report_test::uniform_histogram(kHistogramMinTimed, 5000);
  EXPECT_TRUE(wants_histogram(few));
}

}  // namespace
}  // namespace uringscope
