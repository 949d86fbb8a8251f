// SPDX-License-Identifier: MIT
// Batches from the BPF side's per-CPU trace stages become records again, whole ones only.
#include "loader/trace_batch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace uringscope {
namespace {

// A batch as bpf_ringbuf_output() cuts it: the header and `count` events.
std::vector<unsigned char> batch_bytes(uint32_t count, uint32_t events_present) {
  us_trace_batch b{};
  b.count = count;
  b.first_ts = 100;
  for (uint32_t i = 0; i < US_TRACE_BATCH; ++i) {
    b.ev[i].ts = 100 + i;
    b.ev[i].user_data = 0xA0 + i;
  }
  const std::size_t size = offsetof(us_trace_batch, ev) + events_present * sizeof(us_trace_event);
  std::vector<unsigned char> bytes(size);
  std::memcpy(bytes.data(), &b, size);
  return bytes;
}

std::vector<us_trace_event> decode(const std::vector<unsigned char>& bytes, uint64_t* n) {
  std::vector<us_trace_event> got;
  *n = for_each_trace_event(bytes.data(), bytes.size(),
                            [&](const us_trace_event& e) { got.push_back(e); });
  return got;
}

TEST(TraceBatch, GivesEveryEventInStagedOrder) {
  uint64_t n = 0;
  auto got = decode(batch_bytes(5, 5), &n);
  ASSERT_EQ(n, 5u);
  ASSERT_EQ(got.size(), 5u);
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(got[i].ts, 100u + i);
    EXPECT_EQ(got[i].user_data, 0xA0u + i);
  }
}

TEST(TraceBatch, AFullBatch) {
  uint64_t n = 0;
  EXPECT_EQ(decode(batch_bytes(US_TRACE_BATCH, US_TRACE_BATCH), &n).size(), US_TRACE_BATCH);
  EXPECT_EQ(n, US_TRACE_BATCH);
}

TEST(TraceBatch, ACountPastTheRecordGivesOnlyWholeEvents) {
  uint64_t n = 0;
  auto bytes = batch_bytes(9, 3);
  bytes.resize(bytes.size() + sizeof(us_trace_event) / 2);  // half an event more
  EXPECT_EQ(decode(bytes, &n).size(), 3u);
  EXPECT_EQ(n, 3u);
}

TEST(TraceBatch, ACountPastTheBatchIsCappedAtIt) {
  uint64_t n = 0;
  EXPECT_EQ(decode(batch_bytes(US_TRACE_BATCH + 7, US_TRACE_BATCH), &n).size(), US_TRACE_BATCH);
}

TEST(TraceBatch, ARecordShorterThanTheHeaderGivesNothing) {
  uint64_t n = 1;
  std::vector<unsigned char> bytes(offsetof(us_trace_batch, ev) - 1, 0xff);
  EXPECT_TRUE(decode(bytes, &n).empty());
  EXPECT_EQ(n, 0u);
}

}  // namespace
}  // namespace uringscope
