// SPDX-License-Identifier: MIT
// Scenarios that walk into a tracer's traps: multishot, link, overflow, cqe-skip,
// badop, sqpoll and inflight.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

// An opcode no kernel defines (IORING_OP_LAST is 63 on 6.18); io_init_req()
// rejects it before the submit tracepoint, which is what `badop` is about.
#define INVALID_OPCODE 250

/*
 * One submit, COUNT + 1 CQEs. On 6.13+ the intermediate (F_MORE) CQEs are
 * posted through the aux path without a request pointer, so a tracer must
 * find them by (ring, user_data); only the final -ECANCELED CQE carries the
 * request. Each wakeup is ours: the pipe is readable only between one write
 * and its read, so every write yields exactly one poll event. Any CQE that
 * arrives anyway is still reaped and counted, never assumed.
 */
void scenario_multishot(struct ctx *c) {
  struct op_stats *poll = use_op(c, OP_POLL_ADD);
  struct op_stats *rm = use_op(c, OP_POLL_REMOVE);
  poll->show_multishot = true;

  const uint64_t poll_ud = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_poll_multishot(sqe, c->pipe_rd, POLLIN);
  io_uring_sqe_set_data64(sqe, poll_ud);
  submit_queued(c, 1);
  poll->submitted++;

  for (unsigned long i = 0; i < c->count; i++) {
    const unsigned char byte = (unsigned char)(i & 0xff);
    pipe_put(c, byte);
    struct io_uring_cqe *cqe = wait_one(c);
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    io_uring_cqe_seen(&c->ring, cqe);
    if (ud != poll_ud) fail("unexpected completion user_data=%llu", (unsigned long long)ud);
    count_cqe(poll, res, flags);
    if (!(flags & IORING_CQE_F_MORE)) fail("multishot poll ended early: res=%d", res);
    if (res < 0 || !(res & POLLIN)) fail("multishot poll CQE res=%d has no POLLIN", res);
    // Emptying the pipe is what lets the next write wake the poll again.
    pipe_take(c, byte);
  }

  const uint64_t rm_ud = c->next_user_data++;
  sqe = get_sqe(c);
  io_uring_prep_poll_remove(sqe, poll_ud);
  io_uring_sqe_set_data64(sqe, rm_ud);
  submit_queued(c, 1);
  rm->submitted++;

  // The removal posts two CQEs in either order: the poll's last one (no
  // F_MORE, -ECANCELED) and the removal's own.
  bool poll_done = false, rm_done = false;
  while (!poll_done || !rm_done) {
    struct io_uring_cqe *cqe = wait_one(c);
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    io_uring_cqe_seen(&c->ring, cqe);
    if (ud == poll_ud && !poll_done) {
      count_cqe(poll, res, flags);
      if (flags & IORING_CQE_F_MORE) continue;
      if (res != -ECANCELED) fail("multishot poll ended with res=%d, not -ECANCELED", res);
      poll_done = true;
    } else if (ud == rm_ud && !rm_done) {
      count_cqe(rm, res, flags);
      if (res != 0) fail("POLL_REMOVE failed: %s", strerror(-res));
      rm_done = true;
    } else {
      fail("unexpected completion user_data=%llu", (unsigned long long)ud);
    }
  }
}

/*
 * Chains of three NOPs (IOSQE_IO_LINK on the first two), one chain per
 * io_uring_submit(). Members after the head are issued from their
 * predecessor's completion, not at submit, yet each still fires the submit
 * tracepoint once.
 */
#define LINK_LENGTH 3u

void scenario_link(struct ctx *c) {
  // The kernel cuts a chain at the end of each submit call, so a chain must
  // fit in the SQ.
  if (c->params.sq_entries < LINK_LENGTH)
    fail("link needs --entries >= %u (sq_entries is %u)", LINK_LENGTH, c->params.sq_entries);
  struct op_stats *st = use_op(c, OP_NOP);
  for (unsigned long chain = 0; chain < c->count; chain++) {
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < LINK_LENGTH; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_flags(sqe, i + 1 < LINK_LENGTH ? IOSQE_IO_LINK : 0);
      io_uring_sqe_set_data64(sqe, first + i);
    }
    c->next_user_data += LINK_LENGTH;
    submit_queued(c, LINK_LENGTH);
    st->submitted += LINK_LENGTH;

    bool seen[LINK_LENGTH] = {false};
    for (unsigned done = 0; done < LINK_LENGTH; done++) {
      struct io_uring_cqe *cqe = wait_one(c);
      uint64_t ud = io_uring_cqe_get_data64(cqe);
      int res = cqe->res;
      unsigned flags = cqe->flags;
      io_uring_cqe_seen(&c->ring, cqe);
      if (ud < first || ud - first >= LINK_LENGTH || seen[ud - first])
        fail("unexpected completion user_data=%llu (chain is %llu..%llu)",
             (unsigned long long)ud, (unsigned long long)first,
             (unsigned long long)(first + LINK_LENGTH - 1));
      seen[ud - first] = true;
      count_cqe(st, res, flags);
      // A failed member would cancel the rest with -ECANCELED: not this workload.
      if (res != 0)
        fail("linked NOP user_data=%llu failed: %s", (unsigned long long)ud, strerror(-res));
    }
  }
  note(c, "GROUND-TRUTH links chains=%lu length=%u\n", c->count, LINK_LENGTH);
}

/*
 * COUNT NOPs submitted before any CQE is reaped, so once the CQ ring is full
 * every further CQE goes to the kernel's overflow list (tracepoint
 * io_uring_cqe_overflow, no io_uring_complete). NOPs complete inline, inside
 * the submitting io_uring_enter(), so when the last submit returns every
 * completion is either in the CQ ring or on the overflow list: the overflowed
 * count is COUNT minus what the ring holds. The later submits enter with
 * IORING_ENTER_GETEVENTS (liburing sees IORING_SQ_CQ_OVERFLOW), which tries
 * to flush the list, but the ring has no room: nothing moves until we reap.
 */
void scenario_overflow(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  bool *seen = calloc(c->count, sizeof(*seen));
  if (seen == NULL) fail("calloc: %s", strerror(errno));
  const uint64_t first = c->next_user_data;

  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = remaining < c->params.sq_entries ? (unsigned)remaining : c->params.sq_entries;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    remaining -= n;
  }

  const unsigned in_ring = io_uring_cq_ready(&c->ring);
  // Fails if the kernel could not even allocate an overflow entry and
  // dropped a CQE: then the run is not the one described.
  cq_dropped(c);
  if (in_ring > c->count) fail("CQ holds %u CQEs for %lu requests", in_ring, c->count);
  const unsigned long overflowed = c->count - in_ring;
  if ((overflowed > 0) != io_uring_cq_has_overflow(&c->ring))
    fail("CQ overflow flag disagrees with %lu CQEs missing from the ring", overflowed);

  // wait_one enters the kernel with GETEVENTS whenever the ring is empty, and
  // that call moves the next overflowed CQEs into the ring.
  for (unsigned long done = 0; done < c->count; done++) {
    struct io_uring_cqe *cqe = wait_one(c);
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    io_uring_cqe_seen(&c->ring, cqe);
    if (ud < first || ud - first >= c->count || seen[ud - first])
      fail("unexpected completion user_data=%llu", (unsigned long long)ud);
    seen[ud - first] = true;
    count_cqe(st, res, flags);
  }
  if (io_uring_cq_has_overflow(&c->ring)) fail("CQ overflow list not empty after reaping");
  free(seen);
  note_cq_overflow(c, overflowed, in_ring);
}

/*
 * COUNT NOPs with IOSQE_CQE_SKIP_SUCCESS post no CQE at all; one plain NOP
 * afterwards does, and since NOPs complete in submission order its CQE proves
 * that all the others were processed. Also the test for the 64-bit
 * req->flags: the skip bit is bit 6 of it.
 */
void scenario_cqe_skip(struct ctx *c) {
  if (!(c->params.features & IORING_FEAT_CQE_SKIP)) fail("kernel lacks IORING_FEAT_CQE_SKIP");
  struct op_stats *st = use_op(c, OP_NOP);
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = remaining < c->params.sq_entries ? (unsigned)remaining : c->params.sq_entries;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    remaining -= n;
  }

  const uint64_t last = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, last);
  submit_queued(c, 1);
  st->submitted++;

  struct io_uring_cqe *cqe = wait_one(c);
  uint64_t ud = io_uring_cqe_get_data64(cqe);
  int res = cqe->res;
  unsigned flags = cqe->flags;
  io_uring_cqe_seen(&c->ring, cqe);
  if (ud != last)
    fail("unexpected completion user_data=%llu (a skipped NOP posted a CQE)",
         (unsigned long long)ud);
  count_cqe(st, res, flags);
  if (io_uring_cq_ready(&c->ring) != 0) fail("CQEs left after the final NOP's");
  note(c, "GROUND-TRUTH cqe_skip skipped=%lu\n", c->count);
}

/*
 * SQEs with an opcode the kernel does not know. io_init_req() fails them
 * (tracepoint io_uring_req_failed) before the submit tracepoint, and each
 * still gets a CQE with -EINVAL. Without IORING_SETUP_SUBMIT_ALL the kernel
 * stops a submit call right after a failing SQE (that SQE counts as consumed:
 * io_uring_enter returns 1), and the rest stay queued, so submit_queued()
 * needs one io_uring_submit() per bad SQE: submit_calls == COUNT. Reaping
 * after each batch of at most sq_entries keeps the CQ (2 x sq_entries) from
 * overflowing.
 */
void scenario_badop(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_INVALID);
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = remaining < c->params.sq_entries ? (unsigned)remaining : c->params.sq_entries;
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      sqe->opcode = INVALID_OPCODE;
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    for (unsigned done = 0; done < n; done++) {
      struct io_uring_cqe *cqe = wait_one(c);
      uint64_t ud = io_uring_cqe_get_data64(cqe);
      int res = cqe->res;
      unsigned flags = cqe->flags;
      io_uring_cqe_seen(&c->ring, cqe);
      if (ud < first || ud - first >= n)
        fail("unexpected completion user_data=%llu", (unsigned long long)ud);
      if (res != -EINVAL) fail("opcode %d: res=%d, expected -EINVAL", INVALID_OPCODE, res);
      count_cqe(st, res, flags);
    }
    remaining -= n;
  }
  note(c, "GROUND-TRUTH invalid opcode=%d\n", INVALID_OPCODE);
}

/*
 * NOPs on an SQPOLL ring: the kernel thread iou-sqp-<pid> takes them from the
 * SQ, so io_uring_submit() only enters the kernel to wake that thread when it
 * has gone idle (and io_uring_wait_cqe when a CQE is not there yet). 32 per
 * batch, reaped before the next, as in `clean`.
 */
void scenario_sqpoll(struct ctx *c) {
  run_batched(c, OP_NOP, 32, 0);
  note(c, "GROUND-TRUTH sqpoll idle_ms=%u\n", c->params.sq_thread_idle);
}

/*
 * For `-p` attach: prepare (before READY) submits a single-shot POLL_ADD on
 * the empty pipe, which stays in flight; run (after SIGUSR1) makes the pipe
 * readable, reaps that CQE, then runs COUNT NOPs as `clean` does. A tracer
 * attached in between sees a completion it never saw submitted.
 */
void prepare_inflight(struct ctx *c) {
  prepare_pipe(c);
  struct op_stats *poll = use_op(c, OP_POLL_ADD);
  poll->show_before_ready = true;
  c->armed_user_data = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_poll_add(sqe, c->pipe_rd, POLLIN);
  io_uring_sqe_set_data64(sqe, c->armed_user_data);
  submit_queued(c, 1);
  poll->submitted++;
  poll->before_ready++;
  // The pipe is empty, so the poll must still be armed, not completed.
  if (io_uring_cq_ready(&c->ring) != 0) fail("POLL_ADD on an empty pipe completed at once");
}

void scenario_inflight(struct ctx *c) {
  struct op_stats *poll = use_op(c, OP_POLL_ADD);
  pipe_put(c, 0x5a);
  struct io_uring_cqe *cqe = wait_one(c);
  uint64_t ud = io_uring_cqe_get_data64(cqe);
  int res = cqe->res;
  unsigned flags = cqe->flags;
  io_uring_cqe_seen(&c->ring, cqe);
  if (ud != c->armed_user_data)
    fail("unexpected completion user_data=%llu", (unsigned long long)ud);
  count_cqe(poll, res, flags);
  if (res < 0 || !(res & POLLIN)) fail("POLL_ADD res=%d has no POLLIN", res);
  if (flags & IORING_CQE_F_MORE) fail("single-shot POLL_ADD posted IORING_CQE_F_MORE");
  pipe_take(c, 0x5a);
  run_batched(c, OP_NOP, 32, 0);
}
