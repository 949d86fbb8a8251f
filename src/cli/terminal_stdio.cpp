// SPDX-License-Identifier: MIT
#include "cli/terminal_stdio.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "util/error.h"

namespace uringscope {

TerminalStdioAway::TerminalStdioAway() {
  UniqueFd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null) throw Error(fmt::format("/dev/null: {}", std::strerror(errno)));
  // What uringscope buffered for the terminal goes out before fd 1 and 2 move.
  std::cout.flush();
  std::cerr.flush();
  for (int fd = 0; fd < 3; ++fd) {
    if (!::isatty(fd)) continue;
    saved_[fd].reset(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
    if (!saved_[fd] || ::dup2(null.get(), fd) < 0) {
      const int err = errno;
      restore();  // no destructor runs for a constructor that throws
      throw Error(fmt::format("cannot keep the command off the terminal: {}", std::strerror(err)));
    }
  }
}

TerminalStdioAway::~TerminalStdioAway() { restore(); }

void TerminalStdioAway::restore() {
  for (int fd = 0; fd < 3; ++fd)
    if (saved_[fd]) ::dup2(saved_[fd].get(), fd);
}

}  // namespace uringscope
