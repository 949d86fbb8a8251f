// SPDX-License-Identifier: MIT
#include "os/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "util/error.h"

namespace uringscope {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::optional<unsigned long> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long value = std::strtoul(text, &end, 10);
  if (errno || *end) return std::nullopt;
  return value;
}

// One line of /etc/passwd or /etc/group, split on ':'.
std::vector<std::string> colon_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = line.find(':', start);
    fields.push_back(line.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) return fields;
    start = colon + 1;
  }
}

// /etc/passwd and /etc/group are read directly instead of through getpwuid() and
// initgroups(): a static binary cannot load glibc's NSS modules. Users that exist only
// in a directory service (LDAP, SSSD) then keep just their primary group.
std::string user_name_of(uid_t uid) {
  std::ifstream passwd("/etc/passwd");
  for (std::string line; std::getline(passwd, line);) {
    auto f = colon_fields(line);
    if (f.size() >= 3 && f[2] == std::to_string(uid)) return f[0];
  }
  return {};
}

std::vector<gid_t> groups_of(const std::string& user, gid_t primary) {
  std::vector<gid_t> groups{primary};
  if (user.empty()) return groups;
  std::ifstream group("/etc/group");
  for (std::string line; std::getline(group, line);) {
    auto f = colon_fields(line);
    if (f.size() < 4) continue;
    std::size_t start = 0;
    const std::string& members = f[3];
    while (start <= members.size()) {
      std::size_t comma = members.find(',', start);
      if (members.substr(start, comma == std::string::npos ? std::string::npos : comma - start) == user) {
        groups.push_back(static_cast<gid_t>(std::strtoul(f[2].c_str(), nullptr, 10)));
        break;
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return groups;
}

// Tells the parent why the command could not start, then ends the child.
[[noreturn]] void child_fail(int report_fd, int err) {
  ssize_t ignored = write(report_fd, &err, sizeof err);
  (void)ignored;
  _exit(127);
}

// Only async-signal-safe calls between fork() and exec().
[[noreturn]] void child_main(char* const* argv, const Credentials& creds, const sigset_t& mask,
                             int go_fd, int report_fd) {
  char byte;
  // Blocks until the parent closes its end: attached, or giving up.
  if (read(go_fd, &byte, 1) != 1) _exit(127);
  close(go_fd);
  if (creds.drop) {
    if (setgroups(creds.groups.size(), creds.groups.data()) != 0 || setgid(creds.gid) != 0 ||
        setuid(creds.uid) != 0) {
      child_fail(report_fd, errno);
    }
  }
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  execvp(argv[0], argv);
  child_fail(report_fd, errno);
}

}  // namespace

UniqueFd pidfd_open(pid_t pid) {
  return UniqueFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
}

Credentials child_credentials(bool keep_root) {
  Credentials creds;
  if (keep_root || geteuid() != 0) return creds;
  auto uid = env_number("SUDO_UID");
  auto gid = env_number("SUDO_GID");
  if (!uid || !gid || *uid == 0) return creds;
  creds.drop = true;
  creds.uid = static_cast<uid_t>(*uid);
  creds.gid = static_cast<gid_t>(*gid);
  creds.user = user_name_of(creds.uid);
  creds.groups = groups_of(creds.user, creds.gid);
  return creds;
}

std::string resolve_command(const std::string& name) {
  if (name.empty()) throw Error("command not found: (empty)");
  if (name.find('/') != std::string::npos) {
    if (is_executable_file(name)) return name;
    throw Error(fmt::format("command not found: {} ({})", name,
                            access(name.c_str(), F_OK) == 0 ? "not an executable file"
                                                            : "no such file"));
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  throw Error(fmt::format("command not found: {}", name));
}

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

Child::Child(const std::vector<std::string>& argv, const Credentials& creds,
             const sigset_t& child_mask)
    : name_(argv.empty() ? "" : argv.front()) {
  int go[2], report[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
    throw Error(fmt::format("pipe: {}", strerror(errno)));
  }
  UniqueFd go_read(go[0]), report_write(report[1]);
  go_.reset(go[1]);
  report_.reset(report[0]);
  // Built before fork: the child may only make async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw Error(fmt::format("fork: {}", strerror(errno)));
  if (pid_ == 0) {
    go_.reset();
    report_.reset();
    child_main(args.data(), creds, child_mask, go_read.get(), report_write.get());
  }
  pidfd_ = pidfd_open(pid_);
  if (!pidfd_) throw Error(fmt::format("pidfd_open: {} (uringscope needs Linux 5.3+)", strerror(errno)));
}

Child::~Child() {
  // Once released the command is the user's: it outlives an uringscope that fails.
  if (status_ || pid_ <= 0 || released_) return;
  ::kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void Child::release() {
  char go = 1;
  if (write(go_.get(), &go, 1) != 1) throw Error(fmt::format("cannot start {}: {}", name_, strerror(errno)));
  go_.reset();
  released_ = true;
  int err = 0;
  ssize_t n;
  while ((n = read(report_.get(), &err, sizeof err)) < 0 && errno == EINTR) {
  }
  report_.reset();
  if (n == sizeof err) {
    reap(true);
    throw Error(fmt::format("cannot run {}: {}", name_, strerror(err)));
  }
}

std::optional<int> Child::reap(bool block) {
  if (status_) return status_;
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid_, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r == pid_) status_ = shell_status(status);
  return status_;
}

void Child::signal(int sig) const {
  if (!status_) ::kill(pid_, sig);
}

bool process_gone(pid_t tgid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", tgid));
  std::string line;
  if (!stat || !std::getline(stat, line)) return true;
  // The state follows the command, which may hold spaces and parentheses: after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  return state == 'Z' || state == 'X';
}

WatchedProcess watch_process(pid_t pid) {
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  if (!status) throw Error(fmt::format("no such process: {}", pid));
  WatchedProcess proc;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Name:", 0) == 0) {
      proc.comm = line.substr(line.find_first_not_of(" \t", 5));
    } else if (line.rfind("Tgid:", 0) == 0) {
      proc.tgid = static_cast<pid_t>(std::strtol(line.c_str() + 5, nullptr, 10));
    }
  }
  if (proc.tgid <= 0) throw Error(fmt::format("no such process: {}", pid));
  proc.pidfd = pidfd_open(proc.tgid);
  if (!proc.pidfd) {
    throw Error(errno == ESRCH ? fmt::format("no such process: {}", pid)
                               : fmt::format("cannot watch process {}: {}", pid, strerror(errno)));
  }
  return proc;
}

}  // namespace uringscope
