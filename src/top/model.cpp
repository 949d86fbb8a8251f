// SPDX-License-Identifier: MIT
// The model's data side: readings, the baseline, the pause, and the shown tab rebuilt
// from them. The keys are in model_keys.cpp.
#include "top/model.h"

#include <algorithm>

#include "snapshot/delta.h"
#include "top/file_delta.h"

namespace uringscope::top {
namespace {

// Tab bar and column titles above the table; detail, status and prompt below it.
constexpr std::size_t kLinesAroundTable = 6;

}  // namespace

TopModel::TopModel(TopSettings settings) : settings_(settings), weight_(settings.flame_weight) {
  refresh();
}

void TopModel::on_reading(Snapshot reading) {
  if (!latest_) {
    // The first reading is taken at attach: its baseline is the start of the run (0).
    baseline_ = reading;
    latest_ = std::move(reading);
  } else {
    previous_ = std::move(latest_);
    latest_ = std::move(reading);
  }
  const Snapshot& before = previous_ ? *previous_ : *latest_;
  interval_ = snapshot_delta(*latest_, before);
  subtract_files(interval_, before);
  if (paused_) return;
  take_shown();
  refresh();
}

void TopModel::take_shown() {
  if (!latest_) return;
  shown_total_ = snapshot_delta(*latest_, *baseline_);
  subtract_files(shown_total_, *baseline_);
  shown_tool_ = latest_->tool;
  shown_now_ns_ = latest_->wall_ns;
  interval_findings_.clear();
  total_findings_.clear();
  if (settings_.findings) {
    interval_findings_ = evaluate(interval());
    total_findings_ = evaluate(shown_total_);
  }
}

void TopModel::set_size(std::size_t width, std::size_t height) {
  width_ = width;
  height_ = height;
  refresh();
}

std::size_t TopModel::table_rows() const {
  return height_ > kLinesAroundTable ? height_ - kLinesAroundTable : 1;
}

std::size_t TopModel::sort_column() const {
  const TabState& s = tab_state();
  return s.sort && *s.sort < table_.columns.size() ? *s.sort : table_.default_sort;
}

bool TopModel::row_matches(const Row& row) const {
  if (search_.text.empty()) return false;
  return std::any_of(row.cells.begin(), row.cells.end(),
                     [&](const std::string& cell) { return contains_text(cell, search_.text); });
}

void TopModel::refresh() {
  // Without a filter the shown readings serve as they are: no copy of every file row.
  const bool filtered = !filters_.empty();
  const Snapshot narrowed_interval = filtered ? apply_filters(interval(), filters_) : Snapshot{};
  const Snapshot narrowed_total = filtered ? apply_filters(shown_total_, filters_) : Snapshot{};
  const Snapshot& interval = filtered ? narrowed_interval : this->interval();
  const Snapshot& total = filtered ? narrowed_total : shown_total_;
  const TabData data{interval, total, settings_.files_on};
  table_ = Table{};
  switch (tab_) {
    case Tab::Rings: table_ = rings_table(data); break;
    case Tab::Ops: table_ = ops_table(data); break;
    case Tab::Files: table_ = files_table(data); break;
    case Tab::Processes: table_ = processes_table(data); break;
    case Tab::Findings:
      table_ = findings_table({interval_findings_, total_findings_, interval, total});
      if (!settings_.findings) table_.empty_note = "findings are off (--no-findings)";
      break;
    case Tab::Flame:
      flame_ = build_flame(total, weight_);
      layout_flame(flame_, width_);
      return;
  }
  sort_rows(table_, sort_column(), !tab_state().ascending);
  keep_cursor();
}

void TopModel::keep_cursor() {
  TabState& s = tabs_[static_cast<std::size_t>(tab_)];
  const auto& rows = table_.rows;
  const auto same = std::find_if(rows.begin(), rows.end(),
                                 [&](const Row& r) { return r.id == s.cursor_id; });
  if (same != rows.end()) {
    s.cursor = static_cast<std::size_t>(same - rows.begin());
  } else {
    s.cursor = rows.empty() ? 0 : std::min(s.cursor, rows.size() - 1);
  }
  s.cursor_id = rows.empty() ? std::string() : rows[s.cursor].id;
  const std::size_t page = table_rows();
  if (s.cursor < s.scroll) s.scroll = s.cursor;
  if (s.cursor >= s.scroll + page) s.scroll = s.cursor + 1 - page;
  const std::size_t last_page = rows.size() > page ? rows.size() - page : 0;
  s.scroll = std::min(s.scroll, last_page);
}

void TopModel::move_cursor(long delta) {
  TabState& s = tabs_[static_cast<std::size_t>(tab_)];
  if (table_.rows.empty()) return;
  const long last = static_cast<long>(table_.rows.size()) - 1;
  const long to = std::clamp(static_cast<long>(s.cursor) + delta, 0L, last);
  s.cursor = static_cast<std::size_t>(to);
  s.cursor_id = table_.rows[s.cursor].id;
  keep_cursor();
}

std::optional<std::size_t> TopModel::flame_selected() const {
  for (std::size_t level = std::min(flame_level_, kFlameLevels - 1);; --level) {
    const std::vector<std::size_t> nodes = flame_level(flame_, level);
    for (std::size_t n : nodes)
      if (flame_path(flame_, n) == flame_path_) return n;
    // The frame selected before is gone (or narrowed away): the nearest one that is.
    if (!nodes.empty()) return nodes.front();
    if (level == 0) return std::nullopt;
  }
}

}  // namespace uringscope::top
