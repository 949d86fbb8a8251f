// SPDX-License-Identifier: MIT
#include "loader/liburing_probes.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "uringscope_bpf.skel.h"

namespace uringscope {

namespace {

enum class CallKind { Submit, Get, Batch };

struct LiburingCall {
  const char* function;
  CallKind kind;
};

// liburing 2.x's exported entry points (io_uring_submit_and_get_events since 2.3,
// io_uring_submit_and_wait_timeout since 2.2): the inline ones have no symbol to probe.
constexpr LiburingCall kCalls[] = {
    {"io_uring_submit", CallKind::Submit},
    {"io_uring_submit_and_wait", CallKind::Submit},
    {"io_uring_submit_and_get_events", CallKind::Submit},
    {"__io_uring_get_cqe", CallKind::Get},
    {"io_uring_wait_cqes", CallKind::Get},
    {"io_uring_wait_cqe_timeout", CallKind::Get},
    {"io_uring_submit_and_wait_timeout", CallKind::Get},
    {"io_uring_peek_batch_cqe", CallKind::Batch},
};

struct ProbePair {
  bpf_program* entry;
  bpf_program* ret;
};

ProbePair probes_for(const uringscope_bpf& skel, CallKind kind) {
  switch (kind) {
    case CallKind::Submit:
      return {skel.progs.usc_lu_submit, skel.progs.usc_lu_submit_ret};
    case CallKind::Get:
      return {skel.progs.usc_lu_get, skel.progs.usc_lu_get_ret};
    case CallKind::Batch:
      break;
  }
  return {skel.progs.usc_lu_batch, skel.progs.usc_lu_batch_ret};
}

constexpr std::string_view kPrograms[] = {"usc_lu_submit", "usc_lu_submit_ret", "usc_lu_get",
                                          "usc_lu_get_ret", "usc_lu_batch", "usc_lu_batch_ret"};

}  // namespace

bool is_liburing_program(std::string_view name) {
  for (std::string_view p : kPrograms)
    if (p == name) return true;
  return false;
}


bool LiburingProbes::attach_call(const std::string& library, const char* function,
                                 bpf_program* entry, bpf_program* ret, std::string& error) {
  LinkPtr links[2];
  for (int i = 0; i < 2; ++i) {
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = i == 1, .func_name = function);
    links[i].reset(bpf_program__attach_uprobe_opts(i ? ret : entry, -1, library.c_str(), 0, &opts));
    if (!links[i]) {
      error = fmt::format("{} in {}: {}", function, library, strerror(errno));
      return false;
    }
  }
  for (auto& link : links) links_.push_back(std::move(link));
  return true;
}

LiburingProbes::LiburingProbes(const uringscope_bpf& skel, const std::vector<std::string>& libraries) {
  status_.tried = true;
  if (!bpf_program__autoload(skel.progs.usc_lu_submit)) {
    status_.why_not = "the uprobe programs were not loaded";
    return;
  }
  if (libraries.empty()) {
    status_.why_not = "no shared liburing.so found for the targets (linked statically, inlined, or not used)";
    return;
  }
  std::string last_error;
  for (const std::string& library : libraries) {
    uint32_t here = 0;
    for (const LiburingCall& call : kCalls) {
      const ProbePair probes = probes_for(skel, call.kind);
      if (attach_call(library, call.function, probes.entry, probes.ret, last_error)) ++here;
    }
    if (here) status_.libraries.push_back(library);
    status_.functions += here;
  }
  if (!status_.attached()) status_.why_not = "no liburing call could be probed (" + last_error + ")";
}

}  // namespace uringscope
