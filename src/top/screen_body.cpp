// SPDX-License-Identifier: MIT
// The middle of the screen: a tab's table, or the flame graph, with the detail lines of
// what the cursor is on.
#include <algorithm>

#include <fmt/format.h>

#include "top/screen.h"
#include "util/format.h"

namespace uringscope::top {
namespace {

// Column widths at this screen width: the flex column (else the first) takes the spare.
std::vector<std::size_t> widths(const Table& t, std::size_t screen) {
  std::vector<std::size_t> w;
  std::size_t used = 0, flex = 0;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    w.push_back(t.columns[c].width);
    used += t.columns[c].width + (c ? 1 : 0);
    if (t.columns[c].flex) flex = c;
  }
  if (!w.empty() && screen > used) w[flex] += screen - used;
  return w;
}

std::string title_cell(const Column& col, std::size_t width, bool sorted, bool ascending) {
  std::string title = col.title;
  if (sorted && title.size() + 2 <= width) title = col.text ? title + (ascending ? " ^" : " v")
                                                             : std::string(ascending ? "^ " : "v ") + title;
  return fit(title, width, !col.text);
}

ScreenLine title_line(const TopModel& m, const std::vector<std::size_t>& w) {
  const Table& t = m.table();
  ScreenLine line{std::string(), {{0, m.width(), Style::Header}}};
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c) line.text += ' ';
    const bool sorted = c == m.sort_column();
    if (sorted) line.spans.push_back({line.text.size(), w[c], Style::HeaderSorted});
    line.text += title_cell(t.columns[c], w[c], sorted, m.tab_state().ascending);
  }
  line.text = fit(line.text, m.width());
  return line;
}

ScreenLine row_line(const TopModel& m, const Row& row, const std::vector<std::size_t>& w, bool cursor) {
  const Table& t = m.table();
  ScreenLine line;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c) line.text += ' ';
    const std::string& cell = c < row.cells.size() ? row.cells[c] : std::string();
    line.text += fit(cell, w[c], !t.columns[c].text, t.columns[c].tail);
  }
  line.text = fit(line.text, m.width());
  if (row.alert) line.spans.push_back({0, m.width(), Style::Alert});
  if (m.row_matches(row)) line.spans.push_back({0, m.width(), Style::Match});
  if (cursor) line.spans.push_back({0, m.width(), Style::Cursor});
  return line;
}

std::vector<ScreenLine> detail_lines(const std::vector<std::string>& detail, std::size_t width) {
  std::vector<ScreenLine> out;
  for (const std::string& text : detail) {
    for (const std::string& part : wrap_words(text, width - 1)) {
      if (out.size() == kDetailLines) return out;
      out.push_back(ScreenLine{fit(" " + part, width), {}});
    }
  }
  return out;
}

std::string weight_total(const FlameGraph& g) {
  switch (g.weight) {
    case FlameWeight::Count: return count_cell(g.total) + " CQEs";
    case FlameWeight::Bytes: return format_bytes(g.total);
    case FlameWeight::Time: return format_duration(g.total) + " in requests";
  }
  return "";
}

// One level of the graph: each frame a block as wide as its share, its label inside, a
// blank column closing it so neighbours stand apart.
ScreenLine flame_row(const TopModel& m, std::size_t level, std::optional<std::size_t> selected) {
  const FlameGraph& g = m.flame();
  ScreenLine line = blank_line(m.width());
  std::size_t k = 0;
  for (std::size_t n : flame_level(g, level)) {
    const FlameNode& node = g.nodes[n];
    const std::size_t inner = node.width > 1 ? node.width - 1 : 1;
    if (node.x + inner > m.width()) break;
    // Two characters of a name say nothing: a frame that narrow is a bare block. A path
    // cut short keeps its end: the file's own name, not the directory every file shares.
    const bool file_frame = node.level == kFlameLevels - 1;
    if (inner >= 3)
      line.text.replace(node.x, inner, fit(printable(node.label), inner, false, file_frame));
    Style style = k++ % 2 ? Style::FlameB : Style::FlameA;
    if (!m.search().text.empty() && contains_text(node.label, m.search().text)) style = Style::FlameMatch;
    if (selected && *selected == n) style = Style::FlameSelected;
    line.spans.push_back({node.x, inner, style});
  }
  return line;
}

}  // namespace

std::vector<ScreenLine> table_body(const TopModel& m, std::size_t rows) {
  const Table& t = m.table();
  const std::vector<std::size_t> w = widths(t, m.width());
  std::vector<ScreenLine> out{title_line(m, w)};
  const TabState& s = m.tab_state();
  for (std::size_t i = s.scroll; i < t.rows.size() && i < s.scroll + rows; ++i)
    out.push_back(row_line(m, t.rows[i], w, i == s.cursor));
  if (t.rows.empty()) out.push_back(ScreenLine{fit("  " + t.empty_note, m.width()), {}});
  out.resize(rows + 1, blank_line(m.width()));
  std::vector<ScreenLine> detail;
  if (s.cursor < t.rows.size()) detail = detail_lines(t.rows[s.cursor].detail, m.width());
  detail.resize(kDetailLines, blank_line(m.width()));
  for (ScreenLine& l : detail) out.push_back(std::move(l));
  return out;
}

std::vector<ScreenLine> flame_body(const TopModel& m, std::size_t rows) {
  const FlameGraph& g = m.flame();
  const std::string title =
      fmt::format("flame since {}: width = {} (b), {}; comm > ring > op > file",
                  m.baseline_ns() ? "baseline" : "start", flame_weight_name(g.weight), weight_total(g));
  std::vector<ScreenLine> out{ScreenLine{fit(title, m.width()), {{0, m.width(), Style::Header}}}};
  out.resize(rows + 1, blank_line(m.width()));
  const std::optional<std::size_t> selected = m.flame_selected();
  // The root at the bottom, as flame graphs grow: level L sits L rows above it.
  for (std::size_t level = 0; level < kFlameLevels && level < rows; ++level)
    out[rows - level] = flame_row(m, level, selected);
  std::vector<std::string> detail;
  if (g.nodes.empty()) {
    detail = {"nothing to draw since the baseline"};
  } else if (selected) {
    const FlameNode& node = g.nodes[*selected];
    const double share = g.total ? 100.0 * static_cast<double>(node.weight) / static_cast<double>(g.total) : 0;
    detail = {printable(flame_path(g, *selected)),
              fmt::format("{} {} ({} of all)", format_count(node.weight), flame_weight_unit(g.weight),
                          format_percent(share))};
  }
  std::vector<ScreenLine> lines = detail_lines(detail, m.width());
  lines.resize(kDetailLines, blank_line(m.width()));
  for (ScreenLine& l : lines) out.push_back(std::move(l));
  return out;
}

}  // namespace uringscope::top
