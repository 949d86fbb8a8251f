// SPDX-License-Identifier: MIT
// The loads that are not io_uring requests: a context-switch storm and a syscall loop
// beside or instead of the rings, and a box full of idle rings to attach to.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loadgen.h"

// The side load: a byte bounces between two processes, so every hop is a blocking
// read and a wakeup, i.e. two context switches, on whichever CPUs the scheduler picks.
static void ctxsw_child(int in, int out) {
  char byte;
  // Ends with the parent however the parent ends: EOF once the parent's write end is
  // gone (so the child must not hold a copy of it), or the death signal.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  while (read(in, &byte, 1) == 1) {
    if (write(out, &byte, 1) != 1) break;
  }
  _exit(0);
}

struct result run_ctxsw(const struct options *o) {
  int ab[2], ba[2];
  if (pipe(ab) || pipe(ba)) die("pipe: %s", strerror(errno));
  pid_t child = fork();
  if (child < 0) die("fork: %s", strerror(errno));
  if (child == 0) {
    close(ab[1]);
    close(ba[0]);
    ctxsw_child(ab[0], ba[1]);
  }
  close(ab[0]);
  close(ba[1]);
  if (o->wait_signal) wait_for_go();
  char byte = 0;
  struct result r = {0};
  const uint64_t start = now_ns(), cpu_start = cpu_ns();
  const uint64_t deadline = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : UINT64_MAX;
  while (!stop_requested && (!o->ops || r.ops < o->ops)) {
    if ((r.ops & 255) == 0 && now_ns() >= deadline) break;
    if (write(ab[1], &byte, 1) != 1 || read(ba[0], &byte, 1) != 1) {
      if (errno == EINTR) continue;
      die("pipe ping-pong: %s", strerror(errno));
    }
    ++r.ops;
  }
  r.ns = now_ns() - start;
  r.cpu = cpu_ns() - cpu_start;
  close(ab[1]);
  waitpid(child, NULL, 0);
  return r;
}

// getppid() is about the cheapest real syscall: what it costs under a tracer is what
// the tracer adds to every syscall, e.g. by enabling a syscalls:* tracepoint (which
// sends every task's syscalls through the tracing slow path, not only io_uring_enter).
struct result run_syscall(const struct options *o) {
  if (o->wait_signal) wait_for_go();
  struct result r = {0};
  const uint64_t start = now_ns(), cpu_start = cpu_ns();
  const uint64_t deadline = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : UINT64_MAX;
  while (!stop_requested && (!o->ops || r.ops < o->ops)) {
    if ((r.ops & 1023) == 0 && now_ns() >= deadline) break;
    syscall(SYS_getppid);
    ++r.ops;
  }
  r.ns = now_ns() - start;
  r.cpu = cpu_ns() - cpu_start;
  return r;
}

// Sleeps until SIGINT or SIGTERM without a window between the test and the sleep in
// which the signal could be lost: both stay blocked except inside sigsuspend().
static void sleep_until_stopped(void) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  while (!stop_requested) sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static struct io_uring *open_rings(const struct options *o) {
  struct io_uring *rings = calloc(o->rings, sizeof *rings);
  if (!rings) die("out of memory");
  for (unsigned i = 0; i < o->rings; ++i) open_ring(o, &rings[i], o->depth);
  return rings;
}

static void close_rings(const struct options *o, struct io_uring *rings) {
  for (unsigned i = 0; i < o->rings; ++i) io_uring_queue_exit(&rings[i]);
  free(rings);
}

// Processes, not threads: each has its own fd table, as separate programs on a busy
// box do, and an attaching tracer walks every one.
static pid_t spawn_holder(const struct options *o, int ready_fd) {
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (pid > 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  struct io_uring *rings = open_rings(o);
  if (write(ready_fd, "r", 1) != 1) _exit(1);
  sleep_until_stopped();
  close_rings(o, rings);
  _exit(0);
}

struct result run_hold(const struct options *o) {
  int p[2];
  if (pipe(p)) die("pipe: %s", strerror(errno));
  pid_t *children = calloc(o->processes, sizeof *children);
  if (!children) die("out of memory");
  for (unsigned i = 1; i < o->processes; ++i) children[i] = spawn_holder(o, p[1]);
  struct io_uring *rings = open_rings(o);
  char byte;
  for (unsigned i = 1; i < o->processes; ++i) {
    if (read(p[0], &byte, 1) != 1) die("a holder process failed to open its rings");
  }
  fprintf(stderr, "READY pid=%d\n", (int)getpid());
  sleep_until_stopped();
  for (unsigned i = 1; i < o->processes; ++i) kill(children[i], SIGTERM);
  for (unsigned i = 1; i < o->processes; ++i) waitpid(children[i], NULL, 0);
  close_rings(o, rings);
  free(children);
  close(p[0]);
  close(p[1]);
  return (struct result){0};
}
