// SPDX-License-Identifier: MIT
// ncurses stays in this file (and terminal_check.cpp): the rest of top never sees it.
#include "top/terminal.h"

#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "util/error.h"

// Without its macros ncurses names no erase() or move() that would shadow C++ members.
#define NCURSES_NOMACROS
#include <curses.h>

namespace uringscope::top {
namespace {

// What the crash handler needs, set up beforehand: it may not allocate or call ncurses.
int g_tty_fd = -1;
termios g_saved_modes{};
char g_leave[512];  // rmcup, cnorm, sgr0: out of the alternate screen, cursor back, plain
std::size_t g_leave_len = 0;

constexpr int kFatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_fatal_before[std::size(kFatal)];
// ncurses installs handlers of its own for these when they are at their default; they
// go back to what they were once the screen is given back.
constexpr int kCursesOwned[] = {SIGINT, SIGTERM, SIGTSTP, SIGWINCH};
struct sigaction g_curses_before[std::size(kCursesOwned)];

extern "C" void restore_and_die(int sig) {
  if (g_tty_fd >= 0) {
    ssize_t ignored = ::write(g_tty_fd, g_leave, g_leave_len);
    (void)ignored;
    ::tcsetattr(g_tty_fd, TCSAFLUSH, &g_saved_modes);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void remember_leave_sequence() {
  g_leave_len = 0;
  for (const char* cap : {"rmcup", "cnorm", "sgr0"}) {
    const char* seq = tigetstr(cap);
    if (!seq || seq == reinterpret_cast<const char*>(-1)) continue;
    const std::size_t n = std::strlen(seq);
    if (g_leave_len + n > sizeof g_leave) break;
    std::memcpy(g_leave + g_leave_len, seq, n);
    g_leave_len += n;
  }
}

void install_crash_restore(int fd) {
  g_tty_fd = fd;
  struct sigaction sa {};
  sa.sa_handler = restore_and_die;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (std::size_t i = 0; i < std::size(kFatal); ++i) ::sigaction(kFatal[i], &sa, &g_fatal_before[i]);
}

void remove_crash_restore() {
  for (std::size_t i = 0; i < std::size(kFatal); ++i) ::sigaction(kFatal[i], &g_fatal_before[i], nullptr);
  g_tty_fd = -1;
}

enum Pair : short { kFlameA = 1, kFlameB, kFlameSelected, kFlameMatch, kAlert, kMatch };

void start_colors() {
  start_color();
  use_default_colors();
  init_pair(kFlameA, COLOR_BLACK, COLOR_RED);
  init_pair(kFlameB, COLOR_BLACK, COLOR_YELLOW);
  init_pair(kFlameSelected, COLOR_WHITE, COLOR_BLUE);
  init_pair(kFlameMatch, COLOR_BLACK, COLOR_MAGENTA);
  init_pair(kAlert, COLOR_RED, -1);
  init_pair(kMatch, COLOR_YELLOW, -1);
}

attr_t attribute(Style style, bool colors) {
  const auto pair = [&](Pair p, attr_t without) { return colors ? COLOR_PAIR(p) : without; };
  switch (style) {
    case Style::Normal: return A_NORMAL;
    case Style::TabBar: case Style::Status: case Style::Cursor: return A_REVERSE;
    case Style::TabActive: case Style::Header: case Style::Prompt: return A_BOLD;
    case Style::HeaderSorted: return A_BOLD | A_UNDERLINE;
    case Style::Match: return A_BOLD | pair(kMatch, A_UNDERLINE);
    case Style::Alert: return pair(kAlert, A_BOLD);
    case Style::FlameA: return pair(kFlameA, A_REVERSE);
    case Style::FlameB: return pair(kFlameB, A_REVERSE);
    case Style::FlameSelected: return A_BOLD | pair(kFlameSelected, A_UNDERLINE);
    case Style::FlameMatch: return pair(kFlameMatch, A_REVERSE | A_UNDERLINE);
  }
  return A_NORMAL;
}

std::optional<Key> translate(int c) {
  switch (c) {
    case ERR: return std::nullopt;
    case KEY_UP: return Key{KeyCode::Up};
    case KEY_DOWN: return Key{KeyCode::Down};
    case KEY_LEFT: return Key{KeyCode::Left};
    case KEY_RIGHT: return Key{KeyCode::Right};
    case KEY_PPAGE: return Key{KeyCode::PageUp};
    case KEY_NPAGE: return Key{KeyCode::PageDown};
    case KEY_HOME: return Key{KeyCode::Home};
    case KEY_END: return Key{KeyCode::End};
    case KEY_ENTER: case '\n': case '\r': return Key{KeyCode::Enter};
    case 27: return Key{KeyCode::Escape};
    case KEY_BACKSPACE: case 127: case 8: return Key{KeyCode::Backspace};
    case '\t': return Key{KeyCode::Tab};
    case KEY_BTAB: return Key{KeyCode::BackTab};
    case KEY_RESIZE: return Key{KeyCode::Resize};
    case 12: return Key{KeyCode::Redraw};  // Ctrl-L
    default: break;
  }
  // Anything else the model does not know: a Char it ignores (0 is never typed text).
  return c >= 32 && c < 127 ? char_key(static_cast<char>(c)) : Key{KeyCode::Char, 0};
}

}  // namespace

Terminal::Terminal() {
  const int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Error(fmt::format("top: cannot open /dev/tty: {}", std::strerror(errno)));
  tty_ = ::fdopen(fd, "r+");
  if (!tty_) {
    ::close(fd);
    throw Error(fmt::format("top: cannot open /dev/tty: {}", std::strerror(errno)));
  }
  ::tcgetattr(fd, &g_saved_modes);
  for (std::size_t i = 0; i < std::size(kCursesOwned); ++i) ::sigaction(kCursesOwned[i], nullptr, &g_curses_before[i]);
  screen_ = newterm(nullptr, tty_, tty_);
  if (!screen_) {
    std::fclose(tty_);
    throw Error("top: ncurses cannot drive this terminal (TERM)");
  }
  set_term(screen_);
  remember_leave_sequence();
  install_crash_restore(fd);
  cbreak();  // Ctrl-C and Ctrl-Z keep their meaning: the run loop takes SIGINT
  noecho();
  nonl();
  intrflush(stdscr, FALSE);
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  leaveok(stdscr, TRUE);
  set_escdelay(25);  // Esc pops a filter: it must not wait a second for a sequence
  curs_set(0);
  colors_ = has_colors();
  if (colors_) start_colors();
}

Terminal::~Terminal() {
  endwin();
  delscreen(screen_);
  std::fclose(tty_);
  remove_crash_restore();
  for (std::size_t i = 0; i < std::size(kCursesOwned); ++i) ::sigaction(kCursesOwned[i], &g_curses_before[i], nullptr);
}

std::optional<Key> Terminal::read_key() { return translate(wgetch(stdscr)); }

std::size_t Terminal::width() const { return static_cast<std::size_t>(std::max(getmaxx(stdscr), 0)); }

std::size_t Terminal::height() const { return static_cast<std::size_t>(std::max(getmaxy(stdscr), 0)); }

void Terminal::redraw_all() { clearok(stdscr, TRUE); }

void Terminal::draw(const std::vector<ScreenLine>& lines) {
  const int rows = getmaxy(stdscr), cols = getmaxx(stdscr);
  for (int y = 0; y < rows && y < static_cast<int>(lines.size()); ++y) {
    const ScreenLine& line = lines[static_cast<std::size_t>(y)];
    const std::size_t n = std::min(line.text.size(), static_cast<std::size_t>(cols));
    std::vector<Style> style(n, Style::Normal);
    for (const Span& s : line.spans)
      for (std::size_t x = s.x; x < s.x + s.len && x < n; ++x) style[x] = s.style;
    wmove(stdscr, y, 0);
    for (std::size_t x = 0; x < n;) {
      std::size_t end = x;
      while (end < n && style[end] == style[x]) ++end;
      wattrset(stdscr, static_cast<int>(attribute(style[x], colors_)));
      waddnstr(stdscr, line.text.data() + x, static_cast<int>(end - x));
      x = end;
    }
    wattrset(stdscr, A_NORMAL);
    wclrtoeol(stdscr);
  }
  wnoutrefresh(stdscr);
  doupdate();
}

}  // namespace uringscope::top
