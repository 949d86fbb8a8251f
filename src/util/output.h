// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace uringscope {

// Replaces `path` with `content` all at once (temp file in the same directory, fsync,
// rename), so a reader never sees a half-written report, even if we are killed.
void write_file_atomic(const std::string& path, std::string_view content);

}  // namespace uringscope
