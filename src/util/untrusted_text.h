// SPDX-License-Identifier: MIT
// The one rule for untrusted text. Command names, thread names, paths, socket
// descriptions, argv and everything read from a saved report are chosen by whoever ran
// the program (with -a, any user of the machine) and reach root's terminal, files and
// scrapes. Every output encodes them here, each in its own way, and never raw:
//
//   text (reports, -c, -i, diff, findings, stderr):  visible_text()
//   JSON documents:                                  json_document()   (util/json_text.h)
//   metrics labels, folded stacks, the SVG:          visible_text(), then their own syntax
//
// visible_text() escapes as `ls -b` and strace do, so the result is one line of
// printable text that maps back to exactly one input:
//   backslash                  \\                 (so that "\x1b" typed in a name stays
//                                                   distinguishable from an ESC byte)
//   LF, CR, TAB                \n  \r  \t
//   other C0 bytes, DEL        \xHH              (ESC is \x1b, BEL \x07)
//   a byte that starts no      \xHH              (0xFF is \xff)
//     valid UTF-8 sequence
//   C1 controls, line and      \uHHHH            (U+009B CSI, U+2028, U+202E RLO, ...):
//     paragraph separators,                       valid UTF-8, but a terminal may act on
//     bidirectional controls                      them or a reader be misled by them
// Everything else (printable ASCII, the rest of valid UTF-8) is kept as it is.
#pragma once

#include <string>
#include <string_view>

namespace uringscope {

std::string visible_text(std::string_view raw);
void append_visible_text(std::string& out, std::string_view raw);
// Whether `raw` is shown as it is (visible_text(raw) == raw), without building the copy.
bool is_visible_as_is(std::string_view raw);
// In place: the field of a display copy. Nearly every name is shown as it is, so the
// check comes first and the copy only when something needs escaping.
inline void make_visible(std::string& text) {
  if (!is_visible_as_is(text)) text = visible_text(text);
}

// The valid code points visible_text() writes as \uHHHH (C1 controls, U+2028, U+2029,
// the bidirectional controls). The JSON writer escapes the same set, so a JSON document
// printed to a terminal is as inert as the text report.
bool needs_unicode_escape(char32_t cp);

}  // namespace uringscope
