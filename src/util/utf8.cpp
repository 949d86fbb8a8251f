// SPDX-License-Identifier: MIT
#include "util/utf8.h"

namespace uringscope {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  std::size_t n;
  // The second byte's range is narrower after a few lead bytes: that is what rules out
  // overlong forms (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  return n;
}

char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n) {
  auto at = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (n) {
    case 1: return at(0);
    case 2: return (at(0) & 0x1f) << 6 | (at(1) & 0x3f);
    case 3: return (at(0) & 0x0f) << 12 | (at(1) & 0x3f) << 6 | (at(2) & 0x3f);
    default: return (at(0) & 0x07) << 18 | (at(1) & 0x3f) << 12 | (at(2) & 0x3f) << 6 | (at(3) & 0x3f);
  }
}

namespace {
constexpr char kHex[] = "0123456789abcdef";
}  // namespace

void append_u_escape(std::string& out, char32_t cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xf];
}

void append_x_escape(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

namespace {
bool is_continuation(std::string_view s, std::size_t i) {
  return (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80;
}
}  // namespace

std::size_t utf8_cut_before(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return s.size();
  while (pos > 0 && is_continuation(s, pos)) --pos;
  return pos;
}

std::size_t utf8_cut_after(std::string_view s, std::size_t pos) {
  while (pos < s.size() && is_continuation(s, pos)) ++pos;
  return pos;
}

void append_utf8_sanitized(std::string& out, std::string_view in, std::string_view replacement) {
  for (std::size_t i = 0; i < in.size();) {
    if (const std::size_t n = utf8_sequence_length(in, i)) {
      out.append(in.substr(i, n));
      i += n;
    } else {
      out += replacement;
      ++i;
    }
  }
}

}  // namespace uringscope
