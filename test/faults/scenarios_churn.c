// SPDX-License-Identifier: MIT
// ring-churn: the process opens and closes COUNT rings one after another, each running
// CHURN_NOPS NOPs, while a child it forked (not a target unless uringscope follows
// forks) churns rings of its own beside it, so that ring addresses the target frees are
// reused by the other process and the other way round. The child's work must not be
// charged to the target, and every one of the target's rings must keep its own numbers.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

#define CHURN_NOPS 3u       // per target ring: submitted in one call, reaped
#define CHURN_GAP_MS 20u    // between two target rings
#define BESIDE_NOPS 7u      // per ring of the process beside it
#define BESIDE_GAP_MS 5u

// One short-lived ring: set up, `nops` NOPs in one submit, all reaped, torn down.
static void one_ring(unsigned nops, struct op_stats *st, unsigned long long *submit_calls) {
  struct io_uring ring;
  int ret = io_uring_queue_init(16, &ring, 0);
  if (ret < 0) fail_uring("io_uring_queue_init", ret);
  for (unsigned i = 0; i < nops; i++) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) fail("ring-churn: no SQE");
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, i + 1);
  }
  ret = io_uring_submit(&ring);
  if (ret != (int)nops) fail_uring("io_uring_submit", ret < 0 ? ret : -EIO);
  if (submit_calls) ++*submit_calls;
  for (unsigned i = 0; i < nops; i++) {
    struct io_uring_cqe *cqe;
    ret = io_uring_wait_cqe(&ring, &cqe);
    if (ret < 0) fail_uring("io_uring_wait_cqe", ret);
    if (cqe->res != 0) fail("ring-churn: a NOP returned %d", cqe->res);
    io_uring_cqe_seen(&ring, cqe);
    if (st) {
      st->submitted++;
      st->completed++;
    }
  }
  io_uring_queue_exit(&ring);
}

// The process beside: churns until its parent closes the pipe, then writes how many
// rings it went through.
static void churn_beside(int stop_rd, int count_wr) {
  unsigned long rings = 0;
  for (;;) {
    char byte;
    const ssize_t n = read(stop_rd, &byte, 1);  // nonblocking: EOF means stop
    if (n == 0) break;
    one_ring(BESIDE_NOPS, NULL, NULL);
    rings++;
    sleep_ms(BESIDE_GAP_MS);
  }
  if (write(count_wr, &rings, sizeof rings) != (ssize_t)sizeof rings) _exit(1);
  _exit(0);
}

void scenario_ring_churn(struct ctx *c) {
  int stop[2], count[2];
  if (pipe2(stop, O_NONBLOCK | O_CLOEXEC) < 0 || pipe2(count, O_CLOEXEC) < 0) fail_errno("pipe2");
  if (fflush(stdout) != 0) fail_errno("fflush");
  const pid_t beside = fork();
  if (beside < 0) fail_errno("fork");
  if (beside == 0) {
    close(stop[1]);
    close(count[0]);
    churn_beside(stop[0], count[1]);
  }
  close(stop[0]);
  close(count[1]);
  struct op_stats *nop = use_op(c, OP_NOP);
  for (unsigned long i = 0; i < c->count; i++) {
    one_ring(CHURN_NOPS, nop, &c->submit_calls);
    c->sqes += CHURN_NOPS;
    sleep_ms(CHURN_GAP_MS);
  }
  close(stop[1]);
  unsigned long beside_rings = 0;
  if (read(count[0], &beside_rings, sizeof beside_rings) != (ssize_t)sizeof beside_rings)
    fail("ring-churn: the process beside did not report");
  int status = 0;
  if (waitpid(beside, &status, 0) != beside || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("ring-churn: the process beside failed");
  note(c, "GROUND-TRUTH churn rings=%lu nops_per_ring=%u beside_pid=%ld beside_rings=%lu "
          "beside_nops_per_ring=%u\n",
       c->count, CHURN_NOPS, (long)beside, beside_rings, BESIDE_NOPS);
}
