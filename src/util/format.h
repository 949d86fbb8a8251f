// SPDX-License-Identifier: MIT
// Human formatting shared by every text renderer (report, compact, diff, live), so one
// number reads the same wherever it appears.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// 1204332 -> "1,204,332".
std::string format_count(uint64_t n);

// At most three significant digits, rounded half up, trailing zeros dropped, in the
// largest unit that keeps the value >= 1: 999 -> "999ns", 1500 -> "1.5us",
// 14000 -> "14us", 1234567 -> "1.23ms", 999600 -> "1ms", 12.4e9 -> "12.4s". Seconds are
// the largest unit, so long spans keep all their integer digits ("1234s").
std::string format_duration(uint64_t ns);

// Lowercase hex with a 0x prefix, no padding: 42 -> "0x2a", 0 -> "0x0". For values that
// are often pointers (user_data), which people compare with what their debugger prints.
std::string format_hex(uint64_t n);

// Binary units, one decimal above bytes: 512 -> "512B", 4096 -> "4.0KiB",
// 81920000 -> "78.1MiB", up to TiB.
std::string format_bytes(uint64_t n);

// One decimal and a percent sign: 63.0999 -> "63.1%".
std::string format_percent(double pct);

// Fixed decimals, no unit: (1.0, 1) -> "1.0".
std::string format_fixed(double value, int decimals);

// Greedy word wrap on whitespace; a word longer than width gets a line of its own.
// Empty or all-blank text yields no lines.
std::vector<std::string> wrap_words(std::string_view text, std::size_t width);

// Aligned columns for the report tables. Each row may carry a note (the "<-- !" marker)
// that sits after the table, so notes line up in one column however wide the cells are.
// Trailing blanks are trimmed, so rows with empty last cells leave no whitespace behind.
class TextTable {
 public:
  enum class Align { Left, Right };

  // align[i] for column i; columns beyond align.size() are right-aligned (numbers).
  explicit TextTable(std::vector<Align> align, std::string indent = {}, std::size_t gap = 2);

  void add_row(std::vector<std::string> cells, std::string note = {});
  bool empty() const { return rows_.empty(); }
  void write(std::ostream& out) const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::string note;
  };
  std::vector<Align> align_;
  std::string indent_;
  std::size_t gap_;
  std::vector<Row> rows_;
};

}  // namespace uringscope
