// SPDX-License-Identifier: MIT
// Matching CQEs that come without a request pointer (multishot CQEs on 6.13+, and on
// some paths before), the way servers make them hard: shared-udata (two live requests
// with one user_data) and multishot-storm (a multishot request beside a flood of others).
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "inject.h"

// NOPs submitted and reaped around each poll event of multishot-storm.
#define STORM_NOPS_PER_EVENT 1000u

static uint64_t arm_multishot_poll(struct ctx *c, int fd, uint64_t ud) {
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_poll_multishot(sqe, fd, POLLIN);
  io_uring_sqe_set_data64(sqe, ud);
  submit_queued(c, 1);
  use_op(c, OP_POLL_ADD)->submitted++;
  return ud;
}

/* One poll event: a byte makes the pipe readable, the CQE (F_MORE) is reaped, the byte
 * is read back so that the next write wakes the poll again. */
static void poll_event(struct ctx *c, uint64_t poll_ud, unsigned char byte) {
  pipe_put(c, byte);
  struct cqe_copy q = reap(c);
  if (q.ud != poll_ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
  count_cqe(use_op(c, OP_POLL_ADD), q.res, q.flags);
  if (!(q.flags & IORING_CQE_F_MORE)) fail("multishot poll ended early: res=%d", q.res);
  pipe_take(c, byte);
}

/* Ends the multishot poll: its last CQE (-ECANCELED, no F_MORE) and the removal's own. */
static void remove_poll(struct ctx *c, uint64_t poll_ud) {
  struct op_stats *rm = use_op(c, OP_POLL_REMOVE);
  const uint64_t rm_ud = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_poll_remove(sqe, poll_ud);
  io_uring_sqe_set_data64(sqe, rm_ud);
  submit_queued(c, 1);
  rm->submitted++;
  for (int seen = 0; seen < 2; seen++) {
    struct cqe_copy q = reap(c);
    if (q.ud == poll_ud)
      count_cqe(use_op(c, OP_POLL_ADD), q.res, q.flags);
    else if (q.ud == rm_ud)
      count_cqe(rm, q.res, q.flags);
    else
      fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
  }
}

/*
 * A multishot POLL_ADD and a READ share one user_data, as a server's requests for one
 * connection do. While the READ waits on an empty pipe, COUNT poll events post CQEs
 * that carry only that user_data: they could be either request's, so a tracer must not
 * give them to the READ. Then the READ completes (its CQE names its request), and COUNT
 * more poll events follow, which belong to the poll alone.
 */
void scenario_shared_udata(struct ctx *c) {
  int other[2];
  if (pipe2(other, O_CLOEXEC) < 0) fail_errno("pipe2");
  use_op(c, OP_POLL_ADD)->show_multishot = true;
  struct op_stats *rd = use_op(c, OP_READ);
  const uint64_t shared = c->next_user_data++;
  arm_multishot_poll(c, c->pipe_rd, shared);

  unsigned char in = 0, out = 0x42;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_read(sqe, other[0], &in, 1, 0);
  io_uring_sqe_set_data64(sqe, shared);
  submit_queued(c, 1);
  rd->submitted++;
  for (unsigned long i = 0; i < c->count; i++) poll_event(c, shared, (unsigned char)i);

  if (write(other[1], &out, 1) != 1) fail_errno("write to the READ's pipe");
  struct cqe_copy q = reap(c);
  if (q.ud != shared || q.res != 1 || (q.flags & IORING_CQE_F_MORE) || in != out)
    fail("READ completion: user_data=%llu res=%d flags=%u", (unsigned long long)q.ud, q.res,
         q.flags);
  count_cqe(rd, q.res, q.flags);

  for (unsigned long i = 0; i < c->count; i++) poll_event(c, shared, (unsigned char)i);
  remove_poll(c, shared);
  close(other[0]);
  close(other[1]);
  note(c, "GROUND-TRUTH shared poll_events_while_read_waits=%lu poll_events_alone=%lu\n",
       c->count, c->count);
}

/*
 * One multishot POLL_ADD stays armed while STORM_NOPS_PER_EVENT NOPs with unique
 * user_data are submitted and reaped before each of its COUNT events: every one of its
 * CQEs must still be found.
 */
void scenario_multishot_storm(struct ctx *c) {
  use_op(c, OP_POLL_ADD)->show_multishot = true;
  const uint64_t poll_ud = c->next_user_data++;
  arm_multishot_poll(c, c->pipe_rd, poll_ud);
  for (unsigned long i = 0; i < c->count; i++) {
    run_batched_count(c, OP_NOP, 32, 0, STORM_NOPS_PER_EVENT);
    poll_event(c, poll_ud, (unsigned char)i);
  }
  remove_poll(c, poll_ud);
  note(c, "GROUND-TRUTH storm nops=%lu poll_events=%lu\n", c->count * STORM_NOPS_PER_EVENT,
       c->count);
}
