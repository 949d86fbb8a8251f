// SPDX-License-Identifier: MIT
#include "util/json_text.h"

#include <utility>
#include <vector>

#include "util/untrusted_text.h"
#include "util/utf8.h"

namespace uringscope {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Whether `s` needed a replacement; `s` then holds the replaced text.
bool replace_in(std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      std::string clean;
      append_utf8_sanitized(clean, s, kUtf8Replacement);
      s = std::move(clean);
      return true;
    }
    i += n;
  }
  return false;
}

}  // namespace

std::size_t replace_invalid_utf8(OrderedJson& doc) {
  std::size_t changed = 0;
  if (doc.is_string()) {
    changed += replace_in(doc.get_ref<std::string&>());
  } else if (doc.is_array()) {
    for (OrderedJson& item : doc) changed += replace_invalid_utf8(item);
  } else if (doc.is_object()) {
    bool key_changed = false;
    for (auto& [key, value] : doc.items()) {
      changed += replace_invalid_utf8(value);
      std::string copy = key;
      key_changed = replace_in(copy) || key_changed;
    }
    if (key_changed) {
      // Keys are const in place: rebuild the object in its order.
      OrderedJson rebuilt = OrderedJson::object();
      for (auto& [key, value] : doc.items()) {
        std::string copy = key;
        changed += replace_in(copy);
        rebuilt[copy] = std::move(value);
      }
      doc = std::move(rebuilt);
    }
  }
  return changed;
}

std::string json_document(const OrderedJson& doc, int indent) {
  const std::string text = doc.dump(indent, ' ', false, OrderedJson::error_handler_t::replace);
  // Only string contents can hold these (JSON's own syntax is ASCII), so escaping them
  // where they stand keeps the document's meaning byte for byte.
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == 0x7f) {
        append_u_escape(out, c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {  // cannot happen after dump's replacement; never written raw anyway
      out += kUtf8Replacement;
      ++i;
      continue;
    }
    const char32_t cp = utf8_code_point(text, i, n);
    if (needs_unicode_escape(cp)) {
      append_u_escape(out, cp);
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace uringscope
