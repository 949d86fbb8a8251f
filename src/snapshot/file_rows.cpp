// SPDX-License-Identifier: MIT
#include "snapshot/file_rows.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>
#include <tuple>

namespace uringscope {
namespace {

// Filesystems whose files have no path: their names are made up, as /proc/PID/fd shows them.
constexpr uint32_t kAnonInodeFsMagic = 0x09041934;  // ANON_INODE_FS_MAGIC

FileKind kind_of(const us_file_name& n) {
  switch (n.mode & S_IFMT) {
    case S_IFSOCK: return FileKind::Socket;
    case S_IFIFO: return FileKind::Pipe;
    case S_IFCHR:
    case S_IFBLK: return FileKind::Device;
    case S_IFDIR: return FileKind::Directory;
    case S_IFREG: return n.magic == kAnonInodeFsMagic ? FileKind::AnonInode : FileKind::File;
    default: return n.magic == kAnonInodeFsMagic ? FileKind::AnonInode : FileKind::Other;
  }
}

// path[] holds the components leaf first, each NUL-terminated.
std::vector<std::string_view> components_of(const us_file_name& n) {
  std::vector<std::string_view> parts;
  std::size_t at = 0;
  for (uint16_t i = 0; i < n.components && at < sizeof n.path; ++i) {
    const std::size_t len = strnlen(n.path + at, sizeof n.path - at);
    parts.emplace_back(n.path + at, len);
    at += len + 1;
  }
  return parts;
}

std::string path_of(const us_file_name& n) {
  const auto parts = components_of(n);
  // A walk that stopped short (too deep, too long, unreadable) lacks the top of the path.
  std::string path = (n.flags & (US_FN_CUT | US_FN_UNREAD)) ? "..." : "";
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) path.append("/").append(*it);
  return path.empty() ? "/" : path;
}

std::string endpoint(uint16_t family, const uint8_t (&addr)[16], uint16_t port) {
  char text[INET6_ADDRSTRLEN] = "?";
  inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, addr, text, sizeof text);
  return family == AF_INET6 ? fmt::format("[{}]:{}", text, port) : fmt::format("{}:{}", text, port);
}

std::string socket_name(const us_file_name& n) {
  if (!(n.flags & US_FN_SOCKET)) return fmt::format("socket:[{}]", n.ino);
  if (n.family == AF_UNIX) return fmt::format("unix socket:[{}]", n.ino);
  if (n.family != AF_INET && n.family != AF_INET6)
    return fmt::format("socket:[{}] (family {})", n.ino, n.family);
  const std::string_view proto = n.protocol == IPPROTO_TCP   ? "tcp"
                                 : n.protocol == IPPROTO_UDP ? "udp"
                                                             : "ip";
  std::string name = fmt::format("{}{} {}", proto, n.family == AF_INET6 ? "6" : "",
                                 endpoint(n.family, n.laddr, n.lport));
  // A listening or unconnected socket has no peer.
  if (n.rport != 0) name += " -> " + endpoint(n.family, n.raddr, n.rport);
  return name;
}

std::string name_of(const us_file_name& n, FileKind kind) {
  const bool pseudo = n.flags & US_FN_PSEUDO;
  switch (kind) {
    case FileKind::Socket: return socket_name(n);
    case FileKind::Pipe:
      if (pseudo) return fmt::format("pipe:[{}]", n.ino);
      break;
    case FileKind::AnonInode: {
      const auto parts = components_of(n);
      return fmt::format("anon_inode:{}", parts.empty() ? std::string_view{"?"} : parts.front());
    }
    default: break;
  }
  if (pseudo) {
    const auto parts = components_of(n);
    return parts.empty() ? fmt::format("inode:[{}]", n.ino) : std::string(parts.front());
  }
  return path_of(n);
}

FileStats stats_of(const us_filestat& row) {
  const auto& c = row.counters;
  FileStats f;
  f.requests = c[US_FC_REQUESTS];
  f.cqes = c[US_FC_CQES];
  f.bytes = c[US_FC_BYTES];
  f.errors = c[US_FC_ERRORS];
  f.punted = c[US_FC_PUNTED];
  f.untracked = c[US_FC_UNTRACKED];
  f.direct = c[US_FC_DIRECT];
  f.poll_armed = c[US_FC_POLL_ARMED];
  static_assert(US_HIST_SLOTS == kHistBuckets);
  std::copy(std::begin(row.hist), std::end(row.hist), f.latency.buckets.begin());
  f.latency.sum_ns = c[US_FC_LAT_SUM_NS];
  f.latency.max_ns = c[US_FC_LAT_MAX_NS];
  return f;
}

}  // namespace

FileStats describe_file(const us_file_name* name, uint64_t ino) {
  FileStats f;
  f.ino = ino;
  if (!name || (name->components == 0 && !(name->flags & US_FN_SOCKET) &&
                (name->flags & US_FN_UNREAD))) {
    f.name = fmt::format("(unresolved: inode {})", ino);
    f.resolved = false;
    return f;
  }
  f.kind = kind_of(*name);
  f.name = name_of(*name, f.kind);
  return f;
}

std::string file_name_of(const FileNames& names, const us_file_id& id) {
  for (const auto& [known, name] : names) {
    if (known.inode == id.inode && known.ino == id.ino && known.gen == id.gen)
      return describe_file(&name, id.ino).name;
  }
  return describe_file(nullptr, id.ino).name;
}

std::map<uint32_t, std::vector<FileStats>> files_by_ring_row(const FileRows& rows,
                                                            const FileNames& names) {
  std::map<std::tuple<uint64_t, uint64_t, uint32_t>, const us_file_name*> name_of_id;
  for (const auto& [id, n] : names) name_of_id[{id.inode, id.ino, id.gen}] = &n;
  // One name per inode; rows of one file under different inodes (a recycled inode, or
  // a hard link) merge when their names agree.
  std::map<uint32_t, std::map<std::tuple<std::string, uint64_t, uint32_t>, FileStats>> merged;
  for (const auto& [key, row] : rows) {
    auto name = name_of_id.find({key.id.inode, key.id.ino, key.id.gen});
    FileStats f = describe_file(name == name_of_id.end() ? nullptr : name->second, key.id.ino);
    f.opcode = key.opcode;
    auto [it, fresh] = merged[key.ring].try_emplace({f.name, f.ino, key.opcode}, f);
    it->second += stats_of(row);
  }
  std::map<uint32_t, std::vector<FileStats>> by_ring;
  for (auto& [ring, files] : merged) {
    std::vector<FileStats>& out = by_ring[ring];
    for (auto& [key, f] : files) out.push_back(std::move(f));
    sort_files(out);
  }
  return by_ring;
}

void sort_files(std::vector<FileStats>& files) {
  std::sort(files.begin(), files.end(), [](const FileStats& a, const FileStats& b) {
    if (a.busy_ns() != b.busy_ns()) return a.busy_ns() > b.busy_ns();
    if (a.requests != b.requests) return a.requests > b.requests;
    return std::tie(a.name, a.opcode) < std::tie(b.name, b.opcode);
  });
}

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::File: return "file";
    case FileKind::Directory: return "directory";
    case FileKind::Socket: return "socket";
    case FileKind::Pipe: return "pipe";
    case FileKind::AnonInode: return "anon_inode";
    case FileKind::Device: return "device";
    case FileKind::Other: break;
  }
  return "other";
}

double FileStats::punt_pct() const {
  return requests ? 100.0 * static_cast<double>(punted) / static_cast<double>(requests) : 0.0;
}

FileStats& FileStats::operator+=(const FileStats& other) {
  requests += other.requests;
  cqes += other.cqes;
  bytes += other.bytes;
  errors += other.errors;
  punted += other.punted;
  poll_armed += other.poll_armed;
  untracked += other.untracked;
  direct += other.direct;
  latency += other.latency;
  return *this;
}

}  // namespace uringscope
