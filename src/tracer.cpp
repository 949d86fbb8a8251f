// SPDX-License-Identifier: MIT
#include "uringscope/tracer.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cerrno>
#include <cstring>

#include "uringscope/error.h"
#include "uringscope/libbpf_log.h"
#include "uringscope/unique_fd.h"
#include "uringscope_bpf.skel.h"

namespace uringscope {
namespace {

bool is_power_of_two(uint32_t v) { return v && !(v & (v - 1)); }

void set_entries(bpf_map* map, uint32_t entries) {
  if (int err = bpf_map__set_max_entries(map, entries); err) {
    throw Error(fmt::format("cannot size BPF map {}: {}", bpf_map__name(map), strerror(-err)));
  }
}

// Copies rows [0, rows) of an array map. The big tables are BPF_F_MMAPABLE: one mmap
// instead of a syscall per row.
template <typename Row>
std::vector<Row> copy_rows(const bpf_map* map, uint32_t rows) {
  rows = std::min(rows, bpf_map__max_entries(map));
  std::vector<Row> out(rows);
  if (rows == 0) return out;
  const std::size_t stride = (bpf_map__value_size(map) + 7) & ~std::size_t{7};
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t length = (stride * rows + page - 1) / page * page;
  void* base = mmap(nullptr, length, PROT_READ, MAP_SHARED, bpf_map__fd(map), 0);
  if (base == MAP_FAILED) {
    throw Error(fmt::format("cannot map BPF table {}: {}", bpf_map__name(map), strerror(errno)));
  }
  for (uint32_t i = 0; i < rows; ++i) {
    std::memcpy(&out[i], static_cast<const char*>(base) + i * stride, sizeof(Row));
  }
  munmap(base, length);
  return out;
}

// Every (key, value) of a hash map. Entries inserted while we walk may be missed; we
// read after detaching, so nothing is.
template <typename Key, typename Value>
std::vector<std::pair<Key, Value>> copy_hash(const bpf_map* map) {
  std::vector<std::pair<Key, Value>> out;
  const int fd = bpf_map__fd(map);
  Key key{};
  Key next{};
  const Key* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    Value value{};
    if (bpf_map_lookup_elem(fd, &next, &value) == 0) out.emplace_back(next, value);
    key = next;
    prev = &key;
  }
  return out;
}

bool required_feature(const std::string& feature) {
  return feature == "submit" || feature == "complete";
}

}  // namespace

void Tracer::SkeletonDeleter::operator()(uringscope_bpf* skel) const {
  uringscope_bpf__destroy(skel);
}

void Tracer::LinkDeleter::operator()(bpf_link* link) const { bpf_link__destroy(link); }

std::string feature_of_program(const std::string& program) {
  if (program.rfind("usc_sub", 0) == 0) return "submit";
  if (program == "usc_cqe_ovf") return "overflow";
  if (program.rfind("usc_cqe", 0) == 0) return "complete";
  if (program.rfind("usc_punt", 0) == 0) return "punt";
  if (program == "usc_create") return "create";
  if (program == "usc_enter") return "enter";
  if (program == "usc_ring_fds") return "fd_walk";
  if (program.rfind("usc_poll_arm", 0) == 0) return "poll_arm";
  if (program == "usc_task_add") return "task_add";
  if (program == "usc_tw_run") return "task_work";
  if (program == "usc_local_tw") return "local_work";
  if (program == "usc_short_write") return "short_write";
  if (program == "usc_req_failed") return "req_failed";
  if (program == "usc_sched") return "io_threads";
  return program;
}

Tracer::Tracer(const KernelSupport& support, const TracerConfig& config) : config_(config) {
  const TableSizes& sizes = config.sizes;
  if (!is_power_of_two(sizes.inflight_buckets) || !is_power_of_two(sizes.udata_slots)) {
    throw Error("in-flight and user_data table sizes must be powers of two");
  }
  skel_.reset(uringscope_bpf__open());
  if (!skel_) throw Error(fmt::format("cannot open the BPF object: {}", strerror(errno)));

  for (const auto& name : support.programs) {
    if (!bpf_object__find_program_by_name(skel_->obj, name.c_str())) {
      throw Error(fmt::format("no BPF program named {} in uringscope", name));
    }
  }
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    const std::string name = bpf_program__name(prog);
    bool wanted = std::find(support.programs.begin(), support.programs.end(), name) !=
                  support.programs.end();
    bpf_program__set_autoload(prog, wanted);
  }

  set_entries(skel_->maps.ring_ids, sizes.max_rings * 4);
  set_entries(skel_->maps.ring_info, sizes.max_rings);
  set_entries(skel_->maps.ring_stats, sizes.max_rings);
  set_entries(skel_->maps.ring_opmap, sizes.max_rings * US_OP_SLOTS);
  set_entries(skel_->maps.opstats, sizes.max_opstats);
  set_entries(skel_->maps.inflight, sizes.inflight_buckets);
  set_entries(skel_->maps.udata, sizes.udata_slots);
  set_entries(skel_->maps.targets, (config.pid_max + 63) / 64);

  auto* ro = skel_->rodata;
  ro->filter_tgids = config.filter_tgids;
  ro->max_rings = sizes.max_rings;
  ro->max_opstats = sizes.max_opstats;
  ro->inflight_mask = sizes.inflight_buckets - 1;
  ro->udata_mask = sizes.udata_slots - 1;
  for (int i = 0; i < US_RF__COUNT; ++i) ro->req_bit[i] = support.req_bits[i];
  ro->pidns_ino = config.pidns_inode;

  libbpf_log_clear();
  if (int err = uringscope_bpf__load(skel_.get()); err) {
    const bool verifier_spoke = libbpf_log_text().find("PROG LOAD LOG") != std::string::npos;
    if (!verifier_spoke && (err == -EPERM || err == -EACCES)) {
      throw Error(fmt::format(
          "the kernel refused to load the BPF programs ({}): uringscope needs CAP_BPF and "
          "CAP_PERFMON (or root); {}",
          strerror(-err), libbpf_log_summary()));
    }
    throw Error(fmt::format("the BPF verifier rejected uringscope's programs: {} (run with -v "
                            "for the full log)",
                            libbpf_log_summary()));
  }
  bpf_object__for_each_program(prog, skel_->obj) {
    if (!bpf_program__autoload(prog)) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) == 0) prog_ids_.push_back(info.id);
  }
}

Tracer::~Tracer() {
  links_.clear();
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
  std::unique_ptr<bpf_link, LinkDeleter> link(bpf_program__attach_iter(prog, nullptr));
  if (!link) return false;
  UniqueFd iter(bpf_iter_create(bpf_link__fd(link.get())));
  if (!iter) return false;
  // The program only updates maps; reading drives the walk to its end.
  char buf[256];
  while (read(iter.get(), buf, sizeof buf) > 0) {
  }
  return true;
}

std::vector<AttachFailure> Tracer::attach() {
  std::vector<AttachFailure> failures;
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    const std::string name = bpf_program__name(prog);
    if (!bpf_program__autoload(prog) || prog == skel_->progs.usc_ring_fds) continue;
    bpf_link* link = bpf_program__attach(prog);
    if (!link) {
      const int err = errno;
      const std::string feature = feature_of_program(name);
      if (required_feature(feature)) {
        throw Error(fmt::format("cannot attach {} ({} tracepoint): {}", name, feature,
                                strerror(err)));
      }
      failures.push_back({name, feature, strerror(err)});
      continue;
    }
    links_.emplace_back(link);
  }
  return failures;
}

void Tracer::detach() { links_.clear(); }

RawTables Tracer::read_tables() const {
  RawTables raw;
  const uint32_t ring_rows = skel_->bss->ring_rows + 1;
  const uint32_t opstat_rows = skel_->bss->opstat_rows + 1;
  raw.ring_info = copy_rows<us_ring_info>(skel_->maps.ring_info, ring_rows);
  raw.ring_stats = copy_rows<us_ring_stats>(skel_->maps.ring_stats, ring_rows);
  raw.opstats = copy_rows<us_opstat>(skel_->maps.opstats, opstat_rows);
  for (int i = 0; i < US_TOOL__COUNT; ++i) raw.tool[i] = skel_->bss->us_tool[i];
  raw.inflight = copy_rows<us_inflight_bucket>(skel_->maps.inflight,
                                              bpf_map__max_entries(skel_->maps.inflight));
  raw.errnos = copy_hash<us_errno_key, uint64_t>(skel_->maps.errnos);
  raw.threads = copy_hash<uint32_t, us_thread>(skel_->maps.threads);
  return raw;
}

}  // namespace uringscope
