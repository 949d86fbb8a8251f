// SPDX-License-Identifier: MIT
#include "top/table.h"

#include <algorithm>
#include <cctype>

#include "report/live.h"
#include "util/format.h"

namespace uringscope::top {
namespace {

// <0, 0, >0 like strcmp; numbers by their keys, text columns by their cells.
int compare(const Table& t, const Row& a, const Row& b, std::size_t column) {
  if (column >= t.columns.size()) return 0;
  if (t.columns[column].text) {
    const std::string& x = column < a.cells.size() ? a.cells[column] : std::string();
    const std::string& y = column < b.cells.size() ? b.cells[column] : std::string();
    return x.compare(y);
  }
  const double x = column < a.keys.size() ? a.keys[column] : 0;
  const double y = column < b.keys.size() ? b.keys[column] : 0;
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

void sort_rows(Table& table, std::size_t column, bool descending) {
  std::stable_sort(table.rows.begin(), table.rows.end(), [&](const Row& a, const Row& b) {
    int c = compare(table, a, b, column);
    if (c != 0) return descending ? c > 0 : c < 0;
    c = compare(table, a, b, table.default_sort);
    if (c != 0) return c > 0;
    return a.id < b.id;
  });
}

double per_second(uint64_t events, double seconds) {
  return seconds > 0 ? static_cast<double>(events) / seconds : 0;
}

std::string rate_cell(uint64_t events, double seconds) {
  return seconds > 0 ? format_live_rate(per_second(events, seconds)) : std::string("-");
}

std::string count_cell(uint64_t n) { return format_live_count(n); }

std::string latency_cell(const Histogram& h, double q) {
  return h.count() ? format_duration(h.quantile_ns(q)) : std::string("-");
}

std::string percent_cell(uint64_t part, uint64_t whole) {
  return whole ? format_percent(100.0 * static_cast<double>(part) / static_cast<double>(whole))
               : std::string("-");
}

bool contains_text(const std::string& text, const std::string& needle) {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(text.begin(), text.end(), needle.begin(), needle.end(), same) != text.end();
}

std::string printable(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e) c = '?';
  }
  return out;
}

std::string keep_tail(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width <= 3) return text.substr(text.size() - width);
  return "..." + text.substr(text.size() - (width - 3));
}

}  // namespace uringscope::top
