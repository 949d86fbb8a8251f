// SPDX-License-Identifier: MIT
// Work that waits for a wakeup: an SQPOLL thread asleep at every submit
// (sqpoll-stall) and completions held as local task work until the app enters
// the kernel (defer-tw).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

/* -------------------------------------------------------- sqpoll-stall */

/*
 * One NOP at a time on an SQPOLL ring whose thread idles out after 2 ms;
 * before each NOP the app sleeps 20 ms, so the thread is asleep every time
 * and io_uring_submit must wake it (IORING_ENTER_SQ_WAKEUP). The flag is read
 * just before submitting, the same way liburing reads it.
 */
static void sqpoll_nops_apart(struct ctx *c, unsigned gap_ms, bool first_at_once) {
  struct op_stats *st = use_op(c, OP_NOP);
  unsigned long wakeups = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    if (i || !first_at_once) sleep_ms(gap_ms);
    const uint64_t ud = c->next_user_data++;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, ud);
    atomic_thread_fence(memory_order_seq_cst);  // as liburing's io_uring_smp_mb()
    if (IO_URING_READ_ONCE(*c->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP) wakeups++;
    submit_queued(c, 1);
    st->submitted++;
    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != 0) fail("NOP user_data=%llu failed: %s", (unsigned long long)ud, strerror(-q.res));
  }
  note(c, "GROUND-TRUTH sqpoll idle_ms=%u wakeups=%lu gap_ms=%u submitted=%lu\n",
       c->params.sq_thread_idle, wakeups, gap_ms, c->count);
}

void scenario_sqpoll_stall(struct ctx *c) { sqpoll_nops_apart(c, SQPOLL_STALL_GAP_MS, false); }

/* A sparse program: COUNT NOPs SQPOLL_SPARSE_GAP_MS apart, the first at once, on a ring
 * whose thread idles out after SQPOLL_SPARSE_IDLE_MS: asleep most of the run, it needs a
 * wake-up for every NOP but the first, at a rate far below a busy program's. */
void scenario_sqpoll_sparse(struct ctx *c) { sqpoll_nops_apart(c, SQPOLL_SPARSE_GAP_MS, true); }

/* ----------------------------------------------------------- defer-tw */

#define DEFER_WRITE_DELAY_MS 20u
#define DEFER_PEEK_MS 300u

struct delayed_write {
  int fd;
  unsigned char byte;
  uint64_t written_ns;  // read only after pthread_join
  int err;
};

static void *delayed_write_thread(void *arg) {
  struct delayed_write *dw = arg;
  sleep_ms(DEFER_WRITE_DELAY_MS);
  ssize_t w;
  do {
    w = write(dw->fd, &dw->byte, 1);
  } while (w < 0 && errno == EINTR);
  dw->err = w == 1 ? 0 : (w < 0 ? errno : EIO);
  dw->written_ns = now_ns();
  return NULL;
}

/*
 * SINGLE_ISSUER | DEFER_TASKRUN ring: a READ on an empty pipe arms poll; a
 * second thread writes a byte after 20 ms, which queues the retry as local
 * task work of the ring. Local work only runs inside io_uring_enter, so
 * while the app busy-polls the CQ ring for 300 ms (io_uring_peek_cqe enters
 * only when the SQ flags ask for a CQ flush, which they never do here) no
 * CQE can appear. io_uring_wait_cqe then enters, runs the work and gets it.
 * lag = CQE arrival - pipe write, min and max over the COUNT repetitions.
 */
void scenario_defer_tw(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_READ);
  uint64_t lag_min = UINT64_MAX, lag_max = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t ud = c->next_user_data++;
    unsigned char in = 0;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_read(sqe, c->pipe_rd, &in, 1, 0);
    io_uring_sqe_set_data64(sqe, ud);
    const uint64_t submitted = now_ns();
    submit_queued(c, 1);
    st->submitted++;
    if (io_uring_cq_ready(&c->ring) != 0) fail("READ on an empty pipe completed at once");

    struct delayed_write dw = {c->pipe_wr, (unsigned char)(i & 0xff), 0, 0};
    pthread_t th;
    int err = pthread_create(&th, NULL, delayed_write_thread, &dw);
    if (err != 0) fail("pthread_create: %s", strerror(err));

    while (now_ns() - submitted < DEFER_PEEK_MS * 1000000ull) {
      struct io_uring_cqe *cqe = NULL;
      int ret = io_uring_peek_cqe(&c->ring, &cqe);
      if (ret == -EAGAIN) continue;  // no CQE: what must happen
      if (ret < 0) fail_uring("io_uring_peek_cqe", ret);
      if (cqe != NULL)
        fail("CQE user_data=%llu appeared without io_uring_enter: task work was not deferred",
             (unsigned long long)io_uring_cqe_get_data64(cqe));
    }
    err = pthread_join(th, NULL);
    if (err != 0) fail("pthread_join: %s", strerror(err));
    if (dw.err != 0) fail("write to pipe: %s", strerror(dw.err));

    struct cqe_copy q = reap(c);
    const uint64_t arrived = now_ns();
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != 1)
      fail("READ pipe user_data=%llu returned %d, expected 1", (unsigned long long)ud, q.res);
    if (in != dw.byte) fail("READ pipe returned 0x%02x, wrote 0x%02x", in, dw.byte);
    const uint64_t lag = arrived - dw.written_ns;
    if (lag < lag_min) lag_min = lag;
    if (lag > lag_max) lag_max = lag;
  }
  note(c, "GROUND-TRUTH defer_tw lag_ms=%llu lag_max_ms=%llu peek_ms=%u write_delay_ms=%u\n",
       (unsigned long long)(lag_min / 1000000u), (unsigned long long)(lag_max / 1000000u),
       DEFER_PEEK_MS, DEFER_WRITE_DELAY_MS);
}
