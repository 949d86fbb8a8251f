// SPDX-License-Identifier: MIT
#include "cli/snapshot_source.h"

#include <time.h>

#include <algorithm>

#include "os/ring_fds.h"
#include "os/system.h"
#include "snapshot/snapshot_builder.h"

namespace uringscope {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

SnapshotSource::SnapshotSource(const Tracer& tracer, KernelInfo kernel, TargetInfo target,
                               uint64_t start_ns, double leak_age_s)
    : tracer_(tracer), kernel_(std::move(kernel)), target_(std::move(target)),
      start_ns_(start_ns), leak_age_ns_(static_cast<uint64_t>(leak_age_s * 1e9)) {}

namespace {

std::vector<int> ring_fds_from_proc(const std::vector<Ring>& rings) {
  std::vector<RingFdQuery> queries;
  for (const Ring& ring : rings) {
    const bool own_process = ring.source != RingSource::CatchAll;
    queries.push_back({own_process ? ring.pid : 0, ring.fd, ring.sq_entries, ring.cq_entries});
  }
  return resolve_ring_fds_from_proc(queries);
}

}  // namespace

SnapshotContext SnapshotSource::context() const {
  const uint64_t now = monotonic_ns();
  return {.tool_version = URINGSCOPE_VERSION,
          .wall_ns = now - start_ns_,
          .ncpus = online_cpus(),
          .kernel = kernel_,
          .target = target_,
          .end_ns = now,
          .leak_age_ns = leak_age_ns_};
}

Snapshot SnapshotSource::take(bool with_leaks) const {
  return build_snapshot(tracer_.read_tables(with_leaks), context());
}

Snapshot SnapshotSource::take_final(std::function<HazardInfo(const std::vector<Ring>&)> hazards,
                                    std::vector<WaitingSample> waiting_samples) const {
  SnapshotContext final_context = context();
  final_context.ring_fds = ring_fds_from_proc;
  final_context.hazards = std::move(hazards);
  final_context.waiting_samples = std::move(waiting_samples);
  return build_snapshot(tracer_.read_tables(true), std::move(final_context));
}

void SnapshotSource::add_followed(const std::vector<uint32_t>& tgids) {
  add_followed_pids(target_, tgids);
}

}  // namespace uringscope
