// SPDX-License-Identifier: MIT
// The kernel probe: reads kernel BTF and decides which BPF program variants match the
// running kernel, tracepoint by tracepoint, from the btf_trace_<tp> typedefs (parameter
// counts and, where counts collide, parameter types) -- never from the version number,
// because distribution kernels backport io_uring. A pure function of its inputs.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <linux/types.h>

#include "uringscope.h"
#include "probe/fentry_trial.h"
#include "uringscope/snapshot.h"

struct btf;  // libbpf

namespace uringscope {

// Which shape each re-prototyped tracepoint has on this kernel.
enum class SubmitShape {
  None,
  SubmitReq,       // io_uring_submit_req(req)                                 6.4+
  SubmitSqe,       // io_uring_submit_sqe(req, force_nonblock)                 6.0-6.3
  SubmitSqe518,    // io_uring_submit_sqe(ctx, req, user_data, opcode, ...)   5.18-5.19
  SubmitSqe515,    // io_uring_submit_sqe(ctx, req, opcode, user_data, ...)   5.15-5.17
  Unrecognised,
};
enum class CompleteShape {
  None,
  Cqe,             // io_uring_complete(ctx, req, cqe)                         6.13+
  Req7,            // (ctx, req, user_data, res, cflags, extra1, extra2)       5.19-6.12
  Req5,            // (ctx, req, user_data, res, cflags)                       5.18
  Legacy4,         // (ctx, user_data, res, cflags)                            <= 5.17
  Unrecognised,
};
enum class PuntShape {
  None,
  Req2,            // io_uring_queue_async_work(req, rw)                       6.0+
  Legacy7,         // (ctx, req, user_data, opcode, flags, work, rw)           5.18-5.19
  Legacy5,         // (ctx, rw, req, work, flags)                              5.15-5.17
  Unrecognised,
};

// The architectures uringscope builds for. Its BPF object is built for one of them
// (bpf/BpfSkeleton.cmake), and the fentry on io_uring_enter is architecture-specific:
// the syscall entry's name and the pt_regs it reads the arguments from.
enum class Arch { X86_64, Arm64 };
#if defined(__x86_64__)
inline constexpr Arch kBuildArch = Arch::X86_64;
#elif defined(__aarch64__)
inline constexpr Arch kBuildArch = Arch::Arm64;
#else
#error "uringscope: no io_uring_enter entry point known for this architecture (probe.h)"
#endif
// The entry point of io_uring_enter on `arch`, where uringscope puts its fentry (the
// typed __do_sys_io_uring_enter body is `inline`, hence notrace); usc_enter_fentry in
// bpf/rings.bpf.c attaches to the same name.
constexpr const char* enter_fentry_function(Arch arch) {
  return arch == Arch::Arm64 ? "__arm64_sys_io_uring_enter" : "__x64_sys_io_uring_enter";
}
inline constexpr const char* kEnterFentryFunction = enter_fentry_function(kBuildArch);
// The work function that ends every ring (bpf/retire.bpf.c).
inline constexpr const char* kRingExitFunction = "io_ring_exit_work";
// The function that posts a multishot request's intermediate CQEs with the request in
// hand, where uringscope puts the aux_req fentry (bpf/complete.bpf.c).
inline constexpr const char* kAuxPostFunction = "io_req_post_cqe";

// Facts about the machine that are not in BTF; the loader fills them in.
struct ProbeEnvironment {
  std::string kernel_release;         // uname -r
  bool syscall_tracepoints = false;   // tracefs has syscalls/sys_enter_io_uring_enter
  // A trial load of an fentry program on the io_uring_enter entry point (fentry_trial.h).
  FentryTrialResult enter_fentry;
  // Address of io_ring_exit_work in /proc/kallsyms, 0 when it cannot be read.
  uint64_t ring_exit_work = 0;
  // The architecture the BPF object was built for, whose syscall entry the fentry needs.
  Arch arch = kBuildArch;
};

struct KernelSupport {
  Tier tier = Tier::Unsupported;
  SubmitShape submit = SubmitShape::None;
  CompleteShape complete = CompleteShape::None;
  PuntShape punt = PuntShape::None;
  bool create = false;      // io_uring_create
  bool overflow = false;    // io_uring_cqe_overflow (5.19+)
  bool fd_walk = false;     // BPF task_file iterator (bpf_iter__task_file in BTF, 5.8+)
  bool enter = false;       // io_uring_enter counted (fentry, or the syscall tracepoint)
  // Load each tracepoint program with its catcher (bpf/catch.bpf.h).
  bool catchers = false;
  // io_ring_exit_work's address for the ring_exit program's first test, 0 when unknown.
  uint64_t ring_exit_work = 0;
  // REQ_F_*_BIT numbers looked up by name in BTF, indexed by enum us_req_flag; -1 when
  // the kernel has no such enumerator.
  std::array<int, US_RF__COUNT> req_bits{};

  // One row per feature for --version, the report header and the JSON "kernel" object:
  // name, on/off, and the shape in use or the reason it is off.
  std::vector<FeatureState> features;
  // Names of the BPF programs (skeleton program names) to load; every other program in
  // the object keeps autoload off.
  std::vector<std::string> programs;
};

// Decides everything from `vmlinux` (kernel BTF) and `env`. Never fails: a missing or
// unrecognised tracepoint turns one feature off with a reason; only a kernel with no
// usable submit or complete tracepoint, or without the BPF helpers their programs call,
// is Tier::Unsupported.
KernelSupport probe_kernel(const struct btf* vmlinux, const ProbeEnvironment& env);

KernelInfo kernel_info(const KernelSupport& support, const std::string& release);

}  // namespace uringscope
