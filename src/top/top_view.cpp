// SPDX-License-Identifier: MIT
#include "top/top_view.h"

#include <utility>

namespace uringscope::top {

TopView::TopView(const TopSettings& settings, Reader read)
    : read_(std::move(read)), model_(settings) {
  model_.on_reading(read_());
  draw();
}

void TopView::tick() {
  model_.on_reading(read_());
  draw();
}

void TopView::poll_keys() {
  bool changed = false;
  while (const std::optional<Key> key = terminal_.read_key()) {
    if (key->code == KeyCode::Redraw) terminal_.redraw_all();
    if (!model_.on_key(*key)) throw QuitRequested();
    changed = true;
  }
  if (changed) draw();
}

void TopView::draw() {
  // The size is asked at every draw: a resize shows as KEY_RESIZE, but only once ncurses
  // has read it, and nothing is lost by asking.
  if (terminal_.width() != model_.width() || terminal_.height() != model_.height())
    model_.set_size(terminal_.width(), terminal_.height());
  terminal_.draw(compose(model_));
}

}  // namespace uringscope::top
