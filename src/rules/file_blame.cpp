// SPDX-License-Identifier: MIT
#include "rules/file_blame.h"

#include <algorithm>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

FileBlame blame_files(const Ring& ring, uint32_t opcode, uint64_t FileStats::*count,
                      std::optional<FileKind> kind) {
  FileBlame blame;
  std::vector<FileBlame::Share> shares;
  bool all_direct = true;
  for (const FileStats& f : ring.files) {
    if (f.opcode != opcode || f.*count == 0 || (kind && f.kind != *kind)) continue;
    shares.push_back({&f, f.*count});
    blame.total += f.*count;
    all_direct = all_direct && f.requests > 0 && f.direct == f.requests;
  }
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });
  blame.files = shares.size();
  blame.all_direct = !shares.empty() && all_direct;
  if (shares.size() > kFilesNamed) shares.resize(kFilesNamed);
  blame.top = std::move(shares);
  return blame;
}

std::string blame_sentence(const FileBlame& blame, std::string_view what) {
  if (blame.empty()) return {};
  const auto& first = blame.top.front();
  if (blame.files == 1) return fmt::format(" All on {}.", first.file->name);
  std::string text = fmt::format(" Most on {} ({} of {} {})", first.file->name,
                                 format_count(first.count), format_count(blame.total), what);
  for (std::size_t i = 1; i < blame.top.size(); ++i)
    text += fmt::format(", {} ({})", blame.top[i].file->name, format_count(blame.top[i].count));
  if (blame.files > blame.top.size())
    text += fmt::format(" and {} more files", format_count(blame.files - blame.top.size()));
  return text + ".";
}

void add_file_evidence(std::vector<Evidence>& out, const FileBlame& blame) {
  if (blame.empty()) return;
  out.push_back(text_evidence("file", blame.top.front().file->name));
  out.push_back(real_evidence("file_pct", pct_of(blame.top.front().count, blame.total)));
}

}  // namespace uringscope::rules
