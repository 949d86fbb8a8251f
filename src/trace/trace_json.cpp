// SPDX-License-Identifier: MIT
#include "trace/trace_json.h"

#include "util/utf8.h"

namespace uringscope {

void append_json_string(TraceBuf& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out.f(FMT_COMPILE("\\u{:04x}"), c);
      ++i;
    } else if (std::size_t n = utf8_sequence_length(s, i)) {
      out += s.substr(i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  out += '"';
}

}  // namespace uringscope
