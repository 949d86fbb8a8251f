// SPDX-License-Identifier: MIT
// How every JSON document uringscope writes (the report, the baseline, --version --json,
// --list-ops --json) turns into bytes, so that untrusted text (util/untrusted_text.h)
// can neither make the document invalid nor act on the terminal it is printed to.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace uringscope {

// Replaces, in every string value and key of `doc`, each byte that starts no valid UTF-8
// sequence with U+FFFD; returns how many strings it changed. Strict readers reject such
// bytes, and nlohmann's dump() throws on them.
std::size_t replace_invalid_utf8(nlohmann::ordered_json& doc);

// `doc` as text (pretty-printed with `indent` spaces, compact when negative). Never throws
// on its strings: bytes still not UTF-8 become U+FFFD, and DEL and the code points
// visible_text() escapes are written as \uHHHH escapes (the same string to any reader).
std::string json_document(const nlohmann::ordered_json& doc, int indent = 2);

}  // namespace uringscope
