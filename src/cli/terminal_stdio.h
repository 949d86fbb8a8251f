// SPDX-License-Identifier: MIT
// A command started under `uringscope top` shares the terminal top draws on: its output
// would write over the screen and its reads would take the keys. While this object
// lives, the standard fds that are that terminal point at /dev/null instead, so the
// command, forked meanwhile, inherits /dev/null there; a redirected fd (a pipe, a file)
// is left as it is. The destructor puts uringscope's own fds back.
#pragma once

#include <array>

#include "util/unique_fd.h"

namespace uringscope {

class TerminalStdioAway {
 public:
  TerminalStdioAway();
  ~TerminalStdioAway();
  TerminalStdioAway(const TerminalStdioAway&) = delete;
  TerminalStdioAway& operator=(const TerminalStdioAway&) = delete;

 private:
  void restore();
  std::array<UniqueFd, 3> saved_;  // a copy of fd 0, 1, 2 where it was moved away
};

}  // namespace uringscope
