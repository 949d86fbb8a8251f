// SPDX-License-Identifier: MIT
#include "loader/libbpf_log.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "util/untrusted_text.h"

namespace uringscope {
namespace {

std::string g_log;
bool g_verbose = false;

// A message may quote a path a target chose (a library its maps name): -v prints it
// line by line in the visible form (util/untrusted_text.h).
void print_visible_lines(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    append_visible_text(out, std::string_view(text).substr(start, end - start));
    out += '\n';
  }
  append_visible_text(out, std::string_view(text).substr(start));
  std::fputs(out.c_str(), stderr);
}

int capture(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  va_list copy;
  va_copy(copy, args);
  char buf[4096];
  int n = vsnprintf(buf, sizeof buf, format, copy);
  va_end(copy);
  if (n <= 0) return n;
  std::string text(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
  if (static_cast<std::size_t>(n) >= sizeof buf) {  // longer than the buffer: format it whole
    text.resize(static_cast<std::size_t>(n) + 1);
    vsnprintf(text.data(), text.size(), format, args);
    text.resize(static_cast<std::size_t>(n));
  }
  g_log += text;
  if (g_verbose) print_visible_lines(text);
  return n;
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
