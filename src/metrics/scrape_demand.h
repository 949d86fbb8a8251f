// SPDX-License-Identifier: MIT
// Fresh numbers at every scrape, without letting scrapers drive the tracer.
//
// Threading: only the run loop may read the kernel tables (the tracer's bookkeeping of
// reclaimed ring rows changes under it between two of its own calls, so a read from the
// server thread could see half of a reclaim). So the server thread never reads: a scrape
// asks (ask()) and its connection waits, while the server goes on serving the others;
// the run loop, which polls wanted() every few tens of milliseconds, reads the tables
// once and hands the snapshot to every scrape that was waiting when that read began,
// and ready_fd() wakes the server. Reads are at least min_gap apart however many
// scrapers ask, so a crowd of scrapers costs at most one read per min_gap. A scrape
// waits at most max_wait: when the run loop is busy or the run is ending it gets the
// newest snapshot there is (a 503 if there is none yet, while uringscope attaches).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "uringscope/snapshot.h"
#include "util/unique_fd.h"

namespace uringscope {

class ScrapeDemand {
 public:
  using Clock = std::chrono::steady_clock;
  struct Limits {
    std::chrono::milliseconds min_gap{200};   // between two reads of the tables
    std::chrono::milliseconds max_wait{1000};  // the longest a scrape waits for one
  };

  explicit ScrapeDemand(Limits limits);
  ScrapeDemand() : ScrapeDemand(Limits{}) {}

  // Server thread: a scrape asks for a reading newer than now; its ticket.
  uint64_t ask();
  // Whether the ticket's reading is there (or no reading will come any more).
  bool answered(uint64_t ticket) const;
  // The newest snapshot; null before the first publish().
  std::shared_ptr<const Snapshot> latest() const;
  // Readable after each new snapshot and at close(); ready() empties it.
  int ready_fd() const { return ready_.get(); }
  void ready() const;
  std::chrono::milliseconds max_wait() const { return limits_.max_wait; }

  // Run loop: whether a scrape is waiting and the rate limit allows a read at `now`.
  bool wanted(Clock::time_point now) const;
  // Run loop: reads with `read` when wanted() and answers every scrape waiting when the
  // read began. Returns whether it read.
  bool serve(const std::function<Snapshot()>& read, Clock::time_point now = Clock::now());
  // A snapshot read without being asked for (the first, at attach).
  void publish(Snapshot snap);
  // The last reading of the run: served from now on, and nobody waits any more.
  void finish(Snapshot last);
  // No more readings will come (the run ends, or fails): every scrape is answered with
  // the newest snapshot at once.
  void close();

 private:
  void wake() const;

  Limits limits_;
  UniqueFd ready_;  // eventfd
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> latest_;
  uint64_t asked_ = 0;     // scrapes that asked so far (each takes the next number)
  uint64_t answered_ = 0;  // every scrape up to this number has a fresh snapshot
  Clock::time_point last_read_{};
  bool closed_ = false;
};

}  // namespace uringscope
