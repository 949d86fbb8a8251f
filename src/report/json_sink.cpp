// SPDX-License-Identifier: MIT
#include "report/json_sink.h"

#include <string>

#include "util/json_text.h"

namespace uringscope {
namespace {

using Json = nlohmann::ordered_json;

// json_document(value, 2) as it reads `depth` levels down: every line after the first
// indented by two spaces a level.
void write_nested(std::ostream& out, const Json& value, int depth) {
  const std::string text = json_document(value, 2);
  const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
  std::size_t start = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    out.write(text.data() + start, static_cast<std::streamsize>(nl + 1 - start));
    out << pad;
    start = nl + 1;
  }
  out.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
}

}  // namespace

void JsonDocumentSink::member(std::string_view key, Json value) {
  replaced_ += replace_invalid_utf8(value);
  doc_[std::string(key)] = std::move(value);
}

void JsonDocumentSink::begin_array(std::string_view key) {
  array_key_ = std::string(key);
  doc_[array_key_] = Json::array();
}

void JsonDocumentSink::element(Json value) {
  replaced_ += replace_invalid_utf8(value);
  doc_[array_key_].push_back(std::move(value));
}

void JsonDocumentSink::end_array() { array_key_.clear(); }

JsonStreamSink::JsonStreamSink(std::ostream& out) : out_(out) { out_ << '{'; }

void JsonStreamSink::key(std::string_view name) {
  out_ << (first_member_ ? "\n  " : ",\n  ") << json_document(Json(std::string(name)), 2)
       << ": ";
  first_member_ = false;
}

void JsonStreamSink::member(std::string_view name, Json value) {
  replaced_ += replace_invalid_utf8(value);
  key(name);
  write_nested(out_, value, 1);
}

void JsonStreamSink::begin_array(std::string_view name) {
  key(name);
  out_ << '[';
  first_element_ = true;
}

void JsonStreamSink::element(Json value) {
  replaced_ += replace_invalid_utf8(value);
  out_ << (first_element_ ? "\n    " : ",\n    ");
  first_element_ = false;
  write_nested(out_, value, 2);
}

void JsonStreamSink::end_array() { out_ << (first_element_ ? "]" : "\n  ]"); }

void JsonStreamSink::finish() { out_ << (first_member_ ? "}" : "\n}"); }

}  // namespace uringscope
