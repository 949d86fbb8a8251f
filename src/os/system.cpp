// SPDX-License-Identifier: MIT
#include "os/system.h"

#include <bpf/btf.h>
#include <fmt/format.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "util/error.h"

namespace uringscope {
namespace {

// Older headers lack these two (Linux 5.8).
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;

bool has_capability(const __user_cap_data_struct (&data)[2], int cap) {
  return data[cap / 32].effective & (1u << (cap % 32));
}

bool path_exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

constexpr const char* kTracefs = "/sys/kernel/tracing";
constexpr const char* kDebugfsTracing = "/sys/kernel/debug/tracing";

}  // namespace

bool has_bpf_privileges() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0) return geteuid() == 0;
  return has_capability(data, CAP_SYS_ADMIN) ||
         (has_capability(data, kCapBpf) && has_capability(data, kCapPerfmon));
}

void require_bpf_privileges() {
  if (!has_bpf_privileges()) {
    throw Error(
        "missing privileges: loading BPF tracing programs needs CAP_BPF and CAP_PERFMON "
        "(or CAP_SYS_ADMIN); run uringscope as root, e.g. with sudo");
  }
}


BtfPtr load_kernel_btf() {
  BtfPtr btf(btf__load_vmlinux_btf());
  if (!btf) {
    throw Error(fmt::format(
        "the kernel has no usable BTF (/sys/kernel/btf/vmlinux: {}): uringscope needs a "
        "kernel built with CONFIG_DEBUG_INFO_BTF=y",
        strerror(errno)));
  }
  return btf;
}

PidNamespace own_pid_namespace() {
  // PROC_PID_INIT_INO: the initial pid namespace's fixed inode number.
  constexpr uint64_t kInitialPidNsInode = 0xEFFFFFFCu;
  PidNamespace ns;
  struct stat st;
  if (stat("/proc/self/ns/pid", &st) != 0) return ns;
  ns.inode = st.st_ino;
  ns.initial = ns.inode == kInitialPidNsInode;
  return ns;
}

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "unknown";
}

uint32_t pid_max() {
  std::ifstream in("/proc/sys/kernel/pid_max");
  uint32_t value = 0;
  // 4194304 is the largest value the kernel accepts (PID_MAX_LIMIT on 64-bit).
  return (in >> value) && value > 0 ? value : 4194304;
}

unsigned online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

TracefsMount::TracefsMount() {
  if (path_exists(fmt::format("{}/events", kTracefs).c_str()) ||
      path_exists(fmt::format("{}/events", kDebugfsTracing).c_str())) {
    return;
  }
  if (mount("tracefs", kTracefs, "tracefs", 0, nullptr) == 0) mounted_by_us_ = true;
}

TracefsMount::~TracefsMount() {
  if (mounted_by_us_) umount2(kTracefs, MNT_DETACH);
}

bool syscall_tracepoint_available() {
  for (const char* root : {kTracefs, kDebugfsTracing}) {
    if (path_exists(fmt::format("{}/events/syscalls/sys_enter_io_uring_enter", root).c_str())) {
      return true;
    }
  }
  return false;
}

}  // namespace uringscope
