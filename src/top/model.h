// SPDX-License-Identifier: MIT
// `uringscope top` without a terminal: a state machine over readings of the kernel
// tables and keys. It keeps the baseline, the last interval, the filter stack, the tab,
// the sort and cursor of each tab, the search and the pause, and builds what each tab
// shows; screen.h turns that into lines and terminal.h draws them. Everything here is
// unit-tested with synthetic snapshots and keys.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/folded.h"
#include "top/filter.h"
#include "top/flame.h"
#include "top/keys.h"
#include "top/table.h"
#include "top/tabs.h"
#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope::top {

struct TopSettings {
  double interval_s = 1.0;
  bool files_on = false;  // --files: the files tab and the flame graph's file frames
  FlameWeight flame_weight = FlameWeight::Count;
  bool findings = true;   // off with --no-findings
};

// One tab's place: its sort, its cursor (kept on the same row across refreshes) and the
// first row on screen.
struct TabState {
  std::optional<std::size_t> sort;  // none: the table's default column
  bool ascending = false;
  std::string cursor_id;
  std::size_t cursor = 0;
  std::size_t scroll = 0;
};

struct Search {
  bool editing = false;  // the prompt is open
  std::string text;      // what is typed (editing) or what is searched for
};

class TopModel {
 public:
  explicit TopModel(TopSettings settings);

  // A cumulative reading of the tables (SnapshotSource::take): the first is the
  // baseline; each later one ends an interval. While paused the screen keeps what it
  // showed, and the readings still count.
  void on_reading(Snapshot reading);
  // False when the key asks to quit.
  bool on_key(Key key);
  void set_size(std::size_t width, std::size_t height);

  // What screen.cpp draws.
  Tab tab() const { return tab_; }
  const TabState& tab_state() const { return tabs_[static_cast<std::size_t>(tab_)]; }
  const Table& table() const { return table_; }
  const FlameGraph& flame() const { return flame_; }
  std::optional<std::size_t> flame_selected() const;
  const std::vector<FilterFrame>& filters() const { return filters_; }
  const Search& search() const { return search_; }
  bool row_matches(const Row& row) const;
  bool paused() const { return paused_; }
  bool help() const { return help_; }
  const std::string& message() const { return message_; }
  std::size_t width() const { return width_; }
  std::size_t height() const { return height_; }
  std::size_t table_rows() const;  // rows of the table that fit on the screen
  std::size_t sort_column() const;
  const TopSettings& settings() const { return settings_; }
  FlameWeight flame_weight() const { return weight_; }
  // The shown readings: their time since the start of the run, the last interval and
  // everything since the baseline (both unfiltered), the tool's own losses since the
  // start, and how many findings the tab bar counts.
  bool has_reading() const { return latest_.has_value(); }
  uint64_t since_start_ns() const { return shown_now_ns_; }
  uint64_t baseline_ns() const { return baseline_ns_; }
  const Snapshot& interval() const { return frozen_interval_ ? *frozen_interval_ : interval_; }
  const Snapshot& total() const { return shown_total_; }
  const ToolStats& tool_losses() const { return shown_tool_; }
  std::size_t findings_count() const { return total_findings_.size(); }

 private:
  void refresh();          // rebuilds the shown tab from the shown readings and filters
  void take_shown();       // the newest readings become the shown ones
  void keep_cursor();      // after a rebuild: back on the row it was on, and visible
  void move_cursor(long delta);
  void switch_tab(Tab tab);
  bool on_search_key(const Key& key);
  bool on_table_key(const Key& key);
  bool on_flame_key(const Key& key);
  bool on_common_key(const Key& key);
  void push_filter(const std::optional<FilterFrame>& frame);
  void pop_filter();
  void reset_baseline();
  void find_next(bool forward);
  void find_next_frame(bool forward);
  void cycle_sort(long step);

  TopSettings settings_;
  FlameWeight weight_;
  std::optional<Snapshot> baseline_, previous_, latest_;
  Snapshot interval_;  // latest minus previous
  std::optional<Snapshot> frozen_interval_;  // the interval shown while paused
  Snapshot shown_total_;
  ToolStats shown_tool_;
  uint64_t shown_now_ns_ = 0, baseline_ns_ = 0;
  std::vector<Finding> interval_findings_, total_findings_;
  bool paused_ = false;
  bool help_ = false;
  Tab tab_ = Tab::Rings;
  std::array<TabState, kTabs.size()> tabs_{};
  std::vector<FilterFrame> filters_;
  Search search_;
  std::string message_;
  std::size_t width_ = 80, height_ = 24;
  Table table_;
  FlameGraph flame_;
  std::size_t flame_level_ = 0;
  std::string flame_path_;  // the selected frame, by its path: it survives refreshes
};

}  // namespace uringscope::top
