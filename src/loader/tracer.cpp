// SPDX-License-Identifier: MIT
#include "loader/tracer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <thread>

#include "util/error.h"
#include "loader/cqe_order.h"
#include "loader/libbpf_log.h"
#include "loader/liburing_probes.h"
#include "loader/map_copy.h"
#include "loader/record_buffer.h"
#include "loader/trace_batch.h"
#include "probe/probe.h"
#include "util/unique_fd.h"
#include "uringscope_bpf.skel.h"

namespace uringscope {
namespace {

bool is_power_of_two(uint32_t v) { return v && !(v & (v - 1)); }

void set_entries(bpf_map* map, uint32_t entries) {
  if (int err = bpf_map__set_max_entries(map, entries); err) {
    throw Error(fmt::format("cannot size BPF map {}: {}", bpf_map__name(map), strerror(-err)));
  }
}

constexpr const char* kEnterFentry = "usc_enter_fentry";
constexpr const char* kAuxFentry = "usc_aux_req";
constexpr const char* kEnterTracepoint = "usc_enter";
// Not a tracepoint's: run on each CPU by drain_trace(), loaded with --trace.
constexpr const char* kTraceFlush = "usc_trace_flush";
// The teardown's end gives a ring's row back; its start counts the CQEs the ring's
// program never reaped, from the boundary's state.
constexpr const char* kRingExit = "usc_ring_exit";
constexpr const char* kRingTeardown = "usc_ring_teardown";

bool wants(const KernelSupport& support, const std::string& program) {
  return std::find(support.programs.begin(), support.programs.end(), program) !=
         support.programs.end();
}

// The program a failed load names: libbpf says "prog 'usc_x': BPF program load failed".
std::string rejected_program(const std::string& log) {
  const std::string marker = "prog '";
  for (std::size_t at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1)) {
    const std::size_t end = log.find('\'', at + marker.size());
    if (end == std::string::npos) break;
    const std::string_view rest = std::string_view(log).substr(end);
    if (rest.starts_with("': BPF program load failed") || rest.starts_with("': failed to load")) {
      return log.substr(at + marker.size(), end - at - marker.size());
    }
  }
  return {};
}

// Programs only some runs need (the table's `need`): loading them otherwise would cost
// every run something.
bool needed_by_this_run(const std::string& program, const TracerConfig& config) {
  const auto feature = feature_of_program(program);
  if (!feature) return true;
  switch (feature_spec(*feature).need) {
    case FeatureNeed::Trace:
      return config.trace;
    case FeatureNeed::Follow:
      return config.follow;
    case FeatureNeed::Check:
      return config.check;
    case FeatureNeed::EveryRun:
      break;
  }
  return true;
}

bool required(const std::optional<FeatureId>& feature) {
  return feature && feature_spec(*feature).required;
}

}  // namespace

void SkeletonFree::operator()(uringscope_bpf* skel) const {
  uringscope_bpf__destroy(skel);
}



Tracer::Tracer(const KernelSupport& support, const TracerConfig& config)
    : retired_(config.folds), config_(config) {
  const TableSizes& sizes = config.sizes;
  if (!is_power_of_two(sizes.inflight_buckets) || !is_power_of_two(sizes.udata_slots)) {
    throw Error("in-flight and user_data table sizes must be powers of two");
  }
  if ((config.trace && (!is_power_of_two(config.trace_bytes) || config.trace_bytes < 4096)) ||
      (config.check && (!is_power_of_two(config.check_bytes) || config.check_bytes < 4096))) {
    throw Error("the trace and check buffer sizes must be powers of two of at least 4096 bytes");
  }
  load(support);
  if (config.trace) trace_rb_ = std::make_unique<RecordBuffer>(bpf_map__fd(skel_->maps.trace_rb));
  if (config.check) check_rb_ = std::make_unique<RecordBuffer>(bpf_map__fd(skel_->maps.check_rb));
  if (bpf_program__autoload(skel_->progs.usc_ring_exit)) reclaimer_ = std::make_unique<RingReclaimer>(*skel_);
  inflight_view_ = std::make_unique<MappedArray<us_inflight_bucket>>(skel_->maps.inflight);
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    if (!bpf_program__autoload(prog)) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) == 0) prog_ids_.push_back(info.id);
  }
}

// A kernel the probe did not foresee may still reject one program. An optional one
// costs its feature, never the run: leave it out and load again (libbpf loads an
// object all or nothing). Each round drops one program, so this ends.
void Tracer::load(const KernelSupport& support) {
  std::set<std::string> left_out;
  for (;;) {
    open_configured(support, left_out);
    libbpf_log_clear();
    const int err = uringscope_bpf__load(skel_.get());
    if (err == 0) return;
    left_out.insert(program_to_leave_out(err, support, left_out));
  }
}

std::string Tracer::program_to_leave_out(int err, const KernelSupport& support,
                                         const std::set<std::string>& left_out) {
  const std::string log = libbpf_log_text();
  const std::string rejected = rejected_program(log);
  // The fentry way into io_uring_enter has the tracepoint behind it, so its refusal
  // (a kernel without trampolines answers EPERM or ENOTSUPP, not a verifier log) costs
  // the feature nothing: a note, not a rejection.
  if (rejected == kEnterFentry && !left_out.count(rejected) && wants(support, kEnterTracepoint)) {
    enter_fallback_ = fmt::format("fentry not loadable: {}", strerror(-err));
    return rejected;
  }
  // Without the aux fentry, pointer-less CQEs still have the (ring, user_data) index.
  if (rejected == kAuxFentry && !left_out.count(rejected)) {
    rejections_.push_back({rejected, FeatureId::AuxReq, fmt::format("fentry not loadable: {}", strerror(-err))});
    return rejected;
  }
  // A refused catcher costs only the events its program may miss.
  if (is_catcher(rejected) && !left_out.count(rejected)) {
    rejections_.push_back({rejected, FeatureId::Catchers,
                           fmt::format("{} rejected by this kernel's verifier: {}", rejected,
                                       libbpf_log_summary())});
    return rejected;
  }
  const bool verifier_spoke = log.find("PROG LOAD LOG") != std::string::npos;
  if (!verifier_spoke && (err == -EPERM || err == -EACCES)) {
    throw Error(fmt::format(
        "the kernel refused to load the BPF programs ({}): uringscope needs CAP_BPF and "
        "CAP_PERFMON (or root); {}",
        strerror(-err), libbpf_log_summary()));
  }
  const auto feature = feature_of_program(rejected);
  if (rejected.empty() || required(feature) || left_out.count(rejected)) {
    throw Error(fmt::format("the BPF verifier rejected uringscope's programs: {} (run with -v "
                            "for the full log)",
                            libbpf_log_summary()));
  }
  rejections_.push_back(
      {rejected, feature, fmt::format("rejected by this kernel's verifier: {}", libbpf_log_summary())});
  return rejected;
}

Tracer::~Tracer() {
  trace_rb_.reset();
  check_rb_.reset();
  while (!links_.empty()) links_.pop_back();  // catchers first, as in detach()
  liburing_.reset();
  skel_.reset();
  // Measured on 6.18: the last programs disappear within ~100 ms of closing their links.
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  for (uint32_t id : prog_ids_) {
    for (;;) {
      UniqueFd fd(bpf_prog_get_fd_by_id(id));
      if (!fd || std::chrono::steady_clock::now() > deadline) break;
      fd.reset();
      std::this_thread::sleep_for(5ms);
    }
  }
}

// The probe's programs (the ring teardown's start beside its end when the boundary is
// on), and with catchers on, each one's catcher where it has one (US_PROG in
// bpf/catch.bpf.h) and the verifier did not refuse it.
std::vector<std::string> Tracer::programs_to_load(const KernelSupport& support,
                                                  const std::set<std::string>& left_out) const {
  std::vector<std::string> chosen;
  for (const auto& name : support.programs) {
    if (!bpf_object__find_program_by_name(skel_->obj, name.c_str())) {
      throw Error(fmt::format("no BPF program named {} in uringscope", name));
    }
    chosen.push_back(name);
    if (name == kRingExit && config_.boundary) chosen.emplace_back(kRingTeardown);
    std::string catcher = name + std::string(kCatcherSuffix);
    if (support.catchers && !left_out.count(name) && !left_out.count(catcher) &&
        bpf_object__find_program_by_name(skel_->obj, catcher.c_str()) != nullptr)
      chosen.push_back(std::move(catcher));
  }
  return chosen;
}

void Tracer::open_configured(const KernelSupport& support, const std::set<std::string>& left_out) {
  const TableSizes& sizes = config_.sizes;
  skel_.reset(uringscope_bpf__open());
  if (!skel_) throw Error(fmt::format("cannot open the BPF object: {}", strerror(errno)));

  const std::vector<std::string> chosen = programs_to_load(support, left_out);
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    const std::string name = bpf_program__name(prog);
    bool wanted = std::find(chosen.begin(), chosen.end(), name) != chosen.end() &&
                  needed_by_this_run(name, config_) && !left_out.count(name);
    if (is_liburing_program(name)) wanted = config_.liburing && !left_out.count(name);
    if (name == kTraceFlush) wanted = config_.trace;
    bpf_program__set_autoload(prog, wanted);
  }

  set_entries(skel_->maps.ring_ids, sizes.max_rings * 4);
  set_entries(skel_->maps.exits_superseded, sizes.max_rings);
  set_entries(skel_->maps.ring_info, sizes.max_rings);
  set_entries(skel_->maps.ring_stats, sizes.max_rings);
  set_entries(skel_->maps.ring_opmap, sizes.max_rings * US_OP_SLOTS);
  set_entries(skel_->maps.opstats, sizes.max_opstats);
  set_entries(skel_->maps.inflight, sizes.inflight_buckets);
  set_entries(skel_->maps.udata, sizes.udata_slots);
  set_entries(skel_->maps.threads, sizes.thread_entries);
  set_entries(skel_->maps.retired_rings, sizes.max_rings);
  set_entries(skel_->maps.free_rings, sizes.max_rings);
  set_entries(skel_->maps.free_opstats, sizes.max_opstats);
  set_entries(skel_->maps.targets, (config_.pid_max + 63) / 64);
  set_entries(skel_->maps.ring_watch, sizes.max_rings);
  set_entries(skel_->maps.ring_timers, sizes.max_rings);
  set_entries(skel_->maps.cq_posts, sizes.max_rings);
  // Hash maps are preallocated: without --files they keep one row, not megabytes.
  set_entries(skel_->maps.file_stats, config_.files ? sizes.file_rows : 1);
  set_entries(skel_->maps.file_names, config_.files ? sizes.file_names : 1);
  set_entries(skel_->maps.req_files, config_.files ? US_DEFAULT_REQ_FILES : 1);
  if (config_.trace) set_entries(skel_->maps.trace_rb, config_.trace_bytes);
  if (config_.check) set_entries(skel_->maps.check_rb, config_.check_bytes);

  auto* ro = skel_->rodata;
  ro->filter_tgids = config_.filter_tgids;
  ro->max_rings = sizes.max_rings;
  ro->max_opstats = sizes.max_opstats;
  ro->inflight_mask = sizes.inflight_buckets - 1;
  ro->udata_mask = sizes.udata_slots - 1;
  for (int i = 0; i < US_RF__COUNT; ++i) ro->req_bit[i] = support.req_bits[i];
  ro->pidns_ino = config_.pidns_inode;
  ro->trace_on = config_.trace;
  ro->check_on = config_.check;
  ro->follow_forks = config_.follow;
  ro->ring_exit_fn = support.ring_exit_work;
  ro->self_tgid = static_cast<uint32_t>(getpid());
  ro->boundary_on = config_.boundary;
  ro->files_on = config_.files;
  ro->aux_req_on = bpf_program__autoload(skel_->progs.usc_aux_req);
  ro->catch_on = std::any_of(chosen.begin(), chosen.end(), [](const std::string& name) {
    return is_catcher(name);
  });
}

void Tracer::add_target(uint32_t tgid) {
  const int fd = bpf_map__fd(skel_->maps.targets);
  uint32_t word = tgid / 64;
  uint64_t bits = 0;
  if (bpf_map_lookup_elem(fd, &word, &bits) != 0) {
    throw Error(fmt::format("pid {} is above kernel.pid_max", tgid));
  }
  bits |= uint64_t{1} << (tgid % 64);
  if (bpf_map_update_elem(fd, &word, &bits, BPF_ANY) != 0) {
    throw Error(fmt::format("cannot add pid {} to the target filter: {}", tgid, strerror(errno)));
  }
}

bool Tracer::walk_ring_fds() {
  bpf_program* prog = skel_->progs.usc_ring_fds;
  if (!bpf_program__autoload(prog)) return false;
  LinkPtr link(bpf_program__attach_iter(prog, nullptr));
  if (!link) return false;
  UniqueFd iter(bpf_iter_create(bpf_link__fd(link.get())));
  if (!iter) return false;
  // The program only updates maps; reading drives the walk to its end.
  char buf[256];
  while (read(iter.get(), buf, sizeof buf) > 0) {
  }
  return true;
}

bool Tracer::learn_cqe_order() {
  // --trace's COMPLETE records carry the CQ depth, which needs the order as much.
  if (!config_.boundary && !config_.trace) return false;
  if (skel_->bss->cqe_order == US_CQE_ORDER_UNKNOWN) post_cqe_order_nop();
  return skel_->bss->cqe_order != US_CQE_ORDER_UNKNOWN;
}

void Tracer::attach_liburing(const std::vector<std::string>& libraries) {
  if (config_.liburing) liburing_ = std::make_unique<LiburingProbes>(*skel_, libraries);
}

// Last attached, first detached: a catcher must not outlive its program, or it would
// take every event after the program's detach for one the kernel skipped.
void Tracer::detach() {
  while (!links_.empty()) links_.pop_back();
  if (liburing_) liburing_->detach();
}

bool Tracer::flush_trace_stages() {
  // An interrupted emit holds its stage for a few hundred nanoseconds: a few tries do.
  constexpr int kTries = 8;
  const int prog_fd = bpf_program__fd(skel_->progs.usc_trace_flush);
  const int cpus = libbpf_num_possible_cpus();
  bool all = true;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    bool flushed = false;
    for (int attempt = 0; attempt < kTries && !flushed; ++attempt) {
      LIBBPF_OPTS(bpf_test_run_opts, run, .flags = BPF_F_TEST_RUN_ON_CPU,
                  .cpu = static_cast<__u32>(cpu));
      const int err = bpf_prog_test_run_opts(prog_fd, &run);
      // An offline CPU (ENXIO) runs no programs, so it stages nothing new; what it staged
      // before going offline stays there (CPU hotplug during a trace loses those).
      flushed = err == 0 ? run.retval != US_TRACE_FLUSH_BUSY : errno == ENXIO;
      if (err != 0 && errno != ENXIO) break;
    }
    all = all && flushed;
  }
  return all;
}

bool Tracer::drain_trace(const std::function<void(const us_trace_event&)>& sink,
                         uint64_t max_records) {
  if (!trace_rb_) return true;
  const bool flushed = flush_trace_stages();
  const bool emptied = trace_rb_->drain(
      [&](const void* data, std::size_t size) { return for_each_trace_event(data, size, sink); },
      max_records);
  return flushed && emptied;
}

void Tracer::drain_check(const std::function<void(const us_check_event&)>& sink,
                         uint64_t max_records) {
  if (!check_rb_) return;
  check_rb_->drain(
      [&](const void* data, std::size_t size) -> uint64_t {
        if (size < sizeof(us_check_event)) return 0;
        sink(*static_cast<const us_check_event*>(data));
        return 1;
      },
      max_records);
}

std::size_t Tracer::reclaim_rings() {
  if (!reclaimer_) return 0;
  std::vector<RetiredRing> ended;
  const std::size_t n = reclaimer_->reclaim(ended);
  for (RetiredRing& ring : ended) retired_.add(std::move(ring));
  return n;
}

}  // namespace uringscope
