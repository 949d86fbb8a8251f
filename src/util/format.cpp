// SPDX-License-Identifier: MIT
#include "util/format.h"

#include <algorithm>
#include <cctype>
#include <ostream>

#include <fmt/format.h>

namespace uringscope {
namespace {

constexpr uint64_t pow10u(int exp) {
  uint64_t v = 1;
  while (exp-- > 0) v *= 10;
  return v;
}

int integer_digits(uint64_t v) {
  int digits = 1;
  while (v >= 10) {
    v /= 10;
    ++digits;
  }
  return digits;
}

// q holds the value times 10^decimals; drop the zeros a reader does not need.
std::string fixed_point(uint64_t q, int decimals) {
  std::string text = std::to_string(q / pow10u(decimals));
  uint64_t frac = q % pow10u(decimals);
  if (frac == 0) return text;
  std::string digits = fmt::format("{:0{}}", frac, decimals);
  digits.erase(digits.find_last_not_of('0') + 1);
  return text + "." + digits;
}

void rtrim(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

}  // namespace

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_duration(uint64_t ns) {
  if (ns < 1000) return fmt::format("{}ns", ns);
  struct Unit {
    uint64_t div;
    std::string_view suffix;
  };
  constexpr Unit kUnits[] = {{1'000, "us"}, {1'000'000, "ms"}, {1'000'000'000, "s"}};
  constexpr std::size_t kLast = std::size(kUnits) - 1;

  for (std::size_t u = 0; u <= kLast; ++u) {
    const Unit& unit = kUnits[u];
    if (u < kLast && ns >= unit.div * 1000) continue;
    int decimals = std::max(0, 3 - integer_digits(ns / unit.div));
    for (;;) {
      // Integer rounding: a double would turn 1235000 into 1.2349999ms and round down.
      uint64_t scale = unit.div / pow10u(decimals);
      uint64_t q = ns / scale + ((ns % scale) * 2 >= scale ? 1 : 0);
      if (q < 1000 || u == kLast) return fixed_point(q, decimals) + std::string(unit.suffix);
      // Rounding carried into a fourth digit (9.995us -> 10.0us, 999.6us -> 1ms).
      if (decimals == 0) break;
      --decimals;
    }
  }
  return fmt::format("{}ns", ns);  // not reached: the last unit always returns
}

std::string format_bytes(uint64_t n) {
  if (n < 1024) return fmt::format("{}B", n);
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n) / 1024.0;
  std::size_t unit = 0;
  while (v >= 1024.0 && unit + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f}{}", v, kUnits[unit]);
}

std::string format_hex(uint64_t n) { return fmt::format("{:#x}", n); }

std::string format_percent(double pct) { return fmt::format("{:.1f}%", pct); }

std::string format_fixed(double value, int decimals) {
  return fmt::format("{:.{}f}", value, decimals);
}

std::vector<std::string> wrap_words(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (start == i) break;
    std::string_view word = text.substr(start, i - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

TextTable::TextTable(std::vector<Align> align, std::string indent, std::size_t gap)
    : align_(std::move(align)), indent_(std::move(indent)), gap_(gap) {}

void TextTable::add_row(std::vector<std::string> cells, std::string note) {
  rows_.push_back({std::move(cells), std::move(note)});
}

void TextTable::write(std::ostream& out) const {
  std::vector<std::size_t> widths;
  for (const Row& row : rows_) {
    if (widths.size() < row.cells.size()) widths.resize(row.cells.size(), 0);
    for (std::size_t c = 0; c < row.cells.size(); ++c)
      widths[c] = std::max(widths[c], row.cells[c].size());
  }
  std::vector<std::string> lines;
  std::size_t table_width = 0;
  for (const Row& row : rows_) {
    std::string line = indent_;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      if (c > 0) line.append(gap_, ' ');
      std::string_view cell = c < row.cells.size() ? std::string_view(row.cells[c]) : "";
      std::size_t pad = widths[c] - cell.size();
      Align align = c < align_.size() ? align_[c] : Align::Right;
      if (align == Align::Right) line.append(pad, ' ');
      line += cell;
      if (align == Align::Left) line.append(pad, ' ');
    }
    rtrim(line);
    table_width = std::max(table_width, line.size());
    lines.push_back(std::move(line));
  }
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    std::string& line = lines[r];
    if (!rows_[r].note.empty()) {
      line.append(table_width - line.size() + 3, ' ');
      line += rows_[r].note;
    }
    out << line << '\n';
  }
}

}  // namespace uringscope
