// SPDX-License-Identifier: MIT
// The --trace reorder queue against a plain model: whatever order records arrive in
// (per-CPU batches interleaved, records alone, ties), it releases exactly the held record
// with the least (timestamp, arrival) whenever the model says one is due, and holds at
// most its bound.
#include "trace/reorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace uringscope {
namespace {

constexpr std::size_t kBound = ReorderQueue::kMaxHeld;

us_trace_event record(uint64_t ts, uint64_t arrival) {
  us_trace_event e{};
  e.ts = ts;
  e.user_data = arrival;  // which record came out
  return e;
}

class Model {
 public:
  void push(uint64_t ts, uint64_t arrival) { held_.insert({ts, arrival}); }
  bool due(uint64_t release_before) const {
    return !held_.empty() && (held_.begin()->first < release_before || held_.size() >= kBound);
  }
  std::pair<uint64_t, uint64_t> pop() {
    auto oldest = *held_.begin();
    held_.erase(held_.begin());
    return oldest;
  }
  std::size_t size() const { return held_.size(); }

 private:
  std::set<std::pair<uint64_t, uint64_t>> held_;
};

// Drains both while the model says a record is due, record by record.
void drain(ReorderQueue& q, Model& m, uint64_t release_before, uint64_t& released) {
  while (m.due(release_before)) {
    ASSERT_TRUE(q.due());
    us_trace_event e = q.pop();
    auto [ts, arrival] = m.pop();
    ASSERT_EQ(e.ts, ts);
    ASSERT_EQ(e.user_data, arrival);
    ++released;
  }
  EXPECT_FALSE(q.due());
  EXPECT_EQ(q.size(), m.size());
}

TEST(TraceReorder, InterleavedBatchesComeOutInTimestampOrder) {
  std::mt19937_64 rng(7);
  ReorderQueue q;
  Model m;
  uint64_t arrival = 0, release = 0, released = 0;
  std::vector<uint64_t> cpu_clock(4, 1000);
  for (int round = 0; round < 20000; ++round) {
    // A batch from one CPU: in order within itself, ties included.
    auto cpu = rng() % cpu_clock.size();
    auto n = 1 + rng() % 32;
    for (uint64_t i = 0; i < n; ++i) {
      cpu_clock[cpu] += rng() % 3;  // 0: a tie with the previous record
      q.push(record(cpu_clock[cpu], arrival));
      m.push(cpu_clock[cpu], arrival);
      ++arrival;
      drain(q, m, release, released);
    }
    if (rng() % 8 == 0) {  // a drain: everything before the slowest CPU's clock is in
      release = *std::min_element(cpu_clock.begin(), cpu_clock.end());
      q.release_before(release);
      drain(q, m, release, released);
    }
  }
  EXPECT_GT(released, arrival / 2);
}

TEST(TraceReorder, ARecordOlderThanItsRunStartsAnotherAndStillComesFirst) {
  ReorderQueue q;
  for (uint64_t ts : {10, 20, 30, 5, 25, 25, 1})
    q.push(record(ts, ts));
  q.release_before(100);
  std::vector<uint64_t> out;
  while (q.due()) out.push_back(q.pop().ts);
  EXPECT_EQ(out, (std::vector<uint64_t>{1, 5, 10, 20, 25, 25, 30}));
  EXPECT_TRUE(q.empty());
}

TEST(TraceReorder, TheBoundForcesTheOldestOutWithoutARelease) {
  ReorderQueue q;
  Model m;
  uint64_t released = 0;
  // Descending timestamps: every record a run of its own, the worst case for the merge.
  for (uint64_t i = 0; i < 3 * kBound; ++i) {
    const uint64_t ts = 10 * kBound * 3 - i;
    q.push(record(ts, i));
    m.push(ts, i);
    drain(q, m, 0, released);
    ASSERT_LT(q.size(), kBound);
  }
  EXPECT_EQ(released, 3 * kBound - (kBound - 1));
}

}  // namespace
}  // namespace uringscope
