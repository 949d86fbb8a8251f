// SPDX-License-Identifier: MIT
// Per-file attribution: what one file saw of one opcode on one ring, as counted at the
// CQEs of requests that carried it (bpf/files.bpf.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "uringscope/histogram.h"

namespace uringscope {

// From the inode's mode and its filesystem: what a user would call the thing behind the fd.
enum class FileKind { File, Directory, Socket, Pipe, AnonInode, Device, Other };
std::string_view file_kind_name(FileKind kind);  // JSON "kind": file, socket, pipe, ...

struct FileStats {
  // A path as the process saw it, "tcp 10.0.0.1:5432 -> 10.0.0.2:40122", "pipe:[123]",
  // "anon_inode:[eventfd]"; "(unresolved: inode N)" when the kernel recorded no name.
  std::string name;
  FileKind kind = FileKind::Other;
  uint64_t ino = 0;
  bool resolved = true;     // false: the name table was full or no component was readable
  uint32_t opcode = 0;
  uint64_t requests = 0;    // requests ended (their final CQE)
  uint64_t cqes = 0;        // every CQE, multishot intermediates included
  uint64_t bytes = 0;       // positive results of ops that move data
  uint64_t errors = 0;      // CQEs with res < 0, -EAGAIN excluded
  uint64_t punted = 0;      // requests ended that went to io-wq
  uint64_t untracked = 0;   // requests ended that were never seen submitted (no latency)
  uint64_t direct = 0;      // requests ended whose file was opened O_DIRECT
  uint64_t poll_armed = 0;  // times a request found the file not ready and armed poll
  Histogram latency;        // submit -> final CQE of the tracked requests

  double punt_pct() const;  // punted / requests, 0 with no request
  // Time spent in this file's requests: the order of the per-file tables.
  uint64_t busy_ns() const { return latency.sum_ns; }
  FileStats& operator+=(const FileStats& other);  // same file and opcode, other rows
  bool operator==(const FileStats&) const = default;
};

}  // namespace uringscope
