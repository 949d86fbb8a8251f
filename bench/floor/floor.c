// SPDX-License-Identifier: MIT
// The floor tracer's userspace: picks the submit program that matches this kernel's
// tracepoint (by BTF, as uringscope does), loads, attaches, says "attached" on stderr
// (bench/run.sh waits for it), and on SIGINT/SIGTERM prints the request count and the
// latency histogram. Nothing else, so that its cost is the BPF programs' alone.
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floor_bpf.skel.h"

#define FLOOR_SLOTS 40

static int print_warnings(enum libbpf_print_level level, const char *fmt, va_list ap) {
  return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

// Parameters of a tracepoint after the leading void *, or -1 when it does not exist.
static int tracepoint_args(const struct btf *btf, const char *name) {
  int id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
  if (id <= 0) return -1;
  const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
  while (t && (btf_is_typedef(t) || btf_is_mod(t) || btf_is_ptr(t))) t = btf__type_by_id(btf, t->type);
  return t && btf_is_func_proto(t) ? (int)btf_vlen(t) - 1 : -1;
}

int main(int argc, char **argv) {
  (void)argv;
  if (argc != 1) {
    fprintf(stderr, "usage: floor (runs until SIGINT or SIGTERM)\n");
    return 2;
  }
  libbpf_set_print(print_warnings);
  struct btf *btf = btf__load_vmlinux_btf();
  if (!btf) {
    fprintf(stderr, "floor: no kernel BTF: %s\n", strerror(errno));
    return 1;
  }
  const bool submit_req = tracepoint_args(btf, "btf_trace_io_uring_submit_req") == 1;
  const bool submit_sqe = tracepoint_args(btf, "btf_trace_io_uring_submit_sqe") == 2;
  // 5.18+ shapes all have the request second (ctx, req, ...); 5.15-5.17 has none.
  const bool complete = tracepoint_args(btf, "btf_trace_io_uring_complete") >= 3;
  btf__free(btf);
  if (!(submit_req || submit_sqe) || !complete) {
    fprintf(stderr, "floor: this kernel's io_uring tracepoints have shapes the floor does not handle "
                    "(it needs 6.0+)\n");
    return 1;
  }

  // Blocked before attaching, so a signal sent right after "attached" is not lost.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, NULL);

  struct floor_bpf *skel = floor_bpf__open();
  if (!skel) {
    fprintf(stderr, "floor: open: %s\n", strerror(errno));
    return 1;
  }
  bpf_program__set_autoload(skel->progs.floor_submit_req, submit_req);
  bpf_program__set_autoload(skel->progs.floor_submit_sqe, !submit_req);
  int err = floor_bpf__load(skel);
  if (!err) err = floor_bpf__attach(skel);
  if (err) {
    fprintf(stderr, "floor: load/attach: %s\n", strerror(-err));
    floor_bpf__destroy(skel);
    return 1;
  }
  fprintf(stderr, "floor: attached\n");

  int sig = 0;
  sigwait(&stop, &sig);
  floor_bpf__detach(skel);

  unsigned long long total = 0, counts[FLOOR_SLOTS] = {0};
  const int fd = bpf_map__fd(skel->maps.hist);
  for (__u32 slot = 0; slot < FLOOR_SLOTS; ++slot) {
    __u64 n = 0;
    bpf_map_lookup_elem(fd, &slot, &n);
    counts[slot] = n;
    total += n;
  }
  printf("floor: %llu requests timed\n", total);
  for (int slot = 0; slot < FLOOR_SLOTS; ++slot) {
    if (counts[slot]) printf("  [%llu ns, %llu ns)  %llu\n", 1ull << slot, 2ull << slot, counts[slot]);
  }
  floor_bpf__destroy(skel);
  return 0;
}
