// SPDX-License-Identifier: MIT
// The ops and files tabs.
#include <map>
#include <utility>

#include <fmt/format.h>

#include "top/tabs.h"
#include "uringscope/opcodes.h"
#include "util/format.h"

namespace uringscope::top {
namespace {

double quantile_key(const Histogram& h, double q) {
  return static_cast<double>(h.count() ? h.quantile_ns(q) : 0);
}

const OpStats* op_in(const Snapshot& snap, uint32_t opcode) {
  for (const OpStats& op : snap.ops)
    if (op.opcode == opcode) return &op;
  return nullptr;
}

std::string bytes_rate_cell(uint32_t opcode, uint64_t bytes, double seconds) {
  if (!opcode_moves_data(opcode) || seconds <= 0) return "-";
  return count_cell(static_cast<uint64_t>(per_second(bytes, seconds)));
}

Row op_row(const OpStats& total, const OpStats* now, double seconds) {
  static const OpStats idle;
  const OpStats& live = now ? *now : idle;
  Row row;
  row.id = fmt::format("{:03}", total.opcode);
  const bool data = opcode_moves_data(total.opcode);
  row.cells = {opcode_name(total.opcode),
               rate_cell(live.completed, seconds),
               count_cell(total.completed),
               latency_cell(total.latency, 0.5),
               latency_cell(total.latency, 0.99),
               percent_cell(total.punted, total.submitted),
               count_cell(total.errors),
               bytes_rate_cell(total.opcode, live.bytes, seconds),
               data ? format_bytes(total.bytes) : "-"};
  row.keys = {0,
              per_second(live.completed, seconds),
              static_cast<double>(total.completed),
              quantile_key(total.latency, 0.5),
              quantile_key(total.latency, 0.99),
              total.punt_pct(),
              static_cast<double>(total.errors),
              per_second(live.bytes, seconds),
              static_cast<double>(total.bytes)};
  row.push = op_filter(total.opcode);
  return row;
}

// (name, opcode) -> the file's rows of every ring, merged.
using FileKey = std::pair<std::string, uint32_t>;
std::map<FileKey, FileStats> files_of(const Snapshot& snap) {
  std::map<FileKey, FileStats> files;
  for (const Ring& ring : snap.rings) {
    for (const FileStats& f : ring.files) {
      auto [it, fresh] = files.try_emplace({f.name, f.opcode}, f);
      if (!fresh) it->second += f;
    }
  }
  return files;
}

Row file_row(const FileStats& total, const FileStats* now, double seconds) {
  static const FileStats idle;
  const FileStats& live = now ? *now : idle;
  Row row;
  row.id = fmt::format("{}\n{:03}", total.name, total.opcode);
  row.cells = {printable(total.name),
               opcode_name(total.opcode),
               rate_cell(live.cqes, seconds),
               count_cell(total.requests),
               format_bytes(total.bytes),
               latency_cell(total.latency, 0.99),
               percent_cell(total.punted, total.requests),
               count_cell(total.errors)};
  row.keys = {0,
              0,
              per_second(live.cqes, seconds),
              static_cast<double>(total.requests),
              static_cast<double>(total.bytes),
              quantile_key(total.latency, 0.99),
              total.punt_pct(),
              static_cast<double>(total.errors)};
  row.push = file_filter(total.name);
  row.detail = {printable(total.name) + "  (" + std::string(file_kind_name(total.kind)) + ")"};
  return row;
}

}  // namespace

Table ops_table(const TabData& data) {
  Table t;
  t.columns = {{"op", 16, true}, {"cqe/s", 7},  {"cqes", 7}, {"p50", 7},  {"p99", 7},
               {"punt", 6},      {"errors", 6}, {"B/s", 6},  {"bytes", 8}};
  t.default_sort = 2;
  t.empty_note = "no op has completed anything since the baseline";
  const double seconds = seconds_of(data.interval);
  for (const OpStats& op : data.total.ops) {
    t.rows.push_back(op_row(op, op_in(data.interval, op.opcode), seconds));
  }
  return t;
}

Table files_table(const TabData& data) {
  Table t;
  t.columns = {{"file", 22, true, true}, {"op", 10, true}, {"cqe/s", 7}, {"reqs", 7},
               {"bytes", 8},       {"p99", 7},       {"punt", 6},  {"errors", 6}};
  t.default_sort = 3;
  if (!data.files_on) {
    t.empty_note = "per-file rows need --files: run uringscope top --files ...";
    return t;
  }
  t.empty_note = "no file row since the baseline";
  const double seconds = seconds_of(data.interval);
  const auto now = files_of(data.interval);
  for (const auto& [key, file] : files_of(data.total)) {
    const auto live = now.find(key);
    t.rows.push_back(file_row(file, live == now.end() ? nullptr : &live->second, seconds));
  }
  return t;
}

}  // namespace uringscope::top
