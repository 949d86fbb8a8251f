// SPDX-License-Identifier: MIT
// The terminal `uringscope top` draws on, through ncurses: the controlling terminal
// (/dev/tty), so --json on stdout or a redirected stdout leave the screen alone. The
// screen is taken for as long as a Terminal lives, and given back by its destructor on
// every way out: q, the target exiting, Ctrl-C/SIGTERM/SIGHUP (they reach the run loop
// through its signalfd, so the stack unwinds normally), an exception. A crash (SIGSEGV,
// SIGABRT, SIGBUS, SIGFPE, SIGILL) cannot unwind: a handler then restores the terminal
// modes and leaves the alternate screen with async-signal-safe calls only, and dies of
// the same signal.
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <vector>

#include "top/keys.h"
#include "top/screen.h"

struct screen;  // ncurses' SCREEN

namespace uringscope::top {

class Terminal {
 public:
  // Throws Error with one line when there is nothing to draw on: no controlling
  // terminal, or a TERM that terminfo does not know. Call it before attaching anything.
  static void check_usable();

  Terminal();  // takes the screen: alternate screen, no echo, keys as they are typed
  ~Terminal(); // gives it back as it was
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  // The next key typed, without waiting; nullopt when none is.
  std::optional<Key> read_key();
  std::size_t width() const;
  std::size_t height() const;
  void draw(const std::vector<ScreenLine>& lines);
  void redraw_all();  // Ctrl-L: the next draw repaints every cell

 private:
  std::FILE* tty_ = nullptr;
  ::screen* screen_ = nullptr;
  bool colors_ = false;
};

}  // namespace uringscope::top
