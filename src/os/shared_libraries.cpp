// SPDX-License-Identifier: MIT
#include "os/shared_libraries.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "util/strings.h"

namespace uringscope {

namespace {

#if defined(__x86_64__)
constexpr std::string_view kTriple = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr std::string_view kTriple = "aarch64-linux-gnu";
#else
constexpr std::string_view kTriple = "";
#endif

constexpr std::string_view kSoname = "liburing.so.2";

// The directories ld.so searches for a new command, in its order (ld.so.cache aside,
// which on Debian lists the same directories).
std::vector<std::string> library_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("LD_LIBRARY_PATH")) {
    for (const std::string& d : split(env, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* base : {"/lib/", "/usr/lib/", "/usr/local/lib/"})
    if (!kTriple.empty()) dirs.push_back(std::string(base) + std::string(kTriple));
  for (const char* d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"}) dirs.emplace_back(d);
  return dirs;
}

// Adds `path` unless it is missing or a file already in the list.
void add_unique(std::vector<std::string>& out, std::set<std::pair<dev_t, ino_t>>& seen,
                const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (seen.insert({st.st_dev, st.st_ino}).second) out.push_back(path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<std::string> liburing_in_maps(std::string_view maps) {
  std::vector<std::string> out;
  for (const std::string& line : split(maps, '\n')) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.ends_with(" (deleted)")) continue;  // replaced by an upgrade: not attachable
    const auto base = path.rfind('/');
    if (path.compare(base + 1, 11, "liburing.so") != 0) continue;
    bool known = false;
    for (const std::string& p : out) known |= p == path;
    if (!known) out.push_back(std::move(path));
  }
  return out;
}

std::vector<std::string> find_liburing(const std::vector<uint32_t>& pids) {
  std::vector<std::string> out;
  std::set<std::pair<dev_t, ino_t>> seen;
  for (uint32_t pid : pids) {
    const std::string proc = "/proc/" + std::to_string(pid);
    for (const std::string& path : liburing_in_maps(read_file(proc + "/maps"))) {
      struct stat here{}, there{};
      const std::string in_target = proc + "/root" + path;
      const bool same = stat(path.c_str(), &here) == 0 && stat(in_target.c_str(), &there) == 0 &&
                        here.st_dev == there.st_dev && here.st_ino == there.st_ino;
      add_unique(out, seen, same ? path : in_target);
    }
  }
  for (const std::string& dir : library_dirs()) add_unique(out, seen, dir + "/" + std::string(kSoname));
  return out;
}

}  // namespace uringscope
