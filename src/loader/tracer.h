// SPDX-License-Identifier: MIT
// The BPF side's lifecycle: open the skeleton, switch on the variants the probe chose,
// size the tables, load (verifier), seed the target filter, find pre-existing rings,
// attach, and at the end copy the tables out. Every libbpf object is owned by RAII, so
// any exit path -- an exception included -- detaches and unloads everything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "loader/load_outcome.h"
#include "os/libbpf_handles.h"
#include "loader/record_buffer.h"
#include "loader/ring_reclaim.h"
#include "probe/probe.h"
#include "snapshot/retired_store.h"
#include "uringscope/raw_tables.h"

struct uringscope_bpf;

namespace uringscope {

class LiburingProbes;

struct TableSizes {
  uint32_t max_rings = US_DEFAULT_MAX_RINGS;
  uint32_t max_opstats = US_DEFAULT_OPSTAT_SLOTS;
  uint32_t inflight_buckets = US_DEFAULT_INFLIGHT_BUCKETS;  // power of two
  uint32_t udata_slots = US_DEFAULT_UDATA_SLOTS;            // power of two
  uint32_t thread_entries = US_DEFAULT_THREAD_ENTRIES;      // io threads alive at once
  uint32_t file_rows = US_DEFAULT_FILE_ROWS;                // (ring, op, file) rows
  uint32_t file_names = US_DEFAULT_FILE_NAMES;              // files named, one per inode
};

struct TracerConfig {
  bool filter_tgids = false;  // false: every process on the machine (-a)
  TableSizes sizes;
  uint32_t pid_max = 4194304;  // sizes the target bitmap
  uint64_t pidns_inode = 0;    // our pid namespace when not the initial one, else 0
  bool trace = false;          // --trace: stream per-request records
  uint32_t trace_bytes = US_DEFAULT_TRACE_BYTES;  // ring buffer size, a power of two
  bool follow = false;         // -f: children forked by targets become targets
  bool check = false;          // --check: stream what requests target (hazard analysis)
  uint32_t check_bytes = US_DEFAULT_CHECK_BYTES;  // its ring buffer size, a power of two
  bool boundary = false;       // SQ wait, CQ depth and reap lag (bpf/boundary.bpf.h)
  bool liburing = false;       // --liburing: uprobes on a shared liburing (bpf/liburing.bpf.c)
  bool files = false;          // --files: per-file rows (bpf/files.bpf.h)
  FoldLimits folds;            // destroyed rings kept one by one, then folded (--rings)
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
  // The programs attached, by name (-v lists them; bench/'s limit takes the same hooks).
  const std::vector<std::string>& attached_programs() const { return attached_; }
  // How io_uring_enter is counted in this run, once attached: the fentry or the syscall
  // tracepoint, and why not the fentry. Empty when the feature is off.
  const std::string& enter_detail() const { return enter_detail_; }
  // Optional programs this kernel's verifier refused: they were left out of the load and
  // their features are off for the run.
  const std::vector<AttachFailure>& load_rejections() const { return rejections_; }
  // Once attached, with the boundary on: asks the kernel the CQE order the boundary needs
  // (loader/cqe_order.h). False with the boundary off or when it could not be learned: the
  // boundary is then not measured.
  bool learn_cqe_order();
  // Once attached, with --liburing: uprobes on the exported calls of each shared liburing
  // in `libraries` (loader/liburing_probes.h). Never throws.
  void attach_liburing(const std::vector<std::string>& libraries);
  // Detaches everything; the maps stay readable until the Tracer is destroyed.
  void detach();
  // A copy of the tables. The in-flight table (2 MiB by default) is only needed for the
  // leak scan at the end; periodic readers (live mode, metrics) skip it.
  RawTables read_tables(bool with_inflight = true) const;
  // The files named so far, one per inode (empty without --files).
  std::vector<std::pair<us_file_id, us_file_name>> read_file_names() const;
  // Gives the rows of rings destroyed since the last call back to the BPF side, keeping
  // their numbers for read_tables(). Returns how many; 0 when the feature is off.
  std::size_t reclaim_rings();
  // Whether destroyed rings are seen and reclaimed at all (the ring-exit hook attached).
  bool reclaims_rings() const { return reclaimer_ != nullptr; }
  // The rows held by live rings now (the catch-all row aside): row, ctx, owner.
  struct LiveRing {
    uint32_t row;
    uint64_t ctx;
    uint32_t tgid;
    bool operator==(const LiveRing&) const = default;
  };
  std::vector<LiveRing> live_rings() const;
  // Tracked requests in flight since before `before_ns` (bpf_ktime_get_ns() time), those
  // that post nothing on success (CQE_SKIP) aside, as the leak scan counts them.
  uint64_t count_in_flight_since(uint64_t before_ns) const;
  // Events the kernel ran none of our programs for (recursion misses, summed).
  uint64_t kernel_misses() const;
  // The thread groups that were targets: those the filter holds now, and with -f the
  // children that joined it, including those that have exited since.
  std::vector<uint32_t> target_tgids() const;
  // --trace: sends every CPU's staged records to the ring buffer, then hands the records
  // waiting there to `sink` (each CPU's in its order; CPUs interleave by batch), at most
  // `max_records` of them. The bound keeps a producer faster than the writer from holding
  // the run loop forever (the buffer then fills and drops are counted). True when every
  // record stamped before the call has been handed over (give or take the moment a
  // program was running: see WindowWork's margin).
  bool drain_trace(const std::function<void(const us_trace_event&)>& sink,
                   uint64_t max_records = UINT64_MAX);
  // --check: the same for the check records.
  void drain_check(const std::function<void(const us_check_event&)>& sink,
                   uint64_t max_records = UINT64_MAX);

 private:
  SkeletonPtr skel_;
  std::unique_ptr<RecordBuffer> trace_rb_;
  std::unique_ptr<RecordBuffer> check_rb_;
  std::vector<LinkPtr> links_;
  std::vector<std::string> attached_;
  // Runs usc_trace_flush on every CPU; false when one of them could not be flushed (its
  // stage stayed busy, or the run failed).
  bool flush_trace_stages();
  void load(const KernelSupport& support);
  // The program the next load leaves out after failing with `err`; throws when the run
  // cannot do without it.
  std::string program_to_leave_out(int err, const KernelSupport& support,
                                   const std::set<std::string>& left_out);
  void open_configured(const KernelSupport& support, const std::set<std::string>& left_out);
  std::vector<std::string> programs_to_load(const KernelSupport& support,
                                            const std::set<std::string>& left_out) const;
  void attach_tracepoints(bool catchers, bool enter_done, std::vector<AttachFailure>& failures);
  // Returns true when io_uring_enter is covered (or cannot be) without the tracepoint.
  bool attach_enter(std::vector<AttachFailure>& failures);

  std::unique_ptr<LiburingProbes> liburing_;  // with the boundary on, once attached
  std::unique_ptr<RingReclaimer> reclaimer_;  // when usc_ring_exit is loaded
  std::unique_ptr<MappedArray<us_inflight_bucket>> inflight_view_;  // for the sampler
  RetiredStore retired_;
  std::vector<uint32_t> prog_ids_;  // to wait for the kernel to free them
  std::vector<AttachFailure> rejections_;
  std::string enter_fallback_;  // why the fentry program was left out of the load
  std::string enter_detail_;
  TracerConfig config_;
};

}  // namespace uringscope
