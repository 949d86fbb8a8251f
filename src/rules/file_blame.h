// SPDX-License-Identifier: MIT
// Which files are behind an op's punts or errors on a ring (Ring::files), for the
// findings that name them (PUNT, ERRORS).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope::rules {

struct FileBlame {
  struct Share {
    const FileStats* file;
    uint64_t count;  // of the counter asked about
  };
  std::vector<Share> top;  // largest count first, at most kFilesNamed
  uint64_t total = 0;      // that counter over every file row of the op
  std::size_t files = 0;   // file rows of the op with a nonzero count
  // Every file row of the op with a nonzero count was opened O_DIRECT for all of its
  // requests: a punt there is not the page cache's.
  bool all_direct = false;

  bool empty() const { return top.empty(); }
};

// Files named in a message: more are summed up as "and N more".
inline constexpr std::size_t kFilesNamed = 3;

// The rows of `opcode` on `ring` by `count` (&FileStats::punted, &FileStats::errors),
// only those of `kind` when one is given.
FileBlame blame_files(const Ring& ring, uint32_t opcode, uint64_t FileStats::*count,
                      std::optional<FileKind> kind = std::nullopt);

// " Most were on /db/data.0 (630 of 1,000 punted), /db/data.1 (200) and 3 more files." —
// a sentence to append, "" when no file row has any. `what` names the counter ("punted").
std::string blame_sentence(const FileBlame& blame, std::string_view what);

// `file` (the top file's name) and `file_pct` (its share of the counter), nothing when no
// file row has any.
void add_file_evidence(std::vector<Evidence>& out, const FileBlame& blame);

}  // namespace uringscope::rules
