// SPDX-License-Identifier: MIT
#include "os/ring_fds.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace uringscope {
namespace {

std::optional<uint32_t> hex_field(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string_view::npos) {
    if (at == 0 || text[at - 1] == '\n') break;
    at += key.size();
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t start = text.find("0x", at + key.size());
  if (start == std::string_view::npos) return std::nullopt;
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data() + start + 2, text.data() + text.size(), value, 16);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<RingFdinfo> ring_files_of(uint32_t pid) {
  std::vector<RingFdinfo> files;
  const std::filesystem::path fd_dir = fmt::format("/proc/{}/fd", pid);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(fd_dir, ec)) {
    std::error_code link_ec;
    auto target = std::filesystem::read_symlink(entry.path(), link_ec);
    if (link_ec || target.string() != "anon_inode:[io_uring]") continue;
    int fd = 0;
    const std::string name = entry.path().filename().string();
    if (std::from_chars(name.data(), name.data() + name.size(), fd).ec != std::errc()) continue;
    auto info = parse_ring_fdinfo(fd, read_all(fmt::format("/proc/{}/fdinfo/{}", pid, fd)));
    if (info) files.push_back(*info);
  }
  return files;
}

}  // namespace

std::optional<RingFdinfo> parse_ring_fdinfo(int fd, std::string_view text) {
  auto sq_mask = hex_field(text, "SqMask:");
  auto cq_mask = hex_field(text, "CqMask:");
  if (!sq_mask || !cq_mask) return std::nullopt;
  return RingFdinfo{fd, *sq_mask + 1, *cq_mask + 1};
}

std::vector<int> assign_ring_fds(const std::vector<RingFdQuery>& rings,
                                 const std::map<uint32_t, std::vector<RingFdinfo>>& files_by_pid) {
  std::vector<int> fds;
  for (const RingFdQuery& ring : rings) fds.push_back(ring.fd);
  for (std::size_t i = 0; i < rings.size(); ++i) {
    const RingFdQuery& ring = rings[i];
    if (fds[i] >= 0 || ring.pid == 0) continue;
    auto it = files_by_pid.find(ring.pid);
    if (it == files_by_pid.end()) continue;
    std::set<int> taken;
    for (std::size_t j = 0; j < rings.size(); ++j) {
      if (rings[j].pid == ring.pid && fds[j] >= 0) taken.insert(fds[j]);
    }
    std::optional<int> match;
    int matches = 0;
    for (const RingFdinfo& file : it->second) {
      if (taken.count(file.fd) || file.sq_entries != ring.sq_entries ||
          file.cq_entries != ring.cq_entries) {
        continue;
      }
      match = file.fd;
      ++matches;
    }
    if (matches == 1) fds[i] = *match;
  }
  return fds;
}

std::vector<int> resolve_ring_fds_from_proc(const std::vector<RingFdQuery>& rings) {
  std::map<uint32_t, std::vector<RingFdinfo>> files_by_pid;
  for (const RingFdQuery& ring : rings) {
    if (ring.fd < 0 && ring.pid && !files_by_pid.count(ring.pid)) {
      files_by_pid[ring.pid] = ring_files_of(ring.pid);
    }
  }
  return assign_ring_fds(rings, files_by_pid);
}

}  // namespace uringscope
