// SPDX-License-Identifier: MIT
// The trace writer's JSON text: an output buffer and the string literal. The document is
// written by hand rather than through nlohmann::json because it is streamed (one event
// at a time, never a tree in memory) and formatting is most of the writer's cost.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>

namespace uringscope {

// user_data as the report writes it (util/format.h's format_hex, without its string):
// lowercase hex with 0x, no padding ("0x0" for zero).
struct Hex {
  uint64_t v;
};
// A trace time or duration in microseconds with exactly three decimals ("12.034"):
// integer arithmetic, so no binary-float rounding reaches the file.
struct Usec {
  uint64_t ns;
};

// Text appended with <<: strings as they are, integers in decimal, Hex and Usec as above.
// Written by hand, not with fmt: at millions of records a second, fmt's per-piece calls
// (append, write_int, copy_str) were two thirds of the writer's CPU time, and every
// event here is a handful of literals and integers.
class TraceBuf {
 public:
  TraceBuf& operator<<(std::string_view s) {
    room(s.size());
    std::memcpy(data_.get() + size_, s.data(), s.size());
    size_ += s.size();
    return *this;
  }
  // A literal's length is known here, so its copy compiles to a few moves.
  template <std::size_t N>
  TraceBuf& operator<<(const char (&literal)[N]) {
    room(N - 1);
    std::memcpy(data_.get() + size_, literal, N - 1);
    size_ += N - 1;
    return *this;
  }
  TraceBuf& operator<<(char c) {
    room(1);
    data_[size_++] = c;
    return *this;
  }
  template <std::integral T>
    requires(!std::same_as<T, char> && !std::same_as<T, bool>)
  TraceBuf& operator<<(T v) {
    room(kMaxDecimal);
    if constexpr (std::is_signed_v<T>) {
      if (v < 0) {
        data_[size_++] = '-';
        size_ = put_decimal(size_, 0 - static_cast<uint64_t>(v));
        return *this;
      }
    }
    size_ = put_decimal(size_, static_cast<uint64_t>(v));
    return *this;
  }
  TraceBuf& operator<<(Hex h);
  TraceBuf& operator<<(Usec t);

  void reserve(std::size_t n);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const char* data() const { return data_.get(); }
  void clear() { size_ = 0; }

 private:
  static constexpr std::size_t kMaxDecimal = 21;  // "-" and 20 digits of a uint64_t

  void room(std::size_t n) {
    if (capacity_ - size_ < n) grow(n);
  }
  void grow(std::size_t n);
  // Writes v's digits at offset at; returns the offset past them. Room is the caller's.
  std::size_t put_decimal(std::size_t at, uint64_t v);

  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// A JSON string literal. Thread names are whatever the program set (prctl), so bytes
// that are not UTF-8 become '?' (docs/trace.md): the file must stay parseable by strict
// readers, and one ASCII byte per bad byte keeps the name's length. Control characters
// (DEL included: Perfetto's tokenizer rejects raw ones) are escaped, and so are the code
// points the text outputs escape (C1 controls, line separators, bidi controls).
void append_json_string(TraceBuf& out, std::string_view s);

}  // namespace uringscope
