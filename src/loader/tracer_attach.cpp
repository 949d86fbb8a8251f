// SPDX-License-Identifier: MIT
// Attaching the loaded programs: io_uring_enter's fentry or its tracepoint, then every
// tracepoint program, then their catchers.
#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "loader/liburing_probes.h"
#include "loader/tracer.h"
#include "probe/probe.h"
#include "util/error.h"
#include "uringscope_bpf.skel.h"

namespace uringscope {

// fentry first; the syscall tracepoint only when no trampoline would attach (a kernel
// without ftrace direct calls), since it slows every syscall on the machine.
bool Tracer::attach_enter(std::vector<AttachFailure>& failures) {
  bpf_program* fentry = skel_->progs.usc_enter_fentry;
  const bool tracepoint_loaded = bpf_program__autoload(skel_->progs.usc_enter);
  if (!bpf_program__autoload(fentry)) {
    if (tracepoint_loaded) {
      enter_detail_ = "syscalls/sys_enter_io_uring_enter tracepoint";
      if (!enter_fallback_.empty()) enter_detail_ += " (" + enter_fallback_ + ")";
    }
    return false;
  }
  if (bpf_link* link = bpf_program__attach(fentry)) {
    links_.emplace_back(link);
    attached_.emplace_back(bpf_program__name(fentry));
    enter_detail_ = fmt::format("fentry on {}", kEnterFentryFunction);
    return true;
  }
  const std::string why = strerror(errno);
  if (!tracepoint_loaded) {
    failures.push_back({bpf_program__name(fentry), FeatureId::Enter, fmt::format("did not attach: {}", why)});
    return true;  // nothing else to try
  }
  enter_detail_ = fmt::format(
      "syscalls/sys_enter_io_uring_enter tracepoint (fentry did not attach: {})", why);
  return false;
}

// Catchers attach after every program: a tracepoint calls its programs in the order
// they attached, and a catcher must see each event after its program has marked it.
std::vector<AttachFailure> Tracer::attach() {
  std::vector<AttachFailure> failures;
  const bool enter_done = attach_enter(failures);
  for (const bool catchers : {false, true}) attach_tracepoints(catchers, enter_done, failures);
  return failures;
}

void Tracer::attach_tracepoints(bool catchers, bool enter_done,
                                std::vector<AttachFailure>& failures) {
  bpf_program* prog;
  bpf_object__for_each_program(prog, skel_->obj) {
    const std::string name = bpf_program__name(prog);
    if (!bpf_program__autoload(prog) || prog == skel_->progs.usc_ring_fds ||
        prog == skel_->progs.usc_enter_fentry || prog == skel_->progs.usc_trace_flush ||
        is_liburing_program(name) || is_catcher(name) != catchers)
      continue;
    if (prog == skel_->progs.usc_enter && enter_done) continue;
    bpf_link* link = bpf_program__attach(prog);
    if (!link) {
      const int err = errno;
      const auto feature = catchers ? FeatureId::Catchers : feature_of_program(name);
      if (feature && feature_spec(*feature).required) {
        throw Error(fmt::format("cannot attach {} ({} tracepoint): {}", name,
                                feature_name(*feature), strerror(err)));
      }
      failures.push_back({name, feature, fmt::format("did not attach: {}", strerror(err))});
      continue;
    }
    links_.emplace_back(link);
    attached_.push_back(name);
  }
}

}  // namespace uringscope
