// SPDX-License-Identifier: MIT
#include "loader/libbpf_log.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <sstream>
#include <vector>

namespace uringscope {
namespace {

std::string g_log;
bool g_verbose = false;

int capture(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  va_list copy;
  va_copy(copy, args);
  char buf[4096];
  int n = vsnprintf(buf, sizeof buf, format, copy);
  va_end(copy);
  if (n > 0) g_log.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
  if (g_verbose) return vfprintf(stderr, format, args);
  return 0;
}

std::string strip_prefix(std::string line) {
  const std::string prefix = "libbpf: ";
  if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
  return line;
}

}  // namespace

void libbpf_log_install(bool verbose) {
  g_verbose = verbose;
  libbpf_set_print(capture);
}

std::string libbpf_log_text() { return g_log; }

void libbpf_log_clear() { g_log.clear(); }

std::string libbpf_log_summary() {
  std::vector<std::string> lines;
  std::istringstream in(g_log);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  // A verifier log ends with "processed N insns ..." and "-- END PROG LOAD LOG --";
  // the complaint is the line just before the "processed" line.
  for (std::size_t i = lines.size(); i-- > 0;) {
    if (lines[i].rfind("processed ", 0) == 0 && i > 0) return strip_prefix(lines[i - 1]);
  }
  for (std::size_t i = lines.size(); i-- > 0;) {
    if (lines[i].find("END PROG LOAD LOG") == std::string::npos) return strip_prefix(lines[i]);
  }
  return {};
}

}  // namespace uringscope
