// SPDX-License-Identifier: MIT
// LEAK for a growing set of waiting requests, from LeakInfo::waiting_samples alone.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "cli/waiting_sampler.h"
#include "uringscope/findings.h"

namespace uringscope {
namespace {

constexpr uint64_t kQuarter = 250'000'000;  // the sampling interval

// A snapshot whose only content is a leak picture: `counts` four times a second, and the
// requests waiting at the end recorded as pending READs.
Snapshot waiting(std::initializer_list<uint64_t> counts) {
  Snapshot s;
  s.wall_ns = kQuarter * counts.size();
  s.leak.threshold_ns = 500'000'000;
  uint64_t at = 0;
  for (uint64_t n : counts) {
    s.leak.waiting_samples.push_back({at, n});
    at += kQuarter;
  }
  const uint64_t last = counts.size() ? *(counts.end() - 1) : 0;
  s.leak.pending = last;
  for (uint64_t i = 0; i < last && i < kMaxLeakRecords; ++i) {
    PendingRequest r;
    r.opcode = 22;  // READ
    r.age_ns = 600'000'000;
    r.where = RequestWhere::Poll;
    r.waiting = true;
    s.leak.requests.push_back(r);
  }
  return s;
}

std::vector<Finding> leaks(const Snapshot& s) {
  std::vector<Finding> out;
  for (Finding& f : evaluate(s))
    if (f.tag == "LEAK") out.push_back(f);
  return out;
}

TEST(LeakGrowth, ASetThatKeepsGrowingIsAWarning) {
  // The fault injector's leak-growing attached with -p: one READ every 10 ms for 1 s,
  // each counted once it is older than 0.5 s, then the set holds.
  const auto found = leaks(waiting({0, 0, 12, 37, 62, 87, 100, 100, 100}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Warn);
  EXPECT_NE(found[0].message.find("grew from 0 to 100 over 2s (50.0/s)"), std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].message.find("rising in 5 of 8 sampling intervals"), std::string::npos);
  EXPECT_NE(found[0].message.find("of those recorded: READ 64"), std::string::npos);
}

TEST(LeakGrowth, AShortWindowIsJudgedLikeALongOne) {
  // 2 s, a leak of 10 a second: a rate and shares, no minimum duration.
  EXPECT_EQ(leaks(waiting({0, 3, 5, 8, 10, 13, 15, 18, 20}))[0].severity, Severity::Warn);
}

TEST(LeakGrowth, ASlowLeakInAShortWindowIsAWarning) {
  // leak-growing-slow with -p -d 2: one READ every 133 ms, 12 past the 0.5 s leak age at
  // the end of the window.
  const auto found = leaks(waiting({0, 0, 2, 4, 6, 8, 10, 12}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Warn);
}

TEST(LeakGrowth, ASteadySetOfArmedReceivesStaysInfo) {
  const auto found = leaks(waiting({800, 805, 798, 802, 800, 801, 799, 800}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Info);
}

TEST(LeakGrowth, WhatIsNotSteadyGrowthIsNotOne) {
  // One burst stuck together: a single rise.
  EXPECT_EQ(leaks(waiting({0, 0, 0, 0, 100, 100, 100, 100, 100}))[0].severity, Severity::Info);
  // Grew, but drained back more than a tenth: served slowly.
  EXPECT_EQ(leaks(waiting({0, 20, 40, 60, 30, 50, 70, 90, 100}))[0].severity, Severity::Info);
  // Grew by half of what was already there: not mostly new.
  EXPECT_EQ(leaks(waiting({100, 110, 120, 130, 140, 150}))[0].severity, Severity::Info);
  // Under the floor of 8.
  EXPECT_EQ(leaks(waiting({0, 1, 2, 3, 4, 5, 6, 7}))[0].severity, Severity::Info);
  // Requests that started together cross the leak age together: 8 armed receives of a
  // server left idle (the fault injector's steady-recv), most of the growth in one step.
  EXPECT_EQ(leaks(waiting({0, 0, 0, 0, 0, 2, 8, 8}))[0].severity, Severity::Info);
  // Too few samples for a shape.
  EXPECT_EQ(leaks(waiting({0, 50, 100}))[0].severity, Severity::Info);
}

TEST(LeakGrowth, SuspectedRequestsKeepTheirFindingsAndTheGrowthJoinsThem) {
  Snapshot s = waiting({0, 10, 20, 30, 40, 50});
  s.leak.suspected = 1;
  PendingRequest stuck;
  stuck.opcode = 18;  // OPENAT
  stuck.age_ns = 2'000'000'000;
  stuck.where = RequestWhere::IoWq;
  s.leak.requests.insert(s.leak.requests.begin(), stuck);
  const auto found = leaks(s);
  ASSERT_EQ(found.size(), 3u);  // the parent, the growth, the OPENAT row
  EXPECT_NE(found[0].message.find("without waiting on any event"), std::string::npos);
  EXPECT_NE(found[1].message.find("grew from 0 to 50"), std::string::npos);
  EXPECT_EQ(found[2].opcode, 18u);
}

TEST(WaitingSampler, KeepsAnEvenlySpacedBoundedSeries) {
  WaitingSampler sampler(8);
  for (uint64_t tick = 0; tick < 20; ++tick) sampler.offer(tick, tick * 10);
  sampler.finish(20, 999);
  std::vector<uint64_t> at;
  for (const WaitingSample& s : sampler.samples()) at.push_back(s.at_ns);
  // Full at 7 (one place kept for the end): every other dropped, spacing doubled, twice.
  EXPECT_EQ(at, (std::vector<uint64_t>{0, 4, 8, 12, 16, 20}));
  EXPECT_EQ(sampler.samples().back().requests, 999u);
  EXPECT_LE(sampler.samples().size(), 8u);
}

TEST(WaitingSampler, AShortRunKeepsEverySample) {
  WaitingSampler sampler;
  for (uint64_t tick = 0; tick < 5; ++tick) sampler.offer(tick, tick);
  sampler.finish(5, 5);
  EXPECT_EQ(sampler.samples().size(), 6u);
}

}  // namespace
}  // namespace uringscope
