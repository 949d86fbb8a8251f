// SPDX-License-Identifier: MIT
#include "util/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "util/error.h"

namespace uringscope {
namespace {

using Json = nlohmann::json;

// Values quoted in messages are cut short: the message is one line, whatever the file.
constexpr std::size_t kQuoteLimit = 40;

// nlohmann reports the 1-based offset of the last character it read; line and column
// are counted the way its own messages count them (a newline starts column 0).
std::string position_of(std::string_view text, std::size_t byte) {
  std::string_view read = text.substr(0, std::min(byte, text.size()));
  std::size_t line = 1 + static_cast<std::size_t>(std::count(read.begin(), read.end(), '\n'));
  std::size_t last_newline = read.rfind('\n');
  std::size_t column = last_newline == std::string_view::npos ? byte : byte - (last_newline + 1);
  return fmt::format("line {}, column {}", line, column);
}

}  // namespace

std::string json_member_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string json_element_path(const std::string& parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string json_quote(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() <= kQuoteLimit) return text;
  // Cut before a continuation byte's character, never inside it: the message goes to
  // a terminal and must stay valid UTF-8.
  std::size_t cut = kQuoteLimit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string json_describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    case Json::value_t::number_unsigned: return "an unsigned integer";
    // The parser stores every non-negative integer as unsigned; a value built in code
    // may still hold one as signed.
    case Json::value_t::number_integer:
      return value.get<int64_t>() < 0 ? "a negative integer" : "an unsigned integer";
    case Json::value_t::number_float: return "a floating-point number";
    case Json::value_t::binary: return "binary data";
    case Json::value_t::discarded: break;
  }
  return "no value";
}

bool json_nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string json_error_text(const char* what) {
  std::string text = what;
  std::size_t end = text.find("] ");
  if (text.rfind("[json.exception.", 0) == 0 && end != std::string::npos) text.erase(0, end + 2);
  if (text.size() > 2 * kQuoteLimit) text = text.substr(0, 2 * kQuoteLimit) + "...";
  return text;
}

void JsonReader::fail(const std::string& problem) const { throw Error(source_ + ": " + problem); }

void JsonReader::wrong_type(const Json& value, const std::string& path,
                            std::string_view expected) const {
  fail(fmt::format("wrong-typed field {} ({}, expected {})", path, json_describe(value), expected));
}

void JsonReader::out_of_range(const Json& value, const std::string& path,
                              std::string_view expected) const {
  fail(fmt::format("field {} out of range ({}, expected {})", path, json_quote(value), expected));
}

Json JsonReader::parse(std::string_view text) const {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    fail("not JSON (" + position_of(text, e.byte) + ")");
  } catch (const Json::exception& e) {
    fail("unreadable JSON (" + json_error_text(e.what()) + ")");
  }
}

const Json* JsonReader::find(const Json& object, std::string_view key) const {
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

const Json& JsonReader::member(const Json& object, std::string_view key,
                               const std::string& path) const {
  const Json* value = find(object, key);
  if (value == nullptr) fail("missing field " + path);
  return *value;
}

const Json& JsonReader::object(const Json& value, const std::string& path) const {
  if (!value.is_object()) wrong_type(value, path, "an object");
  return value;
}

const Json& JsonReader::array(const Json& value, const std::string& path) const {
  if (!value.is_array()) wrong_type(value, path, "an array");
  return value;
}

std::string JsonReader::string(const Json& value, const std::string& path) const {
  if (!value.is_string()) wrong_type(value, path, "a string");
  return value.get<std::string>();
}

uint64_t JsonReader::uint(const Json& value, const std::string& path) const {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  // A document built in code rather than parsed may hold a non-negative signed value.
  if (value.is_number_integer() && value.get<int64_t>() >= 0)
    return static_cast<uint64_t>(value.get<int64_t>());
  wrong_type(value, path, "an unsigned integer");
}

uint32_t JsonReader::uint32(const Json& value, const std::string& path) const {
  uint64_t n = uint(value, path);
  if (n > std::numeric_limits<uint32_t>::max())
    out_of_range(value, path, fmt::format("at most {}", std::numeric_limits<uint32_t>::max()));
  return static_cast<uint32_t>(n);
}

double JsonReader::non_negative(const Json& value, const std::string& path) const {
  if (!value.is_number()) wrong_type(value, path, "a number");
  double x = value.get<double>();
  // The parser refuses non-finite numbers; the check keeps this true for any document.
  if (!(x >= 0.0) || x > std::numeric_limits<double>::max())
    out_of_range(value, path, "a finite number >= 0");
  return x;
}

uint64_t JsonReader::uint_at(const Json& object, std::string_view key,
                             const std::string& parent) const {
  std::string path = json_member_path(parent, key);
  return uint(member(object, key, path), path);
}

uint32_t JsonReader::uint32_at(const Json& object, std::string_view key,
                               const std::string& parent) const {
  std::string path = json_member_path(parent, key);
  return uint32(member(object, key, path), path);
}

std::string JsonReader::string_at(const Json& object, std::string_view key,
                                  const std::string& parent) const {
  std::string path = json_member_path(parent, key);
  return string(member(object, key, path), path);
}

}  // namespace uringscope
