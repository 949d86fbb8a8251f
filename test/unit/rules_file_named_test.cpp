// SPDX-License-Identifier: MIT
// LEAK and POLL-RETRY name the files behind them when per-file attribution knew them
// (PendingRequest::file, FileStats::poll_armed); without it they say what they said before.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "support/fixtures.h"
#include "uringscope/findings.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

std::vector<Finding> with_tag(const Snapshot& snap, std::string_view tag) {
  std::vector<Finding> out;
  for (const Finding& f : evaluate(snap))
    if (f.tag == tag) out.push_back(f);
  return out;
}

std::string text_of(const Finding& f, std::string_view key) {
  for (const Evidence& e : f.evidence)
    if (e.key == key) return std::get<std::string>(e.value);
  return "(none)";
}

Snapshot with_rings(std::vector<Ring> rings) {
  Snapshot snap;
  snap.wall_ns = 60 * kSecond;
  snap.rings = std::move(rings);
  aggregate(snap);
  return snap;
}

Ring ring_of(std::vector<OpStats> ops, std::vector<FileStats> files = {}) {
  Ring ring;
  ring.id = 0;
  ring.ops = std::move(ops);
  ring.files = std::move(files);
  return ring;
}

OpStats op_row(uint32_t opcode, uint64_t submitted, uint64_t armed, uint64_t regular) {
  OpStats op;
  op.opcode = opcode;
  op.submitted = op.completed = submitted;
  op.poll_armed = armed;
  op.poll_armed_regular = regular;
  return op;
}

FileStats polled_file(std::string name, FileKind kind, uint32_t opcode, uint64_t armed) {
  FileStats f = file_test::file_row(std::move(name), opcode, 10);
  f.kind = kind;
  f.poll_armed = armed;
  return f;
}

PendingRequest stuck(uint32_t opcode, uint64_t age_s, uint64_t user_data, std::string file,
                     bool waiting = false) {
  return PendingRequest{.ring = 0,
                        .opcode = opcode,
                        .age_ns = age_s * kSecond,
                        .user_data = user_data,
                        .where = waiting ? RequestWhere::Poll : RequestWhere::IoWq,
                        .abandoned = false,
                        .waiting = waiting,
                        .file = std::move(file)};
}

TEST(FileNamedFindings, LeakRowsNameTheFilesTheirRequestsWereOn) {
  Snapshot s = with_rings({ring_of({op_row(op::kRead, 10, 0, 0)})});
  s.leak = LeakInfo{.threshold_ns = kSecond, .suspected = 4, .pending = 0, .oldest_ns = 9 * kSecond,
                    .requests = {stuck(op::kRead, 9, 1, "/srv/fifo"), stuck(op::kRead, 8, 2, "/srv/fifo"),
                                 stuck(op::kRead, 7, 3, "/mnt/nfs/data"), stuck(op::kRead, 6, 4, "")}};
  const auto leak = with_tag(s, "LEAK");
  ASSERT_EQ(leak.size(), 2u);  // the parent, then READ on ring #0
  EXPECT_NE(leak[1].message.find(" On /srv/fifo (2), /mnt/nfs/data (1)."), std::string::npos)
      << leak[1].message;
  EXPECT_EQ(text_of(leak[1], "file"), "/srv/fifo");
}

TEST(FileNamedFindings, OneFileIsNamedAlone) {
  Snapshot s = with_rings({ring_of({op_row(op::kRead, 10, 0, 0)})});
  s.leak = LeakInfo{.threshold_ns = kSecond, .suspected = 1, .pending = 0, .oldest_ns = 9 * kSecond,
                    .requests = {stuck(op::kRead, 9, 1, "pipe:[4711]")}};
  const auto leak = with_tag(s, "LEAK");
  ASSERT_EQ(leak.size(), 2u);
  EXPECT_NE(leak[1].message.find(" On pipe:[4711]."), std::string::npos) << leak[1].message;
}

TEST(FileNamedFindings, WaitingRequestsNameTheirSockets) {
  Snapshot s = with_rings({ring_of({op_row(op::kRecv, 10, 10, 0)})});
  s.leak = LeakInfo{.threshold_ns = kSecond, .suspected = 0, .pending = 2, .oldest_ns = 9 * kSecond,
                    .requests = {stuck(op::kRecv, 9, 1, "tcp 127.0.0.1:5432 -> 127.0.0.1:40122", true),
                                 stuck(op::kRecv, 8, 2, "", true)}};
  const auto leak = with_tag(s, "LEAK");
  ASSERT_EQ(leak.size(), 1u);
  EXPECT_EQ(leak[0].severity, Severity::Info);
  EXPECT_NE(leak[0].message.find(" On tcp 127.0.0.1:5432 -> 127.0.0.1:40122."), std::string::npos)
      << leak[0].message;
}

TEST(FileNamedFindings, LeaksWithoutKnownFilesNameNone) {
  Snapshot s = with_rings({ring_of({op_row(op::kRead, 10, 0, 0)})});
  s.leak = LeakInfo{.threshold_ns = kSecond, .suspected = 1, .pending = 0, .oldest_ns = 9 * kSecond,
                    .requests = {stuck(op::kRead, 9, 1, "")}};
  const auto leak = with_tag(s, "LEAK");
  ASSERT_EQ(leak.size(), 2u);
  EXPECT_EQ(leak[1].message.find(" On "), std::string::npos) << leak[1].message;
  EXPECT_EQ(text_of(leak[1], "file"), "(none)");
}

TEST(FileNamedFindings, PollRetryOnRegularFilesNamesOnlyRegularFiles) {
  // 20 READs armed poll on regular files (a FUSE mount), 30 on a pipe read by the same op.
  Ring ring = ring_of({op_row(op::kRead, 60, 50, 20)},
                      {polled_file("/mnt/fuse/a", FileKind::File, op::kRead, 15),
                       polled_file("/mnt/fuse/b", FileKind::File, op::kRead, 5),
                       polled_file("pipe:[9]", FileKind::Pipe, op::kRead, 30)});
  const auto pr = with_tag(with_rings({ring}), "POLL-RETRY");
  ASSERT_EQ(pr.size(), 1u);
  EXPECT_EQ(pr[0].severity, Severity::Warn);
  EXPECT_NE(pr[0].message.find(" Most on /mnt/fuse/a (15 of 20 waited on poll), /mnt/fuse/b (5)."),
            std::string::npos)
      << pr[0].message;
  EXPECT_EQ(pr[0].message.find("pipe:[9]"), std::string::npos) << pr[0].message;
  EXPECT_EQ(text_of(pr[0], "file"), "/mnt/fuse/a");
}

TEST(FileNamedFindings, PollRetryOnSocketsNamesTheSockets) {
  Ring ring = ring_of({op_row(op::kRecv, 100, 80, 0)},
                      {polled_file("tcp 10.0.0.1:80 -> 10.0.0.2:5000", FileKind::Socket, op::kRecv, 80)});
  const auto pr = with_tag(with_rings({ring}), "POLL-RETRY");
  ASSERT_EQ(pr.size(), 1u);
  EXPECT_EQ(pr[0].severity, Severity::Info);
  EXPECT_NE(pr[0].message.find(" All on tcp 10.0.0.1:80 -> 10.0.0.2:5000."), std::string::npos)
      << pr[0].message;
}

}  // namespace
}  // namespace uringscope
