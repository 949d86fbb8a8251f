// SPDX-License-Identifier: MIT
// Whether `top` has a terminal to draw on, asked before anything is attached. Apart from
// terminal.cpp because term.h defines macros (lines, columns, ...) nothing else may see.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "top/terminal.h"
#include "util/error.h"
#include "util/unique_fd.h"

#define NCURSES_NOMACROS
#include <curses.h>
#include <term.h>

namespace uringscope::top {

void Terminal::check_usable() {
  UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
  if (!tty) {
    throw Error(fmt::format("top needs a terminal and this run has none (/dev/tty: {}); "
                            "-i SECONDS prints a live view in lines instead",
                            std::strerror(errno)));
  }
  const char* term = std::getenv("TERM");
  if (!term || !*term || std::strcmp(term, "dumb") == 0) {
    throw Error("top needs a terminal type that can move the cursor: set TERM (e.g. TERM=xterm)");
  }
  int err = 0;
  if (setupterm(term, tty.get(), &err) != OK) {
    throw Error(fmt::format("top cannot drive terminal type '{}': terminfo has no entry for it",
                            term));
  }
  // Only a question: newterm() sets the terminal up again when the screen is taken.
  del_curterm(cur_term);
}

}  // namespace uringscope::top
