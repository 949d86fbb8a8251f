// SPDX-License-Identifier: MIT
// A tab's table as plain data: what the model sorts and moves a cursor over, and what
// screen.cpp lays out. The cells are formatted for a fixed width, so a column never
// shifts between refreshes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "top/filter.h"
#include "uringscope/histogram.h"

namespace uringscope::top {

struct Column {
  std::string title;
  std::size_t width = 0;  // at least; one column also takes what the screen has to spare
  bool text = false;      // left-aligned, sorted by its cells; numbers by Row::keys
  bool tail = false;      // too long, it loses its start, not its end (a path's name)
  bool flex = false;      // takes the spare width (else the first column does)
};

struct Row {
  std::string id;                   // the same row in the next refresh: the cursor keeps to it
  std::vector<std::string> cells;
  std::vector<double> keys;         // per column: what a numeric column sorts by
  std::optional<FilterFrame> push;  // what Enter pushes onto the filter stack
  std::vector<std::string> detail;  // shown under the table for the row under the cursor
  bool alert = false;               // drawn in the warning colour (a WARN/CRIT finding)
};

struct Table {
  std::vector<Column> columns;
  std::vector<Row> rows;
  std::size_t default_sort = 1;  // the column a fresh tab sorts by (descending)
  std::string empty_note;        // what the tab says when it has no rows
};

// Sorts by `column`, ties broken by the default column (descending) and then by id, so
// equal rows keep one order from refresh to refresh.
void sort_rows(Table& table, std::size_t column, bool descending);

// Cells, each within the width of its column.
std::string rate_cell(uint64_t events, double seconds);     // per second, "-" without time
std::string count_cell(uint64_t n);                        // "99,999", then "123k"
std::string latency_cell(const Histogram& h, double q);    // "-" without a sample
std::string percent_cell(uint64_t part, uint64_t whole);   // "-" when whole is 0
double per_second(uint64_t events, double seconds);

// Whether `needle` is in `text`, ignoring case: what / finds.
bool contains_text(const std::string& text, const std::string& needle);

// What a terminal can draw whatever its locale: bytes outside printable ASCII become '?'.
std::string printable(const std::string& text);
// Shortened to `width` columns keeping the end ("...dir/file.dat"): a path's name is at
// its end.
std::string keep_tail(const std::string& text, std::size_t width);

}  // namespace uringscope::top
