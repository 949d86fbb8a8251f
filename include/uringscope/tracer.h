// SPDX-License-Identifier: MIT
// The BPF side's lifecycle: open the skeleton, switch on the variants the probe chose,
// size the tables, load (verifier), seed the target filter, find pre-existing rings,
// attach, and at the end copy the tables out. Every libbpf object is owned by RAII, so
// any exit path -- an exception included -- detaches and unloads everything.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "uringscope/probe.h"
#include "uringscope/raw_tables.h"

struct uringscope_bpf;
struct bpf_link;

namespace uringscope {

struct TableSizes {
  uint32_t max_rings = US_DEFAULT_MAX_RINGS;
  uint32_t max_opstats = US_DEFAULT_OPSTAT_SLOTS;
  uint32_t inflight_buckets = US_DEFAULT_INFLIGHT_BUCKETS;  // power of two
  uint32_t udata_slots = US_DEFAULT_UDATA_SLOTS;            // power of two
};

struct TracerConfig {
  bool filter_tgids = false;  // false: every process on the machine (-a)
  TableSizes sizes;
  uint32_t pid_max = 4194304;  // sizes the target bitmap
  uint64_t pidns_inode = 0;    // our pid namespace when not the initial one, else 0
};

// A program that loaded but would not attach: its feature is off for this run.
struct AttachFailure {
  std::string program;
  std::string feature;
  std::string error;
};

class Tracer {
 public:
  // Opens and loads; throws Error with the verifier's complaint on failure.
  Tracer(const KernelSupport& support, const TracerConfig& config);
  // Detaches and unloads, then waits (briefly) until the kernel has really freed our
  // programs: it does so asynchronously, and "uringscope exited" must mean "nothing of
  // ours is loaded" to anyone who checks with bpftool right after.
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  void add_target(uint32_t tgid);
  // Runs the fd-table iterator once, giving each ring the targets already own a row.
  // Returns false when the iterator could not run (the rings are then adopted at their
  // first submit instead, without fd).
  bool walk_ring_fds();
  // Attaches every loaded program. Submit and complete are required (throws Error);
  // any other program that fails is returned and its feature is off for the run.
  std::vector<AttachFailure> attach();
  std::size_t attached_count() const { return links_.size(); }
  // Detaches everything; the maps stay readable until the Tracer is destroyed.
  void detach();
  RawTables read_tables() const;

 private:
  struct SkeletonDeleter {
    void operator()(uringscope_bpf* skel) const;
  };
  struct LinkDeleter {
    void operator()(bpf_link* link) const;
  };

  std::unique_ptr<uringscope_bpf, SkeletonDeleter> skel_;
  std::vector<std::unique_ptr<bpf_link, LinkDeleter>> links_;
  std::vector<uint32_t> prog_ids_;  // to wait for the kernel to free them
  TracerConfig config_;
};

// The feature a BPF program serves (program names follow usc_<feature...>).
std::string feature_of_program(const std::string& program);

}  // namespace uringscope
