// SPDX-License-Identifier: MIT
// Requests that wait on an event which never comes, as a set that grows all through
// the run (leak-growing) or stays the same size (steady-recv, a server's armed
// receives).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inject.h"

/* --------------------------------------------------------- leak-growing */

#define GROWING_INTERVAL_MS 10u
#define GROWING_NOPS_PER_TICK 16u
// fds the process has besides the pipes: stdio, the ring, fdinfo reads.
#define GROWING_FD_SLACK 32u

// Each waiting READ holds a pipe (two fds) until exit.
static void check_fd_budget(unsigned long pipes) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0) fail_errno("getrlimit");
  if (rl.rlim_cur != RLIM_INFINITY && 2 * pipes + GROWING_FD_SLACK > rl.rlim_cur)
    bad_args("leak-growing: COUNT %lu needs %lu fds, RLIMIT_NOFILE is %llu", pipes,
             2 * pipes + GROWING_FD_SLACK, (unsigned long long)rl.rlim_cur);
}

/*
 * One tick: a 1-byte READ on a fresh, empty pipe, submitted in one io_uring_submit()
 * with GROWING_NOPS_PER_TICK NOPs. The READ's nonblocking attempt finds the pipe empty,
 * so the kernel arms poll, and it waits forever: both ends of the pipe stay open and
 * nothing writes to it. The NOPs complete inline and are all reaped, and the READ must
 * have posted nothing.
 */
static void growing_tick(struct ctx *c, unsigned char *buf, unsigned long long *ino) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) fail_errno("pipe2");
  *ino = fd_ino(fds[0]);
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_read(sqe, fds[0], buf, 1, 0);
  io_uring_sqe_set_data64(sqe, c->next_user_data++);
  const uint64_t first_nop = c->next_user_data;
  for (unsigned i = 0; i < GROWING_NOPS_PER_TICK; i++) {
    sqe = get_sqe(c);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, c->next_user_data++);
  }
  submit_queued(c, 1 + GROWING_NOPS_PER_TICK);
  use_op(c, OP_READ)->submitted++;
  struct op_stats *nop = use_op(c, OP_NOP);
  nop->submitted += GROWING_NOPS_PER_TICK;

  bool seen[GROWING_NOPS_PER_TICK] = {false};
  for (unsigned done = 0; done < GROWING_NOPS_PER_TICK; done++) {
    struct cqe_copy q = reap(c);
    batch_index(q.ud, first_nop, GROWING_NOPS_PER_TICK, seen);
    count_cqe(nop, q.res, q.flags);
    if (q.res != 0) fail("NOP user_data=%llu: res=%d", (unsigned long long)q.ud, q.res);
  }
  if (io_uring_cq_ready(&c->ring) != 0) {
    struct cqe_copy q = reap(c);
    fail("READ on an empty pipe completed: user_data=%llu res=%d", (unsigned long long)q.ud,
         q.res);
  }
}

/*
 * COUNT ticks, interval_ns apart (absolute deadlines, no drift): the set of
 * waiting READs grows by one per tick, from 1 to COUNT, while the NOPs beside it
 * complete. At the end the kernel must list COUNT armed polls for the ring. The READs
 * are never reaped: they wait through --linger, and the kernel cancels them at exit.
 */
static void leak_growing_every(struct ctx *c, uint64_t interval_ns) {
  check_fd_budget(c->count);
  unsigned char *bufs = calloc(c->count, 1);
  unsigned long long *inos = calloc(c->count, sizeof(*inos));
  if (bufs == NULL || inos == NULL) fail("calloc: %s", strerror(errno));
  use_op(c, OP_READ);
  const uint64_t start = now_ns();
  for (unsigned long i = 0; i < c->count; i++) {
    sleep_until_ns(start + i * interval_ns);
    growing_tick(c, bufs + i, inos + i);
  }
  const unsigned armed = fdinfo_count(c, "PollList");
  if (armed != c->count) fail("the ring lists %u armed polls, expected %lu", armed, c->count);
  // bufs stays allocated: the READs could still write into it until exit.
  note(c, "GROUND-TRUTH leak growing=%lu interval_us=%llu\n", c->count,
       (unsigned long long)(interval_ns / 1000));
  // Each waiting READ's pipe, oldest first: uringscope --files names a leaked request by it.
  char list[4096];
  size_t at = 0;
  for (unsigned long i = 0; i < c->count && at < sizeof(list) - 24; i++)
    at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%llu", i ? "," : "", inos[i]);
  note(c, "GROUND-TRUTH leak_pipes inos=%s\n", list);
  free(inos);
}

void scenario_leak_growing(struct ctx *c) {
  leak_growing_every(c, GROWING_INTERVAL_MS * 1000000ull);
}

/* The set spread over the whole 2 s window of a -p run: COUNT READs, 2 s / COUNT apart. */
void scenario_leak_growing_slow(struct ctx *c) {
  leak_growing_every(c, c->count ? 2000000000ull / c->count : 0);
}

/* ---------------------------------------------------------- steady-recv */

#define STEADY_ARMED 8u
#define STEADY_INTERVAL_MS 10u

// The armed set: one RECV per socketpair, each waiting on end 1 for what end 0 sends.
static struct {
  int sock[STEADY_ARMED][2];
  uint64_t ud[STEADY_ARMED];   // user_data of the RECV armed on each
  uint64_t buf[STEADY_ARMED];  // where it receives
} steady;

void prepare_steady_sockets(struct ctx *c) {
  (void)c;
  for (unsigned k = 0; k < STEADY_ARMED; k++)
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, steady.sock[k]) < 0)
      fail_errno("socketpair");
}

static void steady_arm(struct ctx *c, unsigned k) {
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_recv(sqe, steady.sock[k][1], &steady.buf[k], sizeof(steady.buf[k]), 0);
  steady.ud[k] = c->next_user_data++;
  io_uring_sqe_set_data64(sqe, steady.ud[k]);
}

static void check_none_posted(struct ctx *c) {
  if (io_uring_cq_ready(&c->ring) != 0) {
    struct cqe_copy q = reap(c);
    fail("RECV on an empty socket completed: user_data=%llu res=%d", (unsigned long long)q.ud,
         q.res);
  }
}

/*
 * STEADY_ARMED RECVs armed once at the start (one submit), on empty sockets, so each
 * arms poll. Then COUNT times, STEADY_INTERVAL_MS apart, round robin: 8 bytes are sent
 * to one socket, its RECV's CQE is reaped and checked, and a new RECV is armed on it at
 * once. The set waiting is STEADY_ARMED the whole time, and it stays armed through
 * --linger until exit.
 */
void scenario_steady_recv(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_RECV);
  for (unsigned k = 0; k < STEADY_ARMED; k++) steady_arm(c, k);
  submit_queued(c, STEADY_ARMED);
  st->submitted += STEADY_ARMED;
  check_none_posted(c);

  const uint64_t start = now_ns();
  for (unsigned long i = 0; i < c->count; i++) {
    sleep_until_ns(start + (i + 1) * STEADY_INTERVAL_MS * 1000000ull);
    const unsigned k = (unsigned)(i % STEADY_ARMED);
    const uint64_t msg = i + 1;
    send_all(steady.sock[k][0], &msg, sizeof(msg));
    struct cqe_copy q = reap(c);
    if (q.ud != steady.ud[k]) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != (int)sizeof(msg) || steady.buf[k] != msg)
      fail("RECV user_data=%llu: res=%d, expected %zu bytes of message %llu",
           (unsigned long long)q.ud, q.res, sizeof(msg), (unsigned long long)msg);
    steady_arm(c, k);
    submit_queued(c, 1);
    st->submitted++;
    check_none_posted(c);
  }
  const unsigned armed = fdinfo_count(c, "PollList");
  if (armed != STEADY_ARMED)
    fail("the ring lists %u armed polls, expected %u", armed, STEADY_ARMED);
  note(c, "GROUND-TRUTH steady armed=%u interval_ms=%u\n", STEADY_ARMED, STEADY_INTERVAL_MS);
}
