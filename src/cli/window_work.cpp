// SPDX-License-Identifier: MIT
#include "cli/window_work.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "cli/snapshot_source.h"
#include "os/process.h"
#include "trace/reorder.h"

namespace uringscope {
namespace {

// Ten drains a second of at most 100,000 records each: the writer turns that many into
// JSON in a fraction of the tenth of a second (docs/trace.md), and every record the ring
// buffer takes costs the traced CPU its copy. A faster producer fills the buffer, and its
// drops are counted.
constexpr uint64_t kDrainBudget = 100000;
// The writer must be able to hold one whole drain to put it in order (trace/reorder.h).
static_assert(kDrainBudget <= ReorderQueue::kMaxHeld);

// A record stamped before a drain began but staged after its CPU was flushed: a program
// that read the clock and was then interrupted by the flush. Microseconds in practice;
// a millisecond also covers a hypervisor pausing the vCPU briefly.
constexpr uint64_t kStagedLateNs = 1'000'000;

// How long the end of a run waits for rings whose owners have exited to finish their
// teardown: io_ring_exit_work waits for every request of the ring to end, which takes
// microseconds for a ring of NOPs and a few ticks of its 50 ms retry for one with
// requests to cancel; a ring passed to a process still alive never ends, hence a bound.
constexpr uint64_t kTeardownWaitNs = 1'000'000'000;

// Trace records carry the kernel table row of their ring; the report calls it by id. A
// row given back by a destroyed ring names every ring that held it, in order.
std::map<uint32_t, std::string> ring_track_names(const Snapshot& snap) {
  std::map<uint32_t, std::string> names;
  for (const Ring& ring : snap.rings) {
    std::string name =
        ring.source == RingSource::CatchAll
            ? std::string("other rings")
            : fmt::format("ring #{} fd={} ({} {})", ring.id, ring.fd >= 0 ? std::to_string(ring.fd) : "?",
                          ring.comm, ring.pid);
    std::string& track = names[ring.bpf_row];
    track = track.empty() ? std::move(name) : track + ", then " + name;
  }
  return names;
}

}  // namespace

WindowWork::WindowWork(const Options& opts, Tracer& tracer, std::optional<TraceWriter>& trace,
                       uint64_t start_ns)
    : tracer_(tracer), trace_(trace), start_ns_(start_ns),
      leak_age_ns_(static_cast<uint64_t>(opts.leak_age_s * 1e9)) {
  if (opts.check) hazards_.emplace(start_ns);
}

void WindowWork::sample_waiting(bool last) {
  const uint64_t now = monotonic_ns();
  const uint64_t n = tracer_.count_in_flight_since(now - std::min(now, leak_age_ns_));
  last ? waiting_.finish(now - start_ns_, n) : waiting_.offer(now - start_ns_, n);
}

void WindowWork::schedule(std::vector<PeriodicTask>& tasks) {
  if (trace_) tasks.push_back({0.1, [this] { drain_trace(kDrainBudget); }});
  if (hazards_) {
    tasks.push_back({0.1, [this] {
                       tracer_.drain_check([this](const us_check_event& e) { hazards_->add(e); },
                                           kDrainBudget);
                     }});
  }
  // Ten times a second: a program would have to open and close more than 10,000 rings
  // a second to use up the default 1,024 rows between two reclaims.
  tasks.push_back({0.1, [this] { tracer_.reclaim_rings(); }});
  // Four times a second (a scan of the in-flight table, 2 MiB by default): the LEAK rule
  // reads whether the set of long-waiting requests holds steady or keeps growing.
  tasks.push_back({0.25, [this] { sample_waiting(false); }});
}

void WindowWork::await_teardowns() {
  if (!tracer_.reclaims_rings()) return;
  // Only the rings found ending now: on a busy box new ones would keep the wait going.
  std::vector<Tracer::LiveRing> ending;
  for (const Tracer::LiveRing& ring : tracer_.live_rings()) {
    if (process_gone(static_cast<pid_t>(ring.tgid))) ending.push_back(ring);
  }
  const uint64_t until = monotonic_ns() + kTeardownWaitNs;
  while (!ending.empty() && monotonic_ns() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    tracer_.reclaim_rings();
    const std::vector<Tracer::LiveRing> live = tracer_.live_rings();
    std::erase_if(ending, [&](const Tracer::LiveRing& ring) {
      return std::find(live.begin(), live.end(), ring) == live.end();
    });
  }
}

void WindowWork::after_detach() {
  sample_waiting(true);
  tracer_.reclaim_rings();
  // Everything left, unbounded: the programs are detached, nothing more arrives.
  if (hazards_) tracer_.drain_check([this](const us_check_event& e) { hazards_->add(e); });
  if (trace_) drain_trace(UINT64_MAX);
}

void WindowWork::drain_trace(uint64_t budget) {
  const uint64_t began = monotonic_ns();  // bpf_ktime_get_ns()'s clock
  if (tracer_.drain_trace([this](const us_trace_event& e) { trace_->add(e); }, budget))
    trace_->delivered_before(began - std::min(began, kStagedLateNs));
}

std::function<HazardInfo(const std::vector<Ring>&)> WindowWork::hazards() const {
  if (!hazards_) return {};
  return [this](const std::vector<Ring>& rings) {
    return hazards_->result(rings, tracer_.read_file_names());
  };
}

void WindowWork::complete(const Snapshot& snap) {
  if (trace_) {
    trace_->set_dropped(snap.tool.trace_drops);
    trace_->finish(monotonic_ns(), ring_track_names(snap));
  }
}

}  // namespace uringscope
