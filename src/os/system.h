// SPDX-License-Identifier: MIT
// What uringscope needs from the machine: privileges, kernel BTF, tracefs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "os/libbpf_handles.h"

namespace uringscope {

// Throws Error naming the missing capability unless we may load and attach BPF
// tracing programs (CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN).
void require_bpf_privileges();
bool has_bpf_privileges();

// The running kernel's BTF; throws Error when the kernel has none.
BtfPtr load_kernel_btf();

// uringscope's own pid namespace. Outside the initial one, pids from the user and in the
// report are local to it, and the BPF side must translate the kernel's pids.
struct PidNamespace {
  bool initial = true;
  uint64_t inode = 0;  // of /proc/self/ns/pid
};
PidNamespace own_pid_namespace();

std::string kernel_release();
uint32_t pid_max();
unsigned online_cpus();

// Makes sure tracefs is reachable for the syscall tracepoints (libbpf looks for
// /sys/kernel/tracing): mounts it when nothing is mounted there and unmounts it again
// when destroyed, so the machine is left as it was.
class TracefsMount {
 public:
  TracefsMount();
  ~TracefsMount();
  TracefsMount(const TracefsMount&) = delete;
  TracefsMount& operator=(const TracefsMount&) = delete;
  bool mounted_by_us() const { return mounted_by_us_; }

 private:
  bool mounted_by_us_ = false;
};

// tracefs has syscalls/sys_enter_io_uring_enter (CONFIG_FTRACE_SYSCALLS).
bool syscall_tracepoint_available();

}  // namespace uringscope
