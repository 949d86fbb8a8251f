// SPDX-License-Identifier: MIT
// --check's detectors. Each can be off alone; the run and the other detectors go on.
#include <bpf/btf.h>

#include "probe/choosers.h"

namespace uringscope {

// The submit and complete programs read what a request targets from its command area:
// struct io_rw (reads and writes) and struct io_sr_msg (sends and receives), both in
// BTF since 5.15. No program of its own, so the shape is the answer.
Choice<bool> choose_check_overlap(const btf* vmlinux) {
  const bool rw = btf__find_by_name_kind(vmlinux, "io_rw", BTF_KIND_STRUCT) > 0 &&
                  struct_has_member(vmlinux, "io_rw", "addr");
  const bool sr = btf__find_by_name_kind(vmlinux, "io_sr_msg", BTF_KIND_STRUCT) > 0;
  if (rw && sr)
    return {true, "struct io_rw and io_sr_msg in kernel BTF (used by --check)", {}};
  return {false, join("no struct io_rw or io_sr_msg in kernel BTF", loss_of(FeatureId::CheckOverlap)),
          {}};
}

// Syscall tracepoints: they fire before the call takes effect, while the requests it
// could hurt are still in flight.
Choice<bool> choose_check_unmap(const ProbeEnvironment& env) {
  if (env.syscall_tracepoints)
    return {true, "syscalls/sys_enter_munmap, sys_enter_madvise, sys_enter/exit_mremap (used by --check)",
            "usc_ck_munmap"};
  return {false, join("no syscall tracepoints (needs CONFIG_FTRACE_SYSCALLS)", loss_of(FeatureId::CheckUnmap)),
          {}};
}

Choice<bool> choose_check_bufreg(const ProbeEnvironment& env) {
  if (env.syscall_tracepoints)
    return {true, "syscalls/sys_enter_io_uring_register (used by --check)", "usc_ck_register"};
  return {false, join("no syscall tracepoints (needs CONFIG_FTRACE_SYSCALLS)", loss_of(FeatureId::CheckBufreg)),
          {}};
}

}  // namespace uringscope
