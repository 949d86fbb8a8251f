// SPDX-License-Identifier: MIT
// The per-file rows of the kernel tables (bpf/files.bpf.h) as FileStats: named, merged
// per (name, inode, opcode), busiest first.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "uringscope/abi.h"
#include "uringscope/file_stats.h"

namespace uringscope {

using FileRows = std::vector<std::pair<us_file_key, us_filestat>>;
using FileNames = std::vector<std::pair<us_file_id, us_file_name>>;

// What the kernel recorded of a file, as a user reads it (name, kind, resolved). `name`
// is null when the name table had no row for the file.
FileStats describe_file(const us_file_name* name, uint64_t ino);

// The name of the file behind `id` as the files table writes it; "(unresolved: inode N)"
// when `names` has no row for it.
std::string file_name_of(const FileNames& names, const us_file_id& id);

// The rows of each ring row, named from `names`.
std::map<uint32_t, std::vector<FileStats>> files_by_ring_row(const FileRows& rows,
                                                            const FileNames& names);

// Busiest first: time in the file's requests, then requests, then name.
void sort_files(std::vector<FileStats>& files);

}  // namespace uringscope
