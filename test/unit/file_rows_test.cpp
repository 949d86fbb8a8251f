// SPDX-License-Identifier: MIT
// Names and rows of the per-file table, from kernel records built by hand the way
// bpf/file_names.bpf.h fills them (components leaf first, each NUL-terminated).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstring>
#include <string>
#include <vector>

#include "snapshot/file_rows.h"

namespace uringscope {
namespace {

us_file_name path_name(std::vector<std::string> leaf_first, uint16_t mode = S_IFREG | 0644) {
  us_file_name n{};
  n.mode = mode;
  n.ino = 42;
  std::size_t at = 0;
  for (const std::string& c : leaf_first) {
    std::memcpy(n.path + at, c.c_str(), c.size() + 1);
    at += c.size() + 1;
    ++n.components;
  }
  return n;
}

TEST(FileNames, PathIsTheComponentsFromTheRoot) {
  us_file_name n = path_name({"data.0", "db", "lib", "var"});
  FileStats f = describe_file(&n, 42);
  EXPECT_EQ(f.name, "/var/lib/db/data.0");
  EXPECT_EQ(f.kind, FileKind::File);
  EXPECT_TRUE(f.resolved);
  EXPECT_EQ(f.ino, 42u);
}

TEST(FileNames, ACutWalkSaysThePathLacksItsTop) {
  us_file_name n = path_name({"leaf", "deep"});
  n.flags = US_FN_CUT;
  EXPECT_EQ(describe_file(&n, 42).name, ".../deep/leaf");
}

TEST(FileNames, NoRecordIsUnresolvedAndSaysWhichInode) {
  FileStats f = describe_file(nullptr, 1234);
  EXPECT_EQ(f.name, "(unresolved: inode 1234)");
  EXPECT_FALSE(f.resolved);
}

TEST(FileNames, PipesAndAnonInodesByKind) {
  us_file_name pipe = path_name({"pipe:[77]"}, S_IFIFO | 0600);
  pipe.flags = US_FN_PSEUDO;
  pipe.ino = 77;
  EXPECT_EQ(describe_file(&pipe, 77).name, "pipe:[77]");
  EXPECT_EQ(describe_file(&pipe, 77).kind, FileKind::Pipe);

  us_file_name fifo = path_name({"fifo", "tmp"}, S_IFIFO | 0600);
  EXPECT_EQ(describe_file(&fifo, 42).name, "/tmp/fifo");  // a named FIFO keeps its path

  us_file_name efd = path_name({"[eventfd]"}, 0600);
  efd.flags = US_FN_PSEUDO;
  efd.magic = 0x09041934;
  EXPECT_EQ(describe_file(&efd, 42).name, "anon_inode:[eventfd]");
  EXPECT_EQ(describe_file(&efd, 42).kind, FileKind::AnonInode);
}

us_file_name socket_name(uint16_t family, uint16_t protocol) {
  us_file_name n = path_name({"TCP"}, S_IFSOCK | 0777);
  n.flags = US_FN_PSEUDO | US_FN_SOCKET;
  n.family = family;
  n.protocol = protocol;
  n.ino = 555;
  return n;
}

TEST(FileNames, InetSocketsByProtocolAndEndpoints) {
  us_file_name n = socket_name(AF_INET, IPPROTO_TCP);
  inet_pton(AF_INET, "127.0.0.1", n.laddr);
  inet_pton(AF_INET, "10.1.2.3", n.raddr);
  n.lport = 5432;
  n.rport = 40122;
  EXPECT_EQ(describe_file(&n, 555).name, "tcp 127.0.0.1:5432 -> 10.1.2.3:40122");
  EXPECT_EQ(describe_file(&n, 555).kind, FileKind::Socket);
  n.rport = 0;  // listening: no peer
  EXPECT_EQ(describe_file(&n, 555).name, "tcp 127.0.0.1:5432");

  us_file_name six = socket_name(AF_INET6, IPPROTO_UDP);
  inet_pton(AF_INET6, "::1", six.laddr);
  inet_pton(AF_INET6, "fe80::2", six.raddr);
  six.lport = 53;
  six.rport = 9999;
  EXPECT_EQ(describe_file(&six, 555).name, "udp6 [::1]:53 -> [fe80::2]:9999");
}

TEST(FileNames, UnixSocketsByInode) {
  us_file_name n = socket_name(AF_UNIX, 0);
  EXPECT_EQ(describe_file(&n, 555).name, "unix socket:[555]");
}

us_filestat counted(uint64_t requests, uint64_t bytes, uint64_t lat_sum) {
  us_filestat s{};
  s.counters[US_FC_REQUESTS] = requests;
  s.counters[US_FC_CQES] = requests;
  s.counters[US_FC_BYTES] = bytes;
  s.counters[US_FC_PUNTED] = requests / 2;
  s.counters[US_FC_LAT_SUM_NS] = lat_sum;
  s.counters[US_FC_LAT_MAX_NS] = lat_sum;
  s.hist[10] = requests;
  return s;
}

TEST(FileRows, RowsOfOneFileAndOpMergeAndTheBusiestComeFirst) {
  us_file_name a = path_name({"a.dat"});
  us_file_name b = path_name({"b.dat"});
  const us_file_id a1{0x1000, 42, 1, 0}, a2{0x2000, 42, 1, 0}, b1{0x3000, 43, 1, 0};
  const FileNames names = {{a1, a}, {a2, a}, {b1, b}};
  const FileRows rows = {
      {{a1, 3, 22}, counted(10, 4096, 100)},  // READ on ring row 3
      {{a2, 3, 22}, counted(6, 1024, 50)},    // the same path in a recycled inode
      {{b1, 3, 22}, counted(1, 10, 1000)},    // fewer requests, more time
      {{b1, 4, 23}, counted(2, 20, 5)},       // another ring row
  };
  auto by_ring = files_by_ring_row(rows, names);
  ASSERT_EQ(by_ring.size(), 2u);
  const auto& ring3 = by_ring.at(3);
  ASSERT_EQ(ring3.size(), 2u);
  EXPECT_EQ(ring3[0].name, "/b.dat");  // 1,000 ns beats 150 ns
  EXPECT_EQ(ring3[1].name, "/a.dat");
  EXPECT_EQ(ring3[1].requests, 16u);
  EXPECT_EQ(ring3[1].bytes, 5120u);
  EXPECT_EQ(ring3[1].punted, 8u);
  EXPECT_EQ(ring3[1].latency.count(), 16u);
  EXPECT_EQ(ring3[1].opcode, 22u);
  EXPECT_DOUBLE_EQ(ring3[1].punt_pct(), 50.0);
  ASSERT_EQ(by_ring.at(4).size(), 1u);
  EXPECT_EQ(by_ring.at(4)[0].opcode, 23u);
}

TEST(FileRows, ARowWithoutANameStaysAndSaysSo) {
  const FileRows rows = {{{{0x1000, 99, 0, 0}, 1, 22}, counted(3, 30, 9)}};
  auto by_ring = files_by_ring_row(rows, {});
  ASSERT_EQ(by_ring.at(1).size(), 1u);
  EXPECT_FALSE(by_ring.at(1)[0].resolved);
  EXPECT_EQ(by_ring.at(1)[0].requests, 3u);
}

}  // namespace
}  // namespace uringscope
