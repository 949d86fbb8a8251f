// SPDX-License-Identifier: MIT
// Line layout shared by the text renderers (report, compact, diff): where prose wraps,
// how a wrapped paragraph or list hangs, and the marker that points at a finding.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// Prose (findings, notes, lists) wraps at this width, so a report reads in an 80-column
// terminal with room for a quoting prefix.
inline constexpr std::size_t kTextLineWidth = 76;
// Wrapping to a sliver of a line is worse than running past kTextLineWidth: text indented
// this close to the edge still gets this many columns.
inline constexpr std::size_t kMinWrapWidth = 30;

// The columns left for text that starts `indent` columns in.
std::size_t wrap_width(std::size_t indent);

// The note after a table row that a finding is about.
std::string marker_if(bool marked);

// `text` wrapped at wrap_width(hang.size()): the first line after `lead`, the others after
// `hang`, trailing blanks trimmed; `lead` alone when the text is blank.
void write_wrapped(std::ostream& out, std::string_view lead, std::string_view hang,
                   std::string_view text);

// `indent`, `lead` and then `items` joined by ", ", wrapped between items so that no
// count is separated from its label; continuation lines hang under the first item.
void write_list(std::ostream& out, std::string_view indent, const std::string& lead,
                const std::vector<std::string>& items);

}  // namespace uringscope
