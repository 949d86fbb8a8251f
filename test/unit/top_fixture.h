// SPDX-License-Identifier: MIT
// Readings for the `uringscope top` tests: two processes, "db" (pid 10, one ring reading
// and writing two files) and "web" (pid 20, one ring receiving and sending on a
// socket), whose cumulative counts grow from reading to reading as the tests say.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "support/fixtures.h"
#include "top/model.h"
#include "top/screen.h"
#include "uringscope/opcodes.h"

namespace uringscope::top_test {

inline constexpr uint64_t kSecond = 1'000'000'000;
inline constexpr uint64_t kDbCtx = 0xffff000000001000;
inline constexpr uint64_t kWebCtx = 0xffff000000002000;

inline OpStats op_with(uint32_t opcode, uint64_t n, uint64_t each_ns, uint64_t bytes = 0,
                       uint64_t punted = 0) {
  OpStats op;
  op.opcode = opcode;
  op.submitted = op.completed = n;
  op.punted = op.punt_reasons.forced = punted;
  op.bytes = bytes;
  op.latency = report_test::uniform_histogram(n, each_ns);
  return op;
}

inline FileStats file_with(std::string name, uint32_t opcode, uint64_t n, uint64_t bytes) {
  FileStats f = file_test::file_row(std::move(name), opcode, n);
  f.bytes = bytes;
  f.latency = report_test::uniform_histogram(n, 2000);
  return f;
}

inline Ring ring_with(uint32_t id, uint64_t ctx, uint32_t pid, std::string comm,
                      std::vector<OpStats> ops, std::vector<FileStats> files = {}) {
  Ring r;
  r.id = id;
  r.ctx = ctx;
  r.pid = pid;
  r.fd = 3;
  r.comm = std::move(comm);
  r.source = RingSource::Create;
  r.sq_entries = 64;
  r.cq_entries = 128;
  for (const OpStats& op : ops) {
    r.counters.submissions += op.submitted;
    r.counters.completions += op.completed;
    r.counters.punted += op.punted;
  }
  // Eight SQEs per submitting enter.
  r.counters.enter_submit_calls = r.counters.enter_calls = r.counters.submissions / 8;
  r.counters.to_submit_sum = r.counters.enter_submit_calls * 8;
  r.ops = std::move(ops);
  r.files = std::move(files);
  return r;
}

// db: `reads` READs of 4 KiB (a.dat gets 3 in 4, b.dat the rest) and `writes` WRITEs
// of 4 KiB to a.dat; web: `recvs` RECVs and as many SENDs of 100 bytes, `punted` of the
// RECVs punted.
inline Snapshot reading(uint64_t wall_ns, uint64_t reads, uint64_t writes, uint64_t recvs,
                        uint64_t punted = 0) {
  Snapshot s;
  s.wall_ns = wall_ns;
  std::vector<OpStats> db_ops, web_ops;
  std::vector<FileStats> db_files;
  if (reads) {
    db_ops.push_back(op_with(op::kRead, reads, 2000, reads * 4096));
    db_files.push_back(file_with("/data/a.dat", op::kRead, reads * 3 / 4, reads * 3 / 4 * 4096));
    db_files.push_back(file_with("/data/b.dat", op::kRead, reads - reads * 3 / 4,
                                 (reads - reads * 3 / 4) * 4096));
  }
  if (writes) {
    db_ops.push_back(op_with(op::kWrite, writes, 8000, writes * 4096));
    db_files.push_back(file_with("/data/a.dat", op::kWrite, writes, writes * 4096));
  }
  if (recvs) {
    web_ops.push_back(op_with(op::kSend, recvs, 1000, recvs * 100));
    web_ops.push_back(op_with(op::kRecv, recvs, 500000, recvs * 100, punted));
  }
  if (!db_ops.empty()) s.rings.push_back(ring_with(0, kDbCtx, 10, "db", db_ops, db_files));
  if (!web_ops.empty()) s.rings.push_back(ring_with(1, kWebCtx, 20, "web", web_ops));
  aggregate(s);
  return s;
}

// The screen's lines as text.
inline std::vector<std::string> screen_text(const top::TopModel& m) {
  std::vector<std::string> out;
  for (const top::ScreenLine& l : top::compose(m)) out.push_back(l.text);
  return out;
}

// The first line holding `needle`, or "" when none does.
inline std::string line_with(const top::TopModel& m, const std::string& needle) {
  for (const std::string& l : screen_text(m))
    if (l.find(needle) != std::string::npos) return l;
  return "";
}

// The words of a line, split on blanks.
inline std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

inline void type(top::TopModel& m, const std::string& keys) {
  for (char c : keys) m.on_key(top::char_key(c));
}

}  // namespace uringscope::top_test
