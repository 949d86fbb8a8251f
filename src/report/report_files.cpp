// SPDX-License-Identifier: MIT
// The per-file table of a ring's block in the text report: its busiest (file, op) rows.
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "report/report.h"
#include "report/text_layout.h"
#include "util/format.h"
#include "util/utf8.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

// A path longer than this keeps its end, which tells files apart; the JSON has it whole.
constexpr std::size_t kFileNameColumns = 48;

std::string shown_name(const std::string& name) {
  if (name.size() <= kFileNameColumns) return name;
  return "..." + name.substr(utf8_cut_after(name, name.size() - (kFileNameColumns - 3)));
}

std::string_view sort_name(FileSort sort) {
  switch (sort) {
    case FileSort::Time: return "time";
    case FileSort::Requests: return "requests";
    case FileSort::Bytes: return "bytes";
    case FileSort::Name: return "name";
  }
  return "time";
}

// The snapshot keeps rows by time; the other orders are the reader's choice (--files-sort).
std::vector<FileStats> sorted_files(const std::vector<FileStats>& files, FileSort sort) {
  std::vector<FileStats> out = files;
  auto key = [sort](const FileStats& f) -> uint64_t {
    return sort == FileSort::Requests ? f.requests : sort == FileSort::Bytes ? f.bytes : f.busy_ns();
  };
  if (sort == FileSort::Name) {
    std::stable_sort(out.begin(), out.end(),
                     [](const FileStats& a, const FileStats& b) { return a.name < b.name; });
  } else if (sort != FileSort::Time) {
    std::stable_sort(out.begin(), out.end(),
                     [&](const FileStats& a, const FileStats& b) { return key(a) > key(b); });
  }
  return out;
}

}  // namespace

void render_file_table(std::ostream& out, const std::vector<FileStats>& files,
                       const FileTableOptions& opts, std::string_view indent) {
  if (files.empty() || opts.top == 0) return;
  const std::vector<FileStats> rows = sorted_files(files, opts.sort);
  const std::size_t shown = std::min(rows.size(), opts.top);
  if (shown < rows.size()) {
    out << indent << fmt::format("files (top {} of {} by {}):\n", shown, rows.size(), sort_name(opts.sort));
  } else {
    out << indent << "files:\n";
  }
  TextTable table({Align::Left}, std::string(indent) + "  ");
  table.add_row({"file", "op", "reqs", "p50", "p99", "max", "punted", "errors", "bytes"});
  for (std::size_t i = 0; i < shown; ++i) {
    const FileStats& f = rows[i];
    const Histogram& h = f.latency;
    auto latency = [&](uint64_t ns) { return h.count() ? format_duration(ns) : std::string("-"); };
    table.add_row({shown_name(f.name), opcode_name(f.opcode), format_count(f.requests),
                   latency(h.quantile_ns(0.5)), latency(h.quantile_ns(0.99)), latency(h.max_ns),
                   f.requests ? format_percent(f.punt_pct()) : std::string("-"),
                   format_count(f.errors),
                   opcode_moves_data(f.opcode) ? format_bytes(f.bytes) : std::string("-")});
  }
  table.write(out);
  if (shown < rows.size()) {
    out << indent << "  "
        << fmt::format("... {} more (--files-top N shows more; the JSON report has every row)\n",
                       format_count(rows.size() - shown));
  }
}

}  // namespace uringscope
