// SPDX-License-Identifier: MIT
// The trace writer's JSON text: an output buffer and the string literal. The document is
// written by hand rather than through nlohmann::json because it is streamed (one event
// at a time, never a tree in memory) and formatting is most of the writer's cost.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cstddef>
#include <string_view>

namespace uringscope {

// fmt's own memory buffer with compiled format strings: a generic back_inserter into
// std::string made formatting most of the writer's time.
class TraceBuf {
 public:
  TraceBuf& operator+=(std::string_view s) {
    b_.append(s.data(), s.data() + s.size());
    return *this;
  }
  TraceBuf& operator+=(char c) {
    b_.push_back(c);
    return *this;
  }
  template <typename S, typename... Args>
  void f(const S& format, const Args&... args) {
    fmt::format_to(fmt::appender(b_), format, args...);
  }
  void reserve(std::size_t n) { b_.reserve(n); }
  std::size_t size() const { return b_.size(); }
  bool empty() const { return b_.size() == 0; }
  const char* data() const { return b_.data(); }
  void clear() { b_.clear(); }

 private:
  fmt::memory_buffer b_;
};

// A JSON string literal. Thread names are whatever the program set (prctl), so bytes
// that are not UTF-8 become '?' (docs/trace.md): the file must stay parseable by strict
// readers, and one ASCII byte per bad byte keeps the name's length. Control characters
// (DEL included: Perfetto's tokenizer rejects raw ones) are escaped.
void append_json_string(TraceBuf& out, std::string_view s);

}  // namespace uringscope
