// SPDX-License-Identifier: MIT
// Keys as the model sees them, whatever the terminal sent; and the help screen's table of
// every key, which docs/top.md repeats (a unit test holds the two together).
#pragma once

#include <array>
#include <string_view>

namespace uringscope::top {

enum class KeyCode {
  Char, Up, Down, Left, Right, PageUp, PageDown, Home, End,
  Enter, Escape, Backspace, Tab, BackTab, Resize, Redraw
};

struct Key {
  KeyCode code = KeyCode::Char;
  char ch = 0;  // KeyCode::Char: the printable character typed
};

inline Key char_key(char c) { return Key{KeyCode::Char, c}; }

struct KeyHelp {
  std::string_view keys;  // as the help screen writes them
  std::string_view what;
};

// Each line fits an 80-column help screen: keys in 25 columns, what they do in 52.
inline constexpr std::array<KeyHelp, 20> kKeyHelp = {{
    {"1-6, Tab, Shift-Tab", "tabs: rings, ops, files, processes, findings, flame"},
    {"Up/Down, k/j", "move the cursor (flame: deeper/shallower frame)"},
    {"PgUp/PgDn, Home/End, g/G", "a page up/down, to the top, to the bottom"},
    {"Left/Right, h/l, <, >", "sort by the column left/right (flame: siblings)"},
    {"s", "sort by the next column"},
    {"I", "reverse the sort order"},
    {"Enter", "push the row under the cursor as a filter"},
    {"Esc", "pop the newest filter; close the prompt or help"},
    {"F", "pop every filter"},
    {"/", "search: type, Enter to find, Esc to cancel"},
    {"n, N", "next / previous match of the search"},
    {"r", "reset the baseline: count from now"},
    {"space", "pause the screen (the readings go on)"},
    {"b", "flame: width by CQEs, bytes or time"},
    {"?", "this help"},
    {"Ctrl-L", "redraw the screen"},
    {"q", "quit: the full report of the whole run follows"},
    {"Ctrl-C", "end the run too (as SIGTERM, or the target exiting)"},
    {"Status line", "filters, interval, time, totals, tool losses"},
    {"Columns", "/s: the last interval; others: since the baseline"},
}};

}  // namespace uringscope::top
