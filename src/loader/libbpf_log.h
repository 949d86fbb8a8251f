// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace uringscope {

// libbpf reports through one process-wide print callback. We keep what it says, so a
// failed load can be summed up in one line, and echo it to stderr with -v.
void libbpf_log_install(bool verbose);
std::string libbpf_log_text();
void libbpf_log_clear();
// The most telling line of a failed load: the verifier's last complaint, or libbpf's
// own error, without the libbpf prefix.
std::string libbpf_log_summary();

}  // namespace uringscope
