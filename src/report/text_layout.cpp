// SPDX-License-Identifier: MIT
#include "report/text_layout.h"

#include <algorithm>
#include <ostream>

#include "util/format.h"

namespace uringscope {
namespace {

void trim_right(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

std::size_t wrap_width(std::size_t indent) {
  return std::max(kMinWrapWidth, kTextLineWidth - std::min(kTextLineWidth, indent));
}

std::string marker_if(bool marked) { return marked ? std::string("<-- !") : std::string(); }

void write_wrapped(std::ostream& out, std::string_view lead, std::string_view hang,
                   std::string_view text) {
  std::vector<std::string> lines = wrap_words(text, wrap_width(hang.size()));
  if (lines.empty()) lines.emplace_back();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = std::string(i == 0 ? lead : hang) + lines[i];
    trim_right(line);
    out << line << '\n';
  }
}

void write_list(std::ostream& out, std::string_view indent, const std::string& lead,
                const std::vector<std::string>& items) {
  std::string line = std::string(indent) + lead;
  std::string hang(std::min(line.size(), kTextLineWidth - kMinWrapWidth), ' ');
  bool line_has_item = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (line_has_item && line.size() + 1 + piece.size() > kTextLineWidth) {
      out << line << '\n';
      line = hang;
      line_has_item = false;
    }
    if (line_has_item) line += ' ';
    line += piece;
    line_has_item = true;
  }
  trim_right(line);
  out << line << '\n';
}

}  // namespace uringscope
