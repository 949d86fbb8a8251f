// SPDX-License-Identifier: MIT
#pragma once

#include <signal.h>
#include <sys/signalfd.h>

#include <initializer_list>
#include <optional>

#include "util/unique_fd.h"

namespace uringscope {

// Blocks the given signals and delivers them through a signalfd instead, so the event
// loop handles them like any other fd. The previous mask comes back on destruction,
// except that SIGPIPE, when it is one of them, stays blocked.
class SignalChannel {
 public:
  explicit SignalChannel(std::initializer_list<int> signals);
  ~SignalChannel();
  SignalChannel(const SignalChannel&) = delete;
  SignalChannel& operator=(const SignalChannel&) = delete;

  int fd() const { return fd_.get(); }
  // The mask to give a child before exec (ours, minus what we blocked).
  const sigset_t& original_mask() const { return original_; }
  std::optional<signalfd_siginfo> read() const;

 private:
  sigset_t original_{};
  sigset_t blocked_{};
  UniqueFd fd_;
};

// A signal that the terminal sent to the whole foreground process group (Ctrl-C) was
// already delivered to the command too; one sent with kill() was not.
bool sent_by_terminal(const signalfd_siginfo& info);

// SIGPIPE: a write of ours found its pipe's reader gone. It ends the window, and is
// never passed on: the command has its own output to find closed.
bool our_output_closed(const signalfd_siginfo& info);

}  // namespace uringscope
