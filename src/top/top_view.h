// SPDX-License-Identifier: MIT
// `uringscope top` while the run observes: the model fed with readings on the interval
// and with keys as they come, drawn on the terminal. The run loop calls tick() every
// interval and poll_keys() a few times a tenth of a second (os/window.h runs both);
// neither ever blocks.
#pragma once

#include <exception>
#include <functional>

#include "top/model.h"
#include "top/terminal.h"
#include "uringscope/snapshot.h"

namespace uringscope::top {

// Thrown out of poll_keys() when the user quits: it leaves the run loop, whose tasks
// have no other way to end the window; the run then goes on as when -d expires.
class QuitRequested : public std::exception {
 public:
  const char* what() const noexcept override { return "quit from top"; }
};

class TopView {
 public:
  using Reader = std::function<Snapshot()>;
  // Takes the first reading (the baseline), then the screen.
  TopView(const TopSettings& settings, Reader read);
  void tick();       // a new reading, drawn unless paused
  void poll_keys();  // every key typed so far; throws QuitRequested on q

 private:
  void draw();

  Reader read_;
  TopModel model_;
  Terminal terminal_;  // last: the screen is taken once everything else is ready
};

}  // namespace uringscope::top
