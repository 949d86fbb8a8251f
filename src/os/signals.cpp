// SPDX-License-Identifier: MIT
#include "os/signals.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace uringscope {

SignalChannel::SignalChannel(std::initializer_list<int> signals) {
  sigset_t& mask = blocked_;
  sigemptyset(&mask);
  for (int sig : signals) sigaddset(&mask, sig);
  if (sigprocmask(SIG_BLOCK, &mask, &original_) != 0) {
    throw Error(fmt::format("sigprocmask: {}", strerror(errno)));
  }
  fd_.reset(signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!fd_) {
    sigprocmask(SIG_SETMASK, &original_, nullptr);
    throw Error(fmt::format("signalfd: {}", strerror(errno)));
  }
}

SignalChannel::~SignalChannel() {
  fd_.reset();
  // Our output may be a pipe whose reader has gone (uringscope ... | head). SIGPIPE then
  // stays blocked to the end: a last write fails with EPIPE instead of killing us before
  // the cleanup that follows (detaching, unmounting tracefs), and one already pending is
  // never delivered.
  sigset_t restore = original_;
  if (sigismember(&blocked_, SIGPIPE)) sigaddset(&restore, SIGPIPE);
  sigprocmask(SIG_SETMASK, &restore, nullptr);
}

std::optional<signalfd_siginfo> SignalChannel::read() const {
  signalfd_siginfo info{};
  ssize_t n = ::read(fd_.get(), &info, sizeof info);
  if (n != static_cast<ssize_t>(sizeof info)) return std::nullopt;
  return info;
}

bool sent_by_terminal(const signalfd_siginfo& info) { return info.ssi_code == SI_KERNEL; }

bool our_output_closed(const signalfd_siginfo& info) { return info.ssi_signo == SIGPIPE; }

}  // namespace uringscope
