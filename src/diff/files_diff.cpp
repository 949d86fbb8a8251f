// SPDX-License-Identifier: MIT
#include "diff/files_diff.h"

#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "diff/diff_cells.h"
#include "util/format.h"

namespace uringscope {
namespace {

using Json = nlohmann::ordered_json;
using Align = TextTable::Align;

std::vector<std::string> side_cells(const std::optional<BaselineFile>& f) {
  if (!f) return {std::string(kDiffMissing), std::string(kDiffMissing), std::string(kDiffMissing)};
  return {format_count(f->requests), format_duration(f->p99_ns()), format_percent(f->punt_pct())};
}

std::vector<std::string> change_cells(const FileDiff& row) {
  if (!row.before || !row.after) return {row.before ? "gone" : "new", "", ""};
  const BaselineFile& b = *row.before;
  const BaselineFile& a = *row.after;
  return {change_pct(relative_change_pct(static_cast<double>(b.requests), static_cast<double>(a.requests))),
          change_pct(relative_change_pct(static_cast<double>(b.p99_ns()), static_cast<double>(a.p99_ns()))),
          change_points(b.punt_pct(), a.punt_pct())};
}

Json side_json(const BaselineFile& f) {
  return Json{{"requests", f.requests}, {"bytes", f.bytes},   {"punted", f.punted},
              {"punt_pct", f.punt_pct()}, {"errors", f.errors}, {"p99_ns", f.p99_ns()}};
}

Json signed_json(uint64_t before, uint64_t after) {
  return static_cast<int64_t>(after) - static_cast<int64_t>(before);
}


Json change_json(const BaselineFile& b, const BaselineFile& a) {
  return Json{{"requests", signed_json(b.requests, a.requests)},
              {"requests_pct", optional_json(relative_change_pct(static_cast<double>(b.requests),
                                                                 static_cast<double>(a.requests)))},
              {"bytes", signed_json(b.bytes, a.bytes)},
              {"punted", signed_json(b.punted, a.punted)},
              {"punt_pct", a.punt_pct() - b.punt_pct()},
              {"errors", signed_json(b.errors, a.errors)},
              {"p99_ns", signed_json(b.p99_ns(), a.p99_ns())},
              {"p99_ns_pct", optional_json(relative_change_pct(static_cast<double>(b.p99_ns()),
                                                               static_cast<double>(a.p99_ns())))}};
}

}  // namespace

void render_files_diff(std::ostream& out, const Diff& d) {
  if (d.files.empty()) return;
  const std::size_t shown = std::min(d.files.size(), kDiffFilesShown);
  out << (shown < d.files.size()
              ? fmt::format("\nper file, all rings (the {} busiest of {})\n", shown, d.files.size())
              : std::string("\nper file, all rings\n"));
  TextTable table({Align::Left, Align::Left, Align::Right, Align::Left, Align::Right, Align::Right,
                   Align::Right, Align::Left, Align::Right, Align::Right, Align::Right,
                   Align::Left, Align::Right, Align::Right},
                  "  ");
  table.add_row({"file", "op", "reqs", "", "", "", "p99", "", "", "", "punted", "", "", ""});
  for (std::size_t i = 0; i < shown; ++i) {
    const FileDiff& row = d.files[i];
    const std::vector<std::string> b = side_cells(row.before);
    const std::vector<std::string> a = side_cells(row.after);
    const std::vector<std::string> c = change_cells(row);
    std::vector<std::string> cells{row.name, row.op};
    for (std::size_t m = 0; m < 3; ++m) {
      cells.insert(cells.end(), {b[m], "->", a[m], c[m]});
    }
    table.add_row(std::move(cells));
  }
  table.write(out);
}

nlohmann::ordered_json files_diff_json(const Diff& d) {
  Json out = Json::array();
  for (const FileDiff& row : d.files) {
    out.push_back(Json{
        {"name", row.name},
        {"op", row.op},
        {"status", row.before && row.after ? "matched" : row.before ? "removed" : "added"},
        {"before", row.before ? side_json(*row.before) : Json(nullptr)},
        {"after", row.after ? side_json(*row.after) : Json(nullptr)},
        {"change", row.before && row.after ? change_json(*row.before, *row.after) : Json(nullptr)}});
  }
  return out;
}

}  // namespace uringscope
