// SPDX-License-Identifier: MIT
#include "trace/trace_json.h"

#include <algorithm>
#include <array>
#include <bit>

#include "util/untrusted_text.h"
#include "util/utf8.h"

namespace uringscope {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// "00" "01" ... "99": two digits per division halves the divisions of a decimal.
constexpr auto kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// Counted first so the digits go straight to their place in the buffer: staging them and
// copying the run over cost a variable-length memcpy per integer, a call into libc's
// memmove that took more of the writer's CPU than the divisions did.
unsigned decimal_digits(uint64_t v) {
  unsigned n = 1;
  for (;;) {
    if (v < 10) return n;
    if (v < 100) return n + 1;
    if (v < 1000) return n + 2;
    if (v < 10000) return n + 3;
    v /= 10000;
    n += 4;
  }
}

}  // namespace

std::size_t TraceBuf::put_decimal(std::size_t at, uint64_t v) {
  std::size_t end = at + decimal_digits(v);
  char* p = data_.get() + end;
  while (v >= 100) {
    p -= 2;
    std::memcpy(p, &kDigitPairs[2 * (v % 100)], 2);
    v /= 100;
  }
  if (v >= 10) {
    std::memcpy(p - 2, &kDigitPairs[2 * v], 2);
  } else {
    p[-1] = static_cast<char>('0' + v);
  }
  return end;
}

TraceBuf& TraceBuf::operator<<(Hex h) {
  uint64_t v = h.v;
  std::size_t nibbles = v ? (67 - static_cast<std::size_t>(std::countl_zero(v))) / 4 : 1;
  room(2 + nibbles);
  char* p = data_.get() + size_;
  p[0] = '0';
  p[1] = 'x';
  for (std::size_t i = 2 + nibbles; i > 2; --i) {
    p[i - 1] = kHexDigits[v & 0xf];
    v >>= 4;
  }
  size_ += 2 + nibbles;
  return *this;
}

TraceBuf& TraceBuf::operator<<(Usec t) {
  *this << t.ns / 1000 << '.';
  room(3);
  std::memcpy(data_.get() + size_, &kDigitPairs[2 * (t.ns % 1000 / 10)], 2);
  data_[size_ + 2] = static_cast<char>('0' + t.ns % 10);
  size_ += 3;
  return *this;
}

void TraceBuf::reserve(std::size_t n) {
  if (n > capacity_) grow(n - size_);
}

void TraceBuf::grow(std::size_t n) {
  std::size_t capacity = std::max(capacity_ * 2, size_ + n);
  auto data = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

void append_json_string(TraceBuf& out, std::string_view s) {
  out << '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out << '\\' << static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out << "\\u00" << kHexDigits[c >> 4] << kHexDigits[c & 0xf];
      ++i;
    } else if (std::size_t n = utf8_sequence_length(s, i)) {
      // As the report's JSON does (util/json_text.h): the same string, inert in a terminal.
      if (n > 1 && needs_unicode_escape(utf8_code_point(s, i, n))) {
        std::string escape;
        append_u_escape(escape, utf8_code_point(s, i, n));
        out << std::string_view(escape);
      } else {
        out << s.substr(i, n);
      }
      i += n;
    } else {
      out << '?';
      ++i;
    }
  }
  out << '"';
}

}  // namespace uringscope
