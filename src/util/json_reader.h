// SPDX-License-Identifier: MIT
// Checked reading of a JSON document that is user input. nlohmann::json parses it; this
// adds what its get<>() does not give: every access checks presence and type first, and
// every problem is one uringscope::Error line naming the source and the field's path
// ("b.json: missing field ops[0].p99_ns"), never nlohmann's own exception text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace uringscope {

// Paths as messages spell them: "ops", "ops[0]", "ops[0].p99_ns".
std::string json_member_path(const std::string& parent, std::string_view key);
std::string json_element_path(const std::string& parent, std::size_t index);

// A value as messages quote it: its JSON text, cut short so that a message stays one line.
std::string json_quote(const nlohmann::json& value);
// "a string", "an unsigned integer", ...: what a value is, for "expected ..." messages.
std::string json_describe(const nlohmann::json& value);

// Nesting depth of the brackets outside strings exceeds `limit`. A lexical scan, meant to
// run before parsing (so malformed text may miscount; the parser rejects that text anyway):
// nlohmann copies and compares documents recursively, so a hostile file must be stopped
// before it can reach code that would overflow the stack on it.
bool json_nests_deeper_than(std::string_view text, int limit);

class JsonReader {
 public:
  using Json = nlohmann::json;

  explicit JsonReader(const std::string& source) : source_(source) {}

  // "<source>: <problem>".
  [[noreturn]] void fail(const std::string& problem) const;
  [[noreturn]] void wrong_type(const Json& value, const std::string& path,
                               std::string_view expected) const;
  [[noreturn]] void out_of_range(const Json& value, const std::string& path,
                                 std::string_view expected) const;

  // Parses text: "not JSON (line L, column C)" for a syntax error, "unreadable JSON (...)"
  // for valid grammar the parser still cannot hold (such as 1e400).
  Json parse(std::string_view text) const;

  // `object` must be an object (callers get it from object()).
  const Json* find(const Json& object, std::string_view key) const;
  const Json& member(const Json& object, std::string_view key, const std::string& path) const;

  const Json& object(const Json& value, const std::string& path) const;
  const Json& array(const Json& value, const std::string& path) const;
  std::string string(const Json& value, const std::string& path) const;
  uint64_t uint(const Json& value, const std::string& path) const;
  uint32_t uint32(const Json& value, const std::string& path) const;
  double non_negative(const Json& value, const std::string& path) const;  // finite, >= 0

  // Named members of an object, each checked.
  uint64_t uint_at(const Json& object, std::string_view key, const std::string& parent) const;
  uint32_t uint32_at(const Json& object, std::string_view key, const std::string& parent) const;
  std::string string_at(const Json& object, std::string_view key, const std::string& parent) const;

 private:
  const std::string& source_;
};

// The part of an nlohmann message after its "[json.exception.x.n] " prefix, cut short.
std::string json_error_text(const char* what);

}  // namespace uringscope
