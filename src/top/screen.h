// SPDX-License-Identifier: MIT
// The screen of `uringscope top` as lines of text with styled spans: a pure function of
// the model and its size, so what the terminal shows is unit-tested as text; terminal.h
// only paints it. Every line is exactly the screen's width, in printable ASCII, so it
// draws the same in any locale, over ssh, in an 80x24 terminal.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "top/model.h"

namespace uringscope::top {

enum class Style {
  Normal, TabBar, TabActive, Header, HeaderSorted, Cursor, Match, Alert,
  Status, Prompt, FlameA, FlameB, FlameSelected, FlameMatch
};

struct Span {
  std::size_t x = 0;
  std::size_t len = 0;
  Style style = Style::Normal;
};

struct ScreenLine {
  std::string text;         // exactly the screen's width
  std::vector<Span> spans;  // what is not covered is Normal
};

inline ScreenLine blank_line(std::size_t width) { return ScreenLine{std::string(width, ' '), {}}; }

// The smallest screen the layout fits; a smaller one says so instead.
inline constexpr std::size_t kMinWidth = 40;
inline constexpr std::size_t kMinHeight = 10;

std::vector<ScreenLine> compose(const TopModel& model);

// Parts of the screen, for compose() and its tests.
ScreenLine tab_bar(const TopModel& model);
ScreenLine status_line(const TopModel& model);
ScreenLine prompt_line(const TopModel& model);
// The table's title line and rows, then its detail lines: `rows` + 1 + kDetailLines.
inline constexpr std::size_t kDetailLines = 2;
std::vector<ScreenLine> table_body(const TopModel& model, std::size_t rows);
std::vector<ScreenLine> flame_body(const TopModel& model, std::size_t rows);
std::vector<ScreenLine> help_body(const TopModel& model, std::size_t lines);

// Fits `text` into `width` columns: cut (keeping the end when `keep_end`) or padded,
// on the right unless `right`.
std::string fit(const std::string& text, std::size_t width, bool right = false, bool keep_end = false);

}  // namespace uringscope::top
