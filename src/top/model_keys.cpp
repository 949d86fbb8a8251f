// SPDX-License-Identifier: MIT
// The model's keys (keys.h lists them for the help screen): htop's and vi's, as far as
// they mean something here.
#include <algorithm>

#include <fmt/format.h>

#include "top/model.h"
#include "util/format.h"

namespace uringscope::top {
namespace {

bool is_char(const Key& key, char c) { return key.code == KeyCode::Char && key.ch == c; }

FlameWeight next_weight(FlameWeight w) {
  switch (w) {
    case FlameWeight::Count: return FlameWeight::Bytes;
    case FlameWeight::Bytes: return FlameWeight::Time;
    case FlameWeight::Time: return FlameWeight::Count;
  }
  return FlameWeight::Count;
}

}  // namespace

bool TopModel::on_key(Key key) {
  message_.clear();
  if (key.code == KeyCode::Resize || key.code == KeyCode::Redraw) return true;
  if (help_) {
    help_ = false;  // any key closes the help; q too, rather than quitting unseen
    return true;
  }
  if (search_.editing) return on_search_key(key);
  if (is_char(key, 'q')) return false;
  if (on_common_key(key)) return true;
  return tab_ == Tab::Flame ? on_flame_key(key) : on_table_key(key);
}

bool TopModel::on_search_key(const Key& key) {
  switch (key.code) {
    case KeyCode::Char: search_.text += key.ch; break;
    case KeyCode::Backspace:
      if (!search_.text.empty()) search_.text.pop_back();
      break;
    case KeyCode::Enter:
      search_.editing = false;
      find_next(true);
      break;
    case KeyCode::Escape:
      search_ = Search{};
      break;
    default: break;
  }
  return true;
}

bool TopModel::on_common_key(const Key& key) {
  if (key.code == KeyCode::Char && key.ch >= '1' && key.ch < static_cast<char>('1' + kTabs.size())) {
    switch_tab(kTabs[static_cast<std::size_t>(key.ch - '1')]);
    return true;
  }
  const auto tab_index = static_cast<std::size_t>(tab_);
  switch (key.code) {
    case KeyCode::Tab: switch_tab(kTabs[(tab_index + 1) % kTabs.size()]); return true;
    case KeyCode::BackTab: switch_tab(kTabs[(tab_index + kTabs.size() - 1) % kTabs.size()]); return true;
    case KeyCode::Escape: pop_filter(); return true;
    case KeyCode::Enter: {
      if (tab_ == Tab::Flame) {
        const auto node = flame_selected();
        push_filter(node ? flame_.nodes[*node].push : std::nullopt);
      } else {
        const TabState& s = tab_state();
        push_filter(s.cursor < table_.rows.size() ? table_.rows[s.cursor].push : std::nullopt);
      }
      return true;
    }
    default: break;
  }
  if (key.code != KeyCode::Char) return false;
  switch (key.ch) {
    case 'F': filters_.clear(); refresh(); return true;
    case '/': search_ = Search{.editing = true, .text = {}}; return true;
    case 'n': find_next(true); return true;
    case 'N': find_next(false); return true;
    case 'r': reset_baseline(); return true;
    case ' ':
      paused_ = !paused_;
      if (paused_) {
        frozen_interval_ = interval_;
      } else {
        frozen_interval_.reset();
        take_shown();
      }
      refresh();
      return true;
    case '?': help_ = true; return true;
    case 'b':
      weight_ = next_weight(weight_);
      refresh();
      message_ = fmt::format("flame width: {}", flame_weight_name(weight_));
      return true;
    default: return false;
  }
}

bool TopModel::on_table_key(const Key& key) {
  const long page = static_cast<long>(table_rows());
  const long all = static_cast<long>(table_.rows.size());
  switch (key.code) {
    case KeyCode::Up: move_cursor(-1); return true;
    case KeyCode::Down: move_cursor(1); return true;
    case KeyCode::PageUp: move_cursor(-page); return true;
    case KeyCode::PageDown: move_cursor(page); return true;
    case KeyCode::Home: move_cursor(-all); return true;
    case KeyCode::End: move_cursor(all); return true;
    case KeyCode::Left: cycle_sort(-1); return true;
    case KeyCode::Right: cycle_sort(1); return true;
    default: break;
  }
  if (key.code != KeyCode::Char) return false;
  switch (key.ch) {
    case 'k': move_cursor(-1); return true;
    case 'j': move_cursor(1); return true;
    case 'g': move_cursor(-all); return true;
    case 'G': move_cursor(all); return true;
    case 'h': case '<': cycle_sort(-1); return true;
    case 'l': case '>': case 's': cycle_sort(1); return true;
    case 'I': {
      TabState& s = tabs_[static_cast<std::size_t>(tab_)];
      s.ascending = !s.ascending;
      refresh();
      message_ = fmt::format("sorted by {} ({})", table_.columns[sort_column()].title,
                             s.ascending ? "ascending" : "descending");
      return true;
    }
    default: return false;
  }
}

bool TopModel::on_flame_key(const Key& key) {
  const auto at = flame_selected();
  if (!at) return false;
  const FlameNode& node = flame_.nodes[*at];
  const std::vector<std::size_t> level = flame_level(flame_, node.level);
  const auto pos = static_cast<std::size_t>(std::find(level.begin(), level.end(), *at) - level.begin());
  std::optional<std::size_t> to;
  if (key.code == KeyCode::Left || is_char(key, 'h')) {
    if (pos > 0) to = level[pos - 1];
  } else if (key.code == KeyCode::Right || is_char(key, 'l')) {
    if (pos + 1 < level.size()) to = level[pos + 1];
  } else if (key.code == KeyCode::Up || is_char(key, 'k')) {
    // Deeper: the widest child, which is what the eye follows up the graph.
    for (std::size_t c : flame_level(flame_, node.level + 1))
      if (flame_.nodes[c].parent == *at && (!to || flame_.nodes[c].width > flame_.nodes[*to].width)) to = c;
  } else if (key.code == KeyCode::Down || is_char(key, 'j')) {
    if (node.parent != kNoParent) to = node.parent;
  } else {
    return false;
  }
  if (to) {
    flame_level_ = flame_.nodes[*to].level;
    flame_path_ = flame_path(flame_, *to);
  }
  return true;
}

void TopModel::switch_tab(Tab tab) {
  tab_ = tab;
  refresh();
}

void TopModel::push_filter(const std::optional<FilterFrame>& frame) {
  if (!frame) {
    message_ = "nothing to filter on here";
    return;
  }
  if (std::find(filters_.begin(), filters_.end(), *frame) != filters_.end()) {
    message_ = "already filtered: " + filter_label(*frame);
    return;
  }
  filters_.push_back(*frame);
  for (TabState& s : tabs_) s.cursor_id.clear(), s.cursor = 0, s.scroll = 0;
  flame_level_ = 0;
  flame_path_.clear();
  refresh();
  message_ = "filter pushed: " + filter_label(*frame) + " (Esc pops it)";
}

void TopModel::pop_filter() {
  if (filters_.empty()) {
    message_ = "no filter to pop";
    return;
  }
  const FilterFrame popped = filters_.back();
  filters_.pop_back();
  refresh();
  message_ = "filter popped: " + filter_label(popped);
}

void TopModel::reset_baseline() {
  if (!latest_) return;
  baseline_ = latest_;
  baseline_ns_ = latest_->wall_ns;
  take_shown();
  refresh();
  message_ = fmt::format("baseline reset at +{}: counting from now",
                         format_duration(baseline_ns_));
}

void TopModel::cycle_sort(long step) {
  const auto n = static_cast<long>(table_.columns.size());
  if (n == 0) return;
  TabState& s = tabs_[static_cast<std::size_t>(tab_)];
  const long now = static_cast<long>(sort_column());
  s.sort = static_cast<std::size_t>(((now + step) % n + n) % n);
  refresh();
  message_ = fmt::format("sorted by {} ({})", table_.columns[*s.sort].title,
                         s.ascending ? "ascending" : "descending");
}

void TopModel::find_next(bool forward) {
  if (search_.text.empty()) return;
  if (tab_ == Tab::Flame) {
    find_next_frame(forward);
    return;
  }
  const std::size_t n = table_.rows.size();
  const std::size_t from = tab_state().cursor;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::size_t k = forward ? (from + i) % n : (from + n * 2 - i) % n;
    if (!row_matches(table_.rows[k])) continue;
    move_cursor(static_cast<long>(k) - static_cast<long>(from));
    return;
  }
  message_ = "no row matches: " + search_.text;
}

void TopModel::find_next_frame(bool forward) {
  // Frames in reading order: the bottom level left to right, then the next one up.
  std::vector<std::size_t> order;
  for (std::size_t level = 0; level < kFlameLevels; ++level)
    for (std::size_t node : flame_level(flame_, level)) order.push_back(node);
  const std::size_t n = order.size();
  const auto at = flame_selected();
  const std::size_t from =
      at ? static_cast<std::size_t>(std::find(order.begin(), order.end(), *at) - order.begin()) : n;
  for (std::size_t i = 1; i <= n; ++i) {
    const std::size_t k = forward ? (from + i) % n : (from + n * 2 - i) % n;
    const FlameNode& node = flame_.nodes[order[k]];
    if (!contains_text(node.label, search_.text)) continue;
    flame_level_ = node.level;
    flame_path_ = flame_path(flame_, order[k]);
    return;
  }
  message_ = "no frame matches: " + search_.text;
}

}  // namespace uringscope::top
