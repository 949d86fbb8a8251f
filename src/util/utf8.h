// SPDX-License-Identifier: MIT
// The one UTF-8 validator. Text that reaches an output unchecked (a comm is 16 raw bytes
// from the kernel, possibly cut inside a character; a thread name is whatever the
// program set) is checked here, and each output replaces what is not UTF-8 its own way.
//
// Not nlohmann's error_handler_t::replace: that only exists inside its JSON dump, which
// neither the OpenMetrics text nor the streamed trace writer goes through, and its
// escaping differs from the trace's (it leaves DEL raw).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace uringscope {

// Length of the valid UTF-8 sequence that starts at s[i] (1 for ASCII), 0 when none
// does. Strict: no overlong forms, no surrogates, nothing above U+10FFFF, which strict
// JSON readers and Prometheus both reject.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// The code point of the valid sequence of length n (utf8_sequence_length()) at s[i].
char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n);

// Appends the escape "\uHHHH" of a code point of the Basic Multilingual Plane, the form
// both JSON and the text outputs use, and "\xHH" of one byte, the text outputs' form for
// control bytes and bytes that are not UTF-8.
void append_u_escape(std::string& out, char32_t cp);
void append_x_escape(std::string& out, unsigned char byte);

// Where to cut `s` at about `pos` without splitting a character: the nearest index at or
// before (utf8_cut_before) or at or after (utf8_cut_after) `pos` that is no continuation
// byte. A name shortened to fit a column must stay valid UTF-8.
std::size_t utf8_cut_before(std::string_view s, std::size_t pos);
std::size_t utf8_cut_after(std::string_view s, std::size_t pos);

// Appends `in` to `out` with every byte that starts no valid sequence replaced by
// `replacement` (one replacement per byte, scanning on from the next byte).
void append_utf8_sanitized(std::string& out, std::string_view in, std::string_view replacement);

// U+FFFD REPLACEMENT CHARACTER, encoded.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

}  // namespace uringscope
