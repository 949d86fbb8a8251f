// SPDX-License-Identifier: MIT
// Records reach the ring buffer out of timestamp order: each CPU stages its records and
// sends them in batches, so one CPU's records can come after later ones of another (by
// up to the time between drains, for a CPU that went idle). A SUBMIT overtaken by its own
// CQE would lose its request, so records are held here and released in timestamp order
// once the drain says every record before some time has arrived (release_before), or
// when too many are held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "uringscope/abi.h"

namespace uringscope {

class ReorderQueue {
 public:
  // Held records are what arrived since the last release: one drain's worth, since a CPU
  // that went quiet sends what it staged only when the next drain flushes it, and that
  // record may be older than everything else the drain brought. So the bound is at least
  // what a drain may bring (the cli's drain budget asserts it): below that, a busy but
  // not saturated run (a program at 100,000 requests a second sends 20,000 records a
  // drain) forced out records that an idle CPU's older ones then followed, written late,
  // and a SUBMIT overtaken by its own CQE lost its request. An 88-byte slot each: at most
  // 11.5 MiB, reached only when the drain is saturated. Past it, the oldest go out and a
  // later-arriving older record is written late (counted, docs/trace.md).
  static constexpr std::size_t kMaxHeld = 131072;

  ReorderQueue();

  void push(const us_trace_event& e);
  // Every record stamped before `ts` has been pushed: those may go.
  void release_before(uint64_t ts);
  // Whether the oldest held record is due: before the release time, or over the count
  // bound.
  bool due() const;
  // The oldest held record (ties in arrival order); the queue must not be empty.
  us_trace_event pop();
  bool empty() const { return held_ == 0; }
  std::size_t size() const { return held_; }

 private:
  // A batch arrives already in order, so records are kept as runs (each in order, linked
  // through their slots) and the runs are merged: the heap holds one key per run, a few
  // hundred that stay in cache, where a key per record made a heap 16k deep whose pops
  // were a tenth of the writer's time. The merge gives exactly the (ts, arrival) order.
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Slot {
    us_trace_event e;
    uint64_t seq;   // arrival order: breaks timestamp ties the way the ring buffer did
    uint32_t next;  // the run's next slot, or kNone
  };
  struct Run {
    uint32_t head, tail;
  };
  struct Head {  // a run's first record
    uint64_t ts;
    uint64_t seq;
    uint32_t run;
  };
  struct Later {
    bool operator()(const Head& a, const Head& b) const {
      return a.ts != b.ts ? a.ts > b.ts : a.seq > b.seq;
    }
  };

  std::vector<Head> heads_;  // min-heap on (ts, seq)
  std::vector<Run> runs_;
  std::vector<uint32_t> free_runs_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint32_t open_run_ = kNone;  // the run the next record extends if it is not older
  std::size_t held_ = 0;
  uint64_t seq_ = 0;
  uint64_t release_before_ = 0;
};

}  // namespace uringscope
