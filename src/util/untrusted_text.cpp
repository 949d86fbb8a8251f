// SPDX-License-Identifier: MIT
#include "util/untrusted_text.h"

#include "util/utf8.h"

namespace uringscope {
namespace {

// The escape of the ASCII byte c, or nullptr when c is shown as it is.
const char* ascii_escape(unsigned char c) {
  switch (c) {
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return nullptr;
  }
}

bool ascii_shown_as_is(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; }

}  // namespace

bool needs_unicode_escape(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f)          // C1 controls: U+009B is CSI to some terminals
         || cp == 0x2028 || cp == 0x2029     // line and paragraph separators
         || (cp >= 0x202a && cp <= 0x202e)   // bidi embeddings and overrides
         || (cp >= 0x2066 && cp <= 0x2069)   // bidi isolates
         || cp == 0x200e || cp == 0x200f;    // left-to-right and right-to-left marks
}

void append_visible_text(std::string& out, std::string_view raw) {
  for (std::size_t i = 0; i < raw.size();) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c < 0x80) {
      if (ascii_shown_as_is(c)) {
        out += static_cast<char>(c);
      } else if (const char* escape = ascii_escape(c)) {
        out += escape;
      } else {
        append_x_escape(out, c);
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(raw, i);
    if (n == 0) {
      append_x_escape(out, c);
      ++i;
      continue;
    }
    const char32_t cp = utf8_code_point(raw, i, n);
    if (needs_unicode_escape(cp)) {
      append_u_escape(out, cp);
    } else {
      out.append(raw.substr(i, n));
    }
    i += n;
  }
}

std::string visible_text(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  append_visible_text(out, raw);
  return out;
}

bool is_visible_as_is(std::string_view raw) {
  for (std::size_t i = 0; i < raw.size();) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c < 0x80) {
      if (!ascii_shown_as_is(c)) return false;
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(raw, i);
    if (n == 0 || needs_unicode_escape(utf8_code_point(raw, i, n))) return false;
    i += n;
  }
  return true;
}

}  // namespace uringscope
