// SPDX-License-Identifier: MIT
#include "metrics/scrape_demand.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "util/error.h"

namespace uringscope {

ScrapeDemand::ScrapeDemand(Limits limits)
    : limits_(limits), ready_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!ready_) throw Error(fmt::format("metrics: eventfd: {}", std::strerror(errno)));
}

uint64_t ScrapeDemand::ask() {
  std::lock_guard lock(mutex_);
  return ++asked_;
}

bool ScrapeDemand::answered(uint64_t ticket) const {
  std::lock_guard lock(mutex_);
  // A scrape that comes before the first snapshot (while uringscope attaches, or in the
  // moment between "attached" and the first reading) waits for it like any other; only
  // when max_wait passes without one does it get its 503.
  return answered_ >= ticket || closed_;
}

std::shared_ptr<const Snapshot> ScrapeDemand::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void ScrapeDemand::wake() const {
  const uint64_t one = 1;
  // Only a counter overflow could fail it, and then the fd is readable anyway.
  [[maybe_unused]] ssize_t n = ::write(ready_.get(), &one, sizeof one);
}

void ScrapeDemand::ready() const {
  uint64_t count;
  [[maybe_unused]] ssize_t n = ::read(ready_.get(), &count, sizeof count);
}

bool ScrapeDemand::wanted(Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  return !closed_ && asked_ > answered_ && now - last_read_ >= limits_.min_gap;
}

bool ScrapeDemand::serve(const std::function<Snapshot()>& read, Clock::time_point now) {
  uint64_t covers = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || asked_ <= answered_ || now - last_read_ < limits_.min_gap) return false;
    // Scrapes that ask while the tables are being read wait for the next read: this
    // one may already have passed the rows that changed before they asked.
    covers = asked_;
    last_read_ = now;
  }
  // Outside the lock: the server thread keeps taking requests while the tables are read.
  auto snap = std::make_shared<const Snapshot>(read());
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(snap);
    answered_ = std::max(answered_, covers);
  }
  wake();
  return true;
}

void ScrapeDemand::publish(Snapshot snap) {
  auto fresh_snap = std::make_shared<const Snapshot>(std::move(snap));
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(fresh_snap);
  }
  wake();
}

void ScrapeDemand::finish(Snapshot last) {
  publish(std::move(last));
  close();
}

void ScrapeDemand::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  wake();
}

}  // namespace uringscope
