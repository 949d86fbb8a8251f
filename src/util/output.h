// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace uringscope {

// Replaces `path` with `content` all at once (temp file in the same directory, fsync,
// rename), so a reader never sees a half-written report, even if we are killed.
void write_file_atomic(const std::string& path, std::string_view content);
// The same with the content written by `write` as it is made (a report too large to
// hold in memory); nothing replaces `path` when it throws or a write fails.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace uringscope
