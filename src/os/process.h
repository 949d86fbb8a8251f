// SPDX-License-Identifier: MIT
// The processes uringscope watches: a command it starts itself, or running pids.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "util/unique_fd.h"

namespace uringscope {

// Who the command runs as. Under sudo it is the invoking user (SUDO_UID/SUDO_GID), so
// files it creates are not root's, unless --keep-root.
struct Credentials {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;           // empty when not in /etc/passwd
  std::vector<gid_t> groups;  // primary first, then the supplementary ones
};
Credentials child_credentials(bool keep_root);

// Finds what execvp would run; throws Error("command not found: ...") otherwise.
std::string resolve_command(const std::string& name);

// Exit status as a shell reports it: the code, or 128 + signal.
int shell_status(int wait_status);

// A command started under the scope. It is forked at once but waits, before exec,
// until release(): uringscope attaches in between, so nothing the command does is missed.
class Child {
 public:
  // child_mask: the signal mask the command must start with (ours blocks the signals
  // we read through a signalfd).
  Child(const std::vector<std::string>& argv, const Credentials& creds, const sigset_t& child_mask);
  ~Child();  // a child that was never released is killed and reaped
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_.get(); }
  // Lets the child exec. Throws Error when the exec fails (the child has then exited).
  void release();
  // Reaps the child if it has exited (or waits when block); returns the shell status.
  std::optional<int> reap(bool block);
  void signal(int sig) const;
  bool exited() const { return status_.has_value(); }

 private:
  pid_t pid_ = -1;
  UniqueFd pidfd_;
  UniqueFd go_;      // write end: closing it releases the child
  UniqueFd report_;  // read end: the child writes errno here when exec fails
  std::optional<int> status_;
  bool released_ = false;
  std::string name_;
};

// A running process given with -p, pinned by a pidfd so that its exit is seen.
struct WatchedProcess {
  pid_t tgid = 0;
  std::string comm;
  UniqueFd pidfd;
};
// Accepts a thread id too (its thread group is watched). Throws Error when the process
// does not exist or cannot be watched.
WatchedProcess watch_process(pid_t pid);

UniqueFd pidfd_open(pid_t pid);

// Whether thread group `tgid` has exited: no such process, or a zombie (its files, rings
// among them, are closed by then).
bool process_gone(pid_t tgid);

}  // namespace uringscope
