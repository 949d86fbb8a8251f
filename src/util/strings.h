// SPDX-License-Identifier: MIT
// Small string helpers that several stages need. ASCII only: everything they compare or
// trim is a protocol token, an opcode name or a command-line word, never user text.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// What isspace() accepts in the C locale.
inline constexpr std::string_view kAsciiWhitespace = " \t\n\v\f\r";
// HTTP's optional whitespace (RFC 9110 OWS): a header value is trimmed of these only.
inline constexpr std::string_view kHttpWhitespace = " \t";

inline std::string_view trim(std::string_view s, std::string_view chars = kAsciiWhitespace) {
  const auto first = s.find_first_not_of(chars);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(chars) - first + 1);
}

// A whole string of decimal digits as a number; nullopt for anything else ("", "-1",
// "3x", out of range).
inline std::optional<uint64_t> parse_whole_number(std::string_view s) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The pieces of `s` between `sep`s, empty ones included ("a::b" gives "a", "", "b").
inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const auto end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

}  // namespace uringscope
