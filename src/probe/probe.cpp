// SPDX-License-Identifier: MIT
// Feature assembly: runs every chooser, fills KernelSupport in the order of the feature
// table, and decides the tier from the spine's shapes.
#include "probe/probe.h"

#include <bpf/btf.h>

#include <string>
#include <string_view>
#include <utility>

#include "probe/choosers.h"
#include "probe/req_bits.h"

namespace uringscope {
namespace {

bool submit_usable(SubmitShape shape) {
  return shape != SubmitShape::None && shape != SubmitShape::Unrecognised;
}

bool complete_usable(CompleteShape shape) {
  return shape != CompleteShape::None && shape != CompleteShape::Unrecognised;
}

bool complete_has_req(CompleteShape shape) {
  return shape == CompleteShape::Cqe || shape == CompleteShape::Req7 ||
         shape == CompleteShape::Req5;
}

bool punt_usable(PuntShape shape) {
  return shape != PuntShape::None && shape != PuntShape::Unrecognised;
}

Tier choose_tier(const KernelSupport& support, bool spine_loadable) {
  if (!spine_loadable || !submit_usable(support.submit) || !complete_usable(support.complete))
    return Tier::Unsupported;
  if (complete_has_req(support.complete) && punt_usable(support.punt)) return Tier::Full;
  return Tier::Legacy;
}

// CO-RE relocations need kernel BTF, so without it not even the enter program, which
// needs no tracepoint typedef, can load: everything is off, whatever the environment says.
KernelSupport without_btf() {
  constexpr std::string_view kNoBtf = "no kernel BTF (/sys/kernel/btf/vmlinux)";
  KernelSupport support;
  support.req_bits.fill(-1);
  for (const FeatureSpec& spec : kFeatures)
    support.features.push_back({std::string(spec.name), false, join(kNoBtf, spec.loss)});
  return support;
}

template <typename Shape>
void add_feature(KernelSupport& support, FeatureId id, const Choice<Shape>& choice) {
  support.features.push_back({std::string(feature_name(id)), !choice.program.empty(), choice.detail});
  if (!choice.program.empty()) support.programs.emplace_back(choice.program);
}

// The last rows of the table: row reuse, the aux CQEs' requests, --check's three
// detectors, and the catchers.
void add_late_features(KernelSupport& support, const struct btf* vmlinux,
                       const ProbeEnvironment& env) {
  const auto ring_exit = choose_ring_exit(vmlinux, env);
  add_feature(support, FeatureId::RingExit, ring_exit);
  if (!ring_exit.program.empty()) support.ring_exit_work = env.ring_exit_work;
  add_feature(support, FeatureId::AuxReq, choose_aux_req(vmlinux, env));
  // A detector without a program of its own: on when its choice says so.
  const auto check_overlap = choose_check_overlap(vmlinux);
  support.features.push_back({std::string(feature_name(FeatureId::CheckOverlap)),
                              check_overlap.shape, check_overlap.detail});
  const auto check_unmap = choose_check_unmap(env);
  add_feature(support, FeatureId::CheckUnmap, check_unmap);
  if (!check_unmap.program.empty()) {
    for (const char* program : {"usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit"}) {
      support.programs.emplace_back(program);
    }
  }
  add_feature(support, FeatureId::CheckBufreg, choose_check_bufreg(env));
  const auto catchers = choose_catchers(env);
  support.features.push_back({std::string(feature_name(FeatureId::Catchers)), catchers.shape,
                              catchers.detail});
  support.catchers = catchers.shape;
}

}  // namespace

KernelSupport probe_kernel(const struct btf* vmlinux, const ProbeEnvironment& env) {
  if (vmlinux == nullptr) return without_btf();

  KernelSupport support;
  auto submit = choose_submit(vmlinux);
  auto complete = choose_complete(vmlinux);
  require_spine_helpers(vmlinux, submit, complete);
  const auto punt = choose_punt(vmlinux);
  const auto create = choose_create(vmlinux);
  const auto overflow = choose_overflow(vmlinux);
  const auto fd_walk = choose_fd_walk(vmlinux);
  const auto enter = choose_enter(vmlinux, env);

  support.submit = submit.shape;
  support.complete = complete.shape;
  support.punt = punt.shape;
  support.create = create.shape;
  support.overflow = overflow.shape;
  support.fd_walk = fd_walk.shape;
  support.enter = enter.shape;
  support.req_bits = find_req_bits(vmlinux);
  support.tier = choose_tier(support, !submit.program.empty() && !complete.program.empty());

  // The feature rows, in table order, with the programs that serve them.
  auto add = [&support](FeatureId id, const auto& choice) { add_feature(support, id, choice); };
  add(FeatureId::Submit, submit);
  add(FeatureId::Complete, complete);
  add(FeatureId::Punt, punt);
  add(FeatureId::Create, create);
  add(FeatureId::Overflow, overflow);
  add(FeatureId::FdWalk, fd_walk);
  add(FeatureId::Enter, enter);
  if (enter.program == "usc_enter_fentry" && env.syscall_tracepoints)
    support.programs.emplace_back("usc_enter");  // the fallback, attached only if fentry fails
  add(FeatureId::PollArm, choose_poll_arm(vmlinux));
  add(FeatureId::TaskAdd, choose_task_add(vmlinux));
  add(FeatureId::TaskWork, choose_task_work(vmlinux));
  add(FeatureId::LocalWork, choose_local_work(vmlinux));
  add(FeatureId::ShortWrite, choose_short_write(vmlinux));
  add(FeatureId::ReqFailed, choose_req_failed(vmlinux));
  const auto io_threads = choose_io_threads(vmlinux);
  add(FeatureId::IoThreads, io_threads);
  // Without it the thread table keeps exited threads until the run ends.
  if (!io_threads.program.empty() && process_exit_traceable(vmlinux))
    support.programs.emplace_back("usc_thread_exit");
  add(FeatureId::FileGet, choose_file_get(vmlinux));
  const auto fork = choose_fork(vmlinux);
  add(FeatureId::Fork, fork);
  if (!fork.program.empty() && process_exit_traceable(vmlinux))
    support.programs.emplace_back("usc_fork_exit");
  add_late_features(support, vmlinux, env);
  return support;
}

KernelInfo kernel_info(const KernelSupport& support, const std::string& release) {
  return KernelInfo{release, support.tier, support.features};
}

}  // namespace uringscope
