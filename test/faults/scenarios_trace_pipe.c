// SPDX-License-Identifier: MIT
// pollretry-file: READs on trace_pipe of a private tracefs instance, and that
// instance's setup and removal on every exit path.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

/*
 * A regular file that needs poll: trace_pipe of a private tracefs instance.
 * Its state lives in a static so that the exit and signal paths can remove
 * the instance (they may only use async-signal-safe calls).
 */
#define TRACEFS_DIR "/sys/kernel/tracing"
#define TRACE_WAIT_MS 10u

static struct {
  char dir[128];  // instance directory; "" when there is none
  volatile sig_atomic_t active;
  int pipe_fd;
  int marker_fd;
  int ring_fd;
} trace_inst = {"", 0, -1, -1, -1};

static const int cleanup_signals[] = {SIGHUP, SIGINT, SIGTERM};

// Async-signal-safe. Closes the instance's files (and, on the failure paths,
// the ring, whose pending READ holds trace_pipe open), then removes the
// instance, retrying while released files still hold it (EBUSY).
static bool trace_instance_remove(bool close_ring) {
  if (!trace_inst.active) return true;
  trace_inst.active = 0;
  if (trace_inst.marker_fd >= 0) {
    // Lets a READ still waiting on trace_pipe finish.
    static const char line[] = "uringscope-inject cleanup\n";
    ssize_t ignored = write(trace_inst.marker_fd, line, sizeof(line) - 1);
    (void)ignored;
    close(trace_inst.marker_fd);
  }
  if (trace_inst.pipe_fd >= 0) close(trace_inst.pipe_fd);
  if (close_ring && trace_inst.ring_fd >= 0) close(trace_inst.ring_fd);
  trace_inst.marker_fd = trace_inst.pipe_fd = -1;
  for (int i = 0; i < 500; i++) {  // 5 s
    if (rmdir(trace_inst.dir) == 0 || errno == ENOENT) return true;
    if (errno != EBUSY) break;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  static const char msg[] = "inject: could not remove tracefs instance ";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
  ignored = write(STDERR_FILENO, trace_inst.dir, strlen(trace_inst.dir));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  return false;
}

static void trace_instance_atexit(void) { trace_instance_remove(true); }

static void trace_instance_on_signal(int sig) {
  trace_instance_remove(true);
  signal(sig, SIG_DFL);
  raise(sig);
}

void prepare_trace_instance(struct ctx *c) {
  struct stat st;
  if (stat(TRACEFS_DIR "/instances", &st) < 0) {
    if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0)
      fail("tracefs unavailable: %s/instances is missing and mounting tracefs there failed: %s "
           "(needs root and CONFIG_TRACING)",
           TRACEFS_DIR, strerror(errno));
    if (stat(TRACEFS_DIR "/instances", &st) < 0)
      fail("tracefs unavailable: no %s/instances after mounting tracefs", TRACEFS_DIR);
  }

  if (atexit(trace_instance_atexit) != 0) fail("atexit failed");
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = trace_instance_on_signal;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
    if (sigaction(cleanup_signals[i], &sa, NULL) < 0) fail_errno("sigaction");

  snprintf(trace_inst.dir, sizeof(trace_inst.dir), "%s/instances/uringscope-inject-%ld",
           TRACEFS_DIR, (long)getpid());
  trace_inst.ring_fd = c->ring.ring_fd;
  // Active before mkdir, so a signal right after it still removes the
  // instance (rmdir of a missing one counts as done).
  trace_inst.active = 1;
  if (mkdir(trace_inst.dir, 0700) < 0) {
    int err = errno;
    trace_inst.active = 0;
    fail("tracefs unavailable: mkdir %s: %s", trace_inst.dir, strerror(err));
  }

  char path[192];
  snprintf(path, sizeof(path), "%s/trace_pipe", trace_inst.dir);
  trace_inst.pipe_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (trace_inst.pipe_fd < 0) fail("open %s: %s", path, strerror(errno));
  snprintf(path, sizeof(path), "%s/trace_marker", trace_inst.dir);
  trace_inst.marker_fd = open(path, O_WRONLY | O_CLOEXEC);
  if (trace_inst.marker_fd < 0) fail("open %s: %s", path, strerror(errno));
  if (fstat(trace_inst.pipe_fd, &st) < 0) fail_errno("fstat trace_pipe");
  if (!S_ISREG(st.st_mode)) fail("%s/trace_pipe is not a regular file", trace_inst.dir);
}

/*
 * COUNT times: a READ on the instance's trace_pipe, which has no data. The
 * file is regular (REQ_F_ISREG) but pollable, so the inline attempt arms poll;
 * once a line is written to trace_marker the retry is punted to io-wq, which
 * reads it. The READ must still be pending after TRACE_WAIT_MS.
 */
void scenario_pollretry_file(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_READ);
  char buf[CHUNK + 1];
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t ud = c->next_user_data++;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_read(sqe, trace_inst.pipe_fd, buf, CHUNK, 0);
    io_uring_sqe_set_data64(sqe, ud);
    submit_queued(c, 1);
    st->submitted++;
    sleep_ms(TRACE_WAIT_MS);
    if (io_uring_cq_ready(&c->ring) != 0) fail("READ on an empty trace_pipe completed early");

    char line[64];
    int len = snprintf(line, sizeof(line), "uringscope-inject %lu\n", i);
    ssize_t w = write(trace_inst.marker_fd, line, (size_t)len);
    if (w < 0) fail_errno("write trace_marker");
    if (w != len) fail("write trace_marker: wrote %zd of %d bytes", w, len);

    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res <= 0)
      fail("READ trace_pipe user_data=%llu returned %d", (unsigned long long)ud, q.res);
    buf[q.res] = '\0';
    line[len - 1] = '\0';  // the pipe shows the marker text, with a prefix
    if (strstr(buf, line) == NULL)
      fail("READ trace_pipe user_data=%llu: no '%s' in what it returned", (unsigned long long)ud,
           line);
  }

  // Success path: no signal may run the cleanup at the same time.
  sigset_t all, old;
  sigfillset(&all);
  if (sigprocmask(SIG_BLOCK, &all, &old) < 0) fail_errno("sigprocmask");
  bool removed = trace_instance_remove(false);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (size_t k = 0; k < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); k++)
    if (sigaction(cleanup_signals[k], &dfl, NULL) < 0) fail_errno("sigaction");
  if (sigprocmask(SIG_SETMASK, &old, NULL) < 0) fail_errno("sigprocmask");
  if (!removed) fail("tracefs instance %s not removed", trace_inst.dir);

  note(c, "GROUND-TRUTH poll armed=%lu regular=%lu\n", c->count, c->count);
  note(c, "GROUND-TRUTH poll_file path=%s/trace_pipe\n", trace_inst.dir);
}
