// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "os/ring_fds.h"

namespace uringscope {
namespace {

// As /proc/PID/fdinfo/3 reads on 6.18 for a ring of 64 SQ / 128 CQ entries.
constexpr std::string_view kFdinfo =
    "pos:\t0\nflags:\t02000002\nmnt_id:\t17\nino:\t33809\nSqMask:\t0x3f\nSqHead:\t10\n"
    "SqTail:\t10\nCachedSqHead:\t10\nCqMask:\t0x7f\nCqHead:\t10\nCqTail:\t10\n"
    "SQEs:\t0\nCQEs:\t0\nSqThread:\t-1\n";

RingFdQuery ring(uint32_t pid, int fd, uint32_t sq, uint32_t cq) { return {pid, fd, sq, cq}; }

TEST(RingFds, ParsesIoUringFdinfo) {
  auto info = parse_ring_fdinfo(3, kFdinfo);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->fd, 3);
  EXPECT_EQ(info->sq_entries, 64u);
  EXPECT_EQ(info->cq_entries, 128u);
}

TEST(RingFds, OtherFilesAreNotRings) {
  EXPECT_FALSE(parse_ring_fdinfo(1, "pos:\t0\nflags:\t02\nmnt_id:\t25\nino:\t7\n").has_value());
  // A key that only appears inside another key's name does not count.
  EXPECT_FALSE(parse_ring_fdinfo(1, "XSqMask:\t0x3f\nXCqMask:\t0x7f\n").has_value());
}

TEST(RingFds, UniqueMatchBySizeIsAssigned) {
  EXPECT_EQ(assign_ring_fds({ring(10, -1, 64, 128), ring(10, 4, 8, 16)},
                            {{10, {{3, 64, 128}, {4, 8, 16}, {5, 256, 512}}}}),
            (std::vector<int>{3, 4}));
}

TEST(RingFds, AmbiguousMatchStaysUnknown) {
  // Thread-per-core runtimes open several identical rings: sizes cannot tell them apart.
  EXPECT_EQ(assign_ring_fds({ring(10, -1, 64, 128)}, {{10, {{3, 64, 128}, {6, 64, 128}}}}),
            (std::vector<int>{-1}));
}

TEST(RingFds, FdsHeldByOtherRingsAreNotReused) {
  EXPECT_EQ(assign_ring_fds({ring(10, 3, 64, 128), ring(10, -1, 64, 128)},
                            {{10, {{3, 64, 128}, {6, 64, 128}}}}),
            (std::vector<int>{3, 6}));
}

TEST(RingFds, OtherProcessesFilesAreIgnored) {
  EXPECT_EQ(assign_ring_fds({ring(10, -1, 64, 128)}, {{11, {{3, 64, 128}}}}),
            (std::vector<int>{-1}));
}

TEST(RingFds, AFdFoundForAnEarlierRingIsHeld) {
  // Two unknown rings of the same sizes and one file: the first takes it, the second
  // must not get the same fd.
  EXPECT_EQ(assign_ring_fds({ring(10, -1, 64, 128), ring(10, -1, 64, 128)},
                            {{10, {{3, 64, 128}}}}),
            (std::vector<int>{3, -1}));
}

TEST(RingFds, TheCatchAllRingIsNeverGivenAnFd) {
  EXPECT_EQ(assign_ring_fds({ring(0, -1, 64, 128)}, {{0, {{3, 64, 128}}}}),
            (std::vector<int>{-1}));
}

}  // namespace
}  // namespace uringscope
