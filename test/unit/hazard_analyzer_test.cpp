// SPDX-License-Identifier: MIT
// --check's analysis on hand-made record streams, and the findings it leads to.
#include "check/hazard_analyzer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "uringscope/findings.h"

namespace uringscope {
namespace {

constexpr uint64_t kStart = 1'000'000'000;
constexpr uint8_t kRead = 22, kWrite = 23, kReadv = 1, kReadFixed = 4;

us_check_event range(uint64_t req, uint8_t op, uint64_t addr, uint64_t len, uint64_t at,
                     uint16_t index = 0, uint32_t tgid = 7) {
  us_check_event e{};
  e.kind = US_CK_RANGE;
  e.ts = kStart + at;
  e.req = req;
  e.user_data = req & 0xff;
  e.addr = addr;
  e.len = len;
  e.tgid = tgid;
  e.opcode = op;
  e.index = index;
  if (op == kRead || op == kReadv || op == kReadFixed) e.flags |= US_CKF_INTO;
  if (op == kReadFixed) e.flags |= US_CKF_FIXED;
  return e;
}

// A later iovec of a request whose first one was already recorded.
us_check_event more(us_check_event e) {
  e.flags |= US_CKF_MORE;
  return e;
}

us_check_event end(uint64_t req, uint64_t at) {
  us_check_event e{};
  e.kind = US_CK_END;
  e.ts = kStart + at;
  e.req = req;
  return e;
}

us_check_event unmap(uint64_t addr, uint64_t len, uint64_t at, uint32_t tgid = 7) {
  us_check_event e{};
  e.kind = US_CK_UNMAP;
  e.ts = kStart + at;
  e.addr = addr;
  e.len = len;
  e.tgid = tgid;
  e.opcode = US_CK_MUNMAP;
  return e;
}

HazardInfo run(const std::vector<us_check_event>& events) {
  HazardAnalyzer a(kStart);
  for (const us_check_event& e : events) a.add(e);
  return a.result({});
}

TEST(HazardAnalyzer, TwoReadsIntoOverlappingBytesWhileBothInFlight) {
  const HazardInfo h = run({range(0x100, kRead, 0x1000, 4096, 10), range(0x200, kRead, 0x1800, 4096, 15),
                            end(0x100, 20), end(0x200, 25)});
  ASSERT_EQ(h.overlaps, 1u);
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].kind, HazardKind::Overlap);
  EXPECT_EQ(h.records[0].first.user_data, 0x00u);  // 0x100 & 0xff
  EXPECT_EQ(h.records[0].second->addr, 0x1800u);
  EXPECT_EQ(h.records[0].addr, 0x1800u);
  EXPECT_EQ(h.records[0].len, 2048u);
  EXPECT_EQ(h.records[0].at_ns, 15u);
  EXPECT_EQ(h.records[0].first.submit_ns, 10u);
}

// The end record of a request on a file (with --files): the inode's address, number and
// generation.
us_check_event end_on(uint64_t req, uint64_t at, uint64_t inode, uint64_t ino) {
  us_check_event e = end(req, at);
  e.addr = inode;
  e.len = ino;
  e.aux = 3;
  return e;
}

us_file_name pipe_name(uint64_t ino) {
  us_file_name n{};
  n.ino = ino;
  n.mode = 0010600;  // S_IFIFO
  n.flags = US_FN_PSEUDO;
  n.components = 1;
  std::snprintf(n.path, sizeof(n.path), "pipe:[%llu]", static_cast<unsigned long long>(ino));
  return n;
}

TEST(HazardAnalyzer, EachRequestIsNamedByTheFileItsEndCarries) {
  HazardAnalyzer a(kStart);
  for (const us_check_event& e :
       {range(0x100, kRead, 0x1000, 4096, 10), range(0x200, kRead, 0x1800, 4096, 15),
        end_on(0x200, 20, 0xffff0002, 52), end_on(0x100, 25, 0xffff0001, 51)})
    a.add(e);
  const FileNames names = {{{.inode = 0xffff0001, .ino = 51, .gen = 3, .pad = 0}, pipe_name(51)}};
  const HazardInfo h = a.result({}, names);
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].first.file, "pipe:[51]");
  // Its end named a file the name table does not hold: said so, not dropped.
  EXPECT_EQ(h.records[0].second->file, "(unresolved: inode 52)");
  // Without end records carrying a file (no --files), no name.
  EXPECT_EQ(run({range(0x100, kRead, 0x1000, 4096, 10), range(0x200, kRead, 0x1800, 4096, 15),
                 end(0x100, 20), end(0x200, 25)})
                .records[0]
                .first.file,
            "");
}

TEST(HazardAnalyzer, WhatIsNotAHazard) {
  // One after the other: the first ended before the second was submitted.
  EXPECT_EQ(run({range(1, kRead, 0x1000, 4096, 10), end(1, 12), range(2, kRead, 0x1000, 4096, 15)}).overlaps, 0u);
  // Adjacent halves: the boundary is not shared.
  EXPECT_EQ(run({range(1, kRead, 0x1000, 2048, 10), range(2, kRead, 0x1800, 2048, 11)}).overlaps, 0u);
  // Two writes from one buffer only read it.
  EXPECT_EQ(run({range(1, kWrite, 0x1000, 4096, 10), range(2, kWrite, 0x1000, 4096, 11)}).overlaps, 0u);
  // Another process's memory at the same address is other memory.
  EXPECT_EQ(run({range(1, kRead, 0x1000, 4096, 10), range(2, kRead, 0x1000, 4096, 11, 0, 8)}).overlaps, 0u);
  // An end for a request never seen, and an unmap with nothing in flight, are nothing.
  EXPECT_EQ(run({end(9, 1), unmap(0x1000, 4096, 2)}).unmap, 0u);
}

TEST(HazardAnalyzer, AWriteFromBytesAReadIsFillingIsOne) {
  EXPECT_EQ(run({range(1, kRead, 0x1000, 4096, 10), range(2, kWrite, 0x1f00, 512, 11)}).overlaps, 1u);
}

TEST(HazardAnalyzer, EverySecondIovecIsChecked) {
  // READV's second iovec (index 1) lands in the READ's buffer.
  const HazardInfo h = run({range(1, kRead, 0x1000, 4096, 10), range(2, kReadv, 0x9000, 512, 11, 0),
                            more(range(2, kReadv, 0x1400, 1024, 11, 1))});
  ASSERT_EQ(h.overlaps, 1u);
  EXPECT_EQ(h.records[0].second->index, 1u);
  EXPECT_EQ(h.records[0].len, 1024u);
}

TEST(HazardAnalyzer, ALaterIovecKeepsTheEarlierOnesInFlight) {
  // A RECVMSG into two iovecs, then a READ into the first one's bytes: the second record
  // must not have ended the first, whatever its index (a registered buffer's, here 3).
  constexpr uint8_t kRecvmsg = 10;
  us_check_event first = range(2, kRecvmsg, 0x1000, 512, 10, 0);
  us_check_event second = more(range(2, kRecvmsg, 0x9000, 512, 10, 3));
  first.flags |= US_CKF_INTO;
  second.flags |= US_CKF_INTO;
  const HazardInfo h = run({first, second, range(3, kRead, 0x1100, 64, 12)});
  ASSERT_EQ(h.overlaps, 1u);
  EXPECT_EQ(h.records[0].first.addr, 0x1000u);
  EXPECT_EQ(h.ranges, 3u);
}

TEST(HazardAnalyzer, ARecycledRequestAddressEndsTheOldRequest) {
  // Request 1's end record was lost; the kernel recycles its io_kiocb for a new request.
  EXPECT_EQ(run({range(1, kRead, 0x1000, 4096, 10), range(1, kRead, 0x1000, 4096, 20)}).overlaps, 0u);
}

TEST(HazardAnalyzer, UnmapUnderAnInFlightRequest) {
  const HazardInfo h = run({range(1, kRead, 0x7000, 8192, 10), unmap(0x8000, 0x4000, 40), end(1, 50)});
  ASSERT_EQ(h.unmap, 1u);
  EXPECT_EQ(h.records[0].addr, 0x8000u);
  EXPECT_EQ(h.records[0].len, 4096u);  // only the part under the request
  EXPECT_EQ(h.records[0].call, "munmap");
  EXPECT_EQ(h.records[0].at_ns, 40u);
}

TEST(HazardAnalyzer, MremapNamesHowTheRangeWentAway) {
  us_check_event moved = unmap(0x7000, 8192, 40);
  moved.opcode = US_CK_MREMAP;
  moved.aux = US_CK_MREMAP_MOVED;
  const HazardInfo h = run({range(1, kWrite, 0x7000, 4096, 10), moved, end(1, 50)});
  ASSERT_EQ(h.unmap, 1u);
  EXPECT_EQ(h.records[0].call, "mremap (moved)");
  EXPECT_EQ(h.records[0].len, 4096u);

  us_check_event shrunk = unmap(0x9000, 4096, 40);
  shrunk.opcode = US_CK_MREMAP;
  shrunk.aux = US_CK_MREMAP_SHRUNK;
  // The kept head [0x7000, 0x9000) is no hazard; only the request's bytes in the tail are.
  const HazardInfo tail = run({range(1, kRead, 0x7000, 0x1000, 10), range(2, kRead, 0x8800, 0x1000, 11),
                               shrunk, end(1, 50), end(2, 50)});
  ASSERT_EQ(tail.unmap, 1u);
  EXPECT_EQ(tail.records[0].call, "mremap (shrunk)");
  EXPECT_EQ(tail.records[0].addr, 0x9000u);
  EXPECT_EQ(tail.records[0].len, 0x800u);
}

TEST(HazardAnalyzer, UnregisteringBuffersUnderAFixedRead) {
  us_check_event unreg{};
  unreg.kind = US_CK_BUFREG;
  unreg.ts = kStart + 30;
  unreg.ring = 3;
  unreg.opcode = 1;  // IORING_UNREGISTER_BUFFERS
  us_check_event fixed = range(1, kReadFixed, 0x5000, 4096, 10, 2);
  fixed.ring = 3;
  us_check_event other_ring = range(2, kReadFixed, 0x9000, 4096, 11, 2);
  other_ring.ring = 4;
  const HazardInfo h = run({fixed, other_ring, unreg});
  ASSERT_EQ(h.bufreg, 1u);
  EXPECT_EQ(h.records[0].first.index, 2u);
  EXPECT_EQ(h.records[0].call, "IORING_UNREGISTER_BUFFERS");
  // An update that replaces other buffers does not touch it.
  us_check_event update = unreg;
  update.opcode = 16;
  update.index = 5;
  update.len = 2;
  EXPECT_EQ(run({fixed, update}).bufreg, 0u);
  update.index = 1;
  EXPECT_EQ(run({fixed, update}).bufreg, 1u);
}

TEST(HazardAnalyzer, EachHazardIsCountedOnce) {
  // Three reads into one buffer: two overlaps (the third overlaps both, counted once).
  const HazardInfo h = run({range(1, kRead, 0x1000, 4096, 1), range(2, kRead, 0x1000, 4096, 2),
                            range(3, kRead, 0x1000, 4096, 3), unmap(0x1000, 4096, 4),
                            unmap(0x1000, 4096, 5)});
  EXPECT_EQ(h.overlaps, 2u);
  EXPECT_EQ(h.unmap, 3u);  // each request once, though unmapped twice
}

// A ring of the report that took row `row` at kStart + `since`.
Ring ring_on_row(uint32_t id, uint32_t row, uint64_t since) {
  Ring ring;
  ring.id = id;
  ring.bpf_row = row;
  ring.first_ns = kStart + since;
  return ring;
}

TEST(HazardAnalyzer, RingsAreNamedByTheRingThatHeldTheRowAtSubmit) {
  HazardAnalyzer a(kStart);
  us_check_event r1 = range(1, kRead, 0x1000, 4096, 100);
  us_check_event r2 = range(2, kRead, 0x1000, 4096, 101);
  r1.ring = r2.ring = 5;
  a.add(r1);
  a.add(r2);
  const Ring later = ring_on_row(2, 5, 500);  // took the row after these requests
  const HazardInfo h = a.result({ring_on_row(0, 5, 1), ring_on_row(1, 5, 50), later});
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_EQ(h.records[0].first.ring, 1u);
  EXPECT_EQ(h.records[0].second->ring, 1u);
}

// Hazards count for the ring of their first request, told apart from the row's other
// rings by the generation its records carry (the low bits of the ring's first_ns).
TEST(HazardAnalyzer, EachRingCountsTheHazardsOfItsOwnRequests) {
  const Ring old_ring = ring_on_row(0, 5, 1), new_ring = ring_on_row(1, 5, 50),
             quiet = ring_on_row(2, 6, 2);
  auto on = [](us_check_event e, const Ring& ring) {
    e.ring = ring.bpf_row;
    e.ring_gen = static_cast<uint32_t>(ring.first_ns);
    return e;
  };
  HazardAnalyzer a(kStart);
  a.add(on(range(1, kRead, 0x1000, 4096, 10), old_ring));
  a.add(on(range(2, kRead, 0x1000, 4096, 11), old_ring));  // overlap, first: 1
  a.add(end(1, 20));
  a.add(end(2, 20));
  a.add(on(range(3, kRead, 0x8000, 4096, 60), new_ring));
  a.add(on(range(4, kRead, 0x8800, 4096, 61), new_ring));  // overlap, first: 3
  a.add(unmap(0x8000, 4096, 62));                          // under 3 and 4
  const HazardInfo h = a.result({old_ring, new_ring, quiet});
  EXPECT_EQ(h.overlaps, 2u);
  EXPECT_EQ(h.unmap, 2u);
  ASSERT_EQ(h.rings.size(), 2u);
  EXPECT_EQ(h.rings[0], (RingHazards{.ring = 0, .overlaps = 1, .bufreg = 0, .unmap = 0}));
  EXPECT_EQ(h.rings[1], (RingHazards{.ring = 1, .overlaps = 1, .bufreg = 0, .unmap = 2}));
}

TEST(HazardRule, OneCritFindingPerKindNamingItsFirstHazard) {
  Snapshot s;
  HazardAnalyzer a(kStart);
  for (const us_check_event& e : {range(1, kRead, 0x1000, 4096, 10), range(2, kRead, 0x1800, 4096, 15),
                                  range(3, kRead, 0x1000, 4096, 16), unmap(0x1000, 64, 20)})
    a.add(e);
  s.hazards = a.result({});
  s.hazards.checked = true;
  std::vector<Finding> found;
  for (Finding& f : evaluate(s))
    if (f.tag.starts_with("HAZARD")) found.push_back(f);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].tag, "HAZARD");
  EXPECT_EQ(found[0].severity, Severity::Crit);
  EXPECT_NE(found[0].message.find("2,048 bytes at 0x1800"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("2 in all"), std::string::npos) << found[0].message;
  EXPECT_EQ(found[1].tag, "HAZARD-UAF");
  EXPECT_NE(found[1].message.find("munmap dropped 64 bytes at 0x1000"), std::string::npos)
      << found[1].message;
}

}  // namespace
}  // namespace uringscope
