// SPDX-License-Identifier: MIT
// The boundary between the kernel and the program, the ground truth of uringscope's
// ring index timing: reap-lag leaves every CQE in the CQ ring REAP_HOLD_MS after it is
// there before marking it seen (io_uring_cqe_seen() is inline: no system call tells the
// kernel, only the ring's head moves). reap-lag-raw does the same on a ring of its own,
// set up and driven with raw system calls and its own mappings, as programs without
// liburing (Rust's io-uring crate, Go, Java) do: nothing there for a uprobe to see.
// sq-wait leaves SQEs in an SQPOLL ring's SQ while its thread sleeps. reap-lag-wait
// fetches each CQE 50 ms late through an exported liburing call, the uprobes' exact case.
#define _GNU_SOURCE
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject.h"

#define REAP_HOLD_MS 50u

/* The holds of one scenario's CQEs. */
struct hold_stats {
  uint64_t min_ns, max_ns, sum_ns;
};

static void hold_add(struct hold_stats *h, uint64_t ns) {
  if (ns < h->min_ns) h->min_ns = ns;
  if (ns > h->max_ns) h->max_ns = ns;
  h->sum_ns += ns;
}

static void hold_note(struct ctx *c, const struct hold_stats *h) {
  const uint64_t min_ns = c->count ? h->min_ns : 0;
  note(c, "GROUND-TRUTH reap cqes=%lu hold_ms=%u hold_min_us=%llu hold_max_us=%llu "
       "hold_avg_us=%llu\n", c->count, REAP_HOLD_MS, (unsigned long long)(min_ns / 1000),
       (unsigned long long)(h->max_ns / 1000),
       (unsigned long long)(c->count ? h->sum_ns / c->count / 1000 : 0));
}

/* One NOP submitted alone and its CQE waited for (it completes inside the submit call)
 * and counted, not reaped; *seen: when the CQE was seen in the ring. */
static struct io_uring_cqe *nop_in_ring(struct ctx *c, struct op_stats *st, uint64_t *seen) {
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, c->next_user_data++);
  submit_queued(c, 1);
  st->submitted++;
  struct io_uring_cqe *cqe = wait_one(c);
  *seen = now_ns();
  count_cqe(st, cqe->res, cqe->flags);
  if (cqe->res != 0) fail("NOP returned %d", cqe->res);
  return cqe;
}

/* One NOP, its CQE held `hold_ms` before io_uring_cqe_seen(); the hold, from the moment
 * the CQE was seen in the ring, goes into `h`. */
static void nop_held(struct ctx *c, struct op_stats *st, unsigned hold_ms, struct hold_stats *h) {
  uint64_t seen;
  struct io_uring_cqe *cqe = nop_in_ring(c, st, &seen);
  if (hold_ms) sleep_ms(hold_ms);
  hold_add(h, now_ns() - seen);
  io_uring_cqe_seen(&c->ring, cqe);
}

/*
 * COUNT times: one NOP submitted alone, its CQE held REAP_HOLD_MS before
 * io_uring_cqe_seen(). The hold is measured from the moment the CQE was seen in the ring
 * to the call that reaps it: the kernel posted it a little before the first, so the true
 * lag is at least the hold.
 */
void scenario_reap_lag(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  struct hold_stats h = {UINT64_MAX, 0, 0};
  for (unsigned long i = 0; i < c->count; i++) nop_held(c, st, REAP_HOLD_MS, &h);
  hold_note(c, &h);
}

/*
 * One NOP whose CQE is held COUNT milliseconds before io_uring_cqe_seen(): a CQE left
 * unreaped for long, which the timer looks at less and less often (US_REAP_TICK_BACKOFF);
 * then one NOP reaped at once, whose submit is a look that sees the held CQE reaped
 * (without it, the reap could go unseen as the process tears its ring down).
 */
void scenario_reap_hold(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  struct hold_stats h = {UINT64_MAX, 0, 0}, at_once = {UINT64_MAX, 0, 0};
  nop_held(c, st, (unsigned)c->count, &h);
  nop_held(c, st, 0, &at_once);
  note(c, "GROUND-TRUTH reap held=1 hold_ms=%lu hold_min_us=%llu hold_max_us=%llu\n", c->count,
       (unsigned long long)(h.min_ns / 1000), (unsigned long long)(h.max_ns / 1000));
}

#define REAP_BATCH 8u

/*
 * COUNT batches: REAP_BATCH NOPs submitted at once (they complete inside the submit
 * call), then reaped one at a time REAP_HOLD_MS apart with inline calls only
 * (io_uring_peek_cqe() on a ready CQE, io_uring_cqe_seen()): between two reaps only the
 * CQ head moves, no system call. The k-th CQE of a batch waits k holds; each hold runs
 * from the moment the whole batch is in the ring to the reap.
 */
void scenario_reap_batch(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  struct hold_stats h = {UINT64_MAX, 0, 0};
  struct io_uring_cqe *cqe;
  for (unsigned long i = 0; i < c->count; i++) {
    for (unsigned k = 0; k < REAP_BATCH; k++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, REAP_BATCH);
    st->submitted += REAP_BATCH;
    const int ret = io_uring_wait_cqe_nr(&c->ring, &cqe, REAP_BATCH);
    if (ret < 0) fail_uring("io_uring_wait_cqe_nr", ret);
    const uint64_t seen = now_ns();
    for (unsigned k = 0; k < REAP_BATCH; k++) {
      sleep_ms(REAP_HOLD_MS);
      if (io_uring_peek_cqe(&c->ring, &cqe) != 0) fail("CQE %u of the batch is gone", k);
      count_cqe(st, cqe->res, cqe->flags);
      if (cqe->res != 0) fail("NOP returned %d", cqe->res);
      hold_add(&h, now_ns() - seen);
      io_uring_cqe_seen(&c->ring, cqe);
    }
  }
  const unsigned long cqes = c->count * REAP_BATCH;
  note(c, "GROUND-TRUTH reap cqes=%lu batch=%u hold_ms=%u hold_min_us=%llu hold_max_us=%llu "
       "hold_avg_us=%llu\n", cqes, REAP_BATCH, REAP_HOLD_MS,
       (unsigned long long)(h.min_ns / 1000), (unsigned long long)(h.max_ns / 1000),
       (unsigned long long)(h.sum_ns / cqes / 1000));
}

/*
 * One NOP whose CQE the program never reaps: it is in the CQ ring COUNT milliseconds
 * when the program closes the ring and exits. Its age then is at least the hold.
 */
void scenario_reap_exit(struct ctx *c) {
  uint64_t seen;
  nop_in_ring(c, use_op(c, OP_NOP), &seen);
  sleep_ms((unsigned)c->count);
  note(c, "GROUND-TRUTH reap never=1 hold_min_us=%llu\n",
       (unsigned long long)((now_ns() - seen) / 1000));
}

/* A ring of its own, the way the kernel hands it out: fd, and the two rings and the SQE
 * array mapped at their offsets. */
struct raw_ring {
  int fd;
  unsigned sq_mask, cq_mask;
  _Atomic unsigned *sq_tail, *cq_head, *cq_tail;
  unsigned *sq_array;
  struct io_uring_sqe *sqes;
  struct io_uring_cqe *cqes;
};

static void *map_ring(int fd, size_t size, off_t offset) {
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
  if (p == MAP_FAILED) fail_errno("mmap of the raw ring");
  return p;
}

static struct raw_ring raw_ring_setup(unsigned entries) {
  struct io_uring_params p = {0};
  struct raw_ring r;
  r.fd = (int)syscall(__NR_io_uring_setup, entries, &p);
  if (r.fd < 0) fail_errno("io_uring_setup");
  char *sq = map_ring(r.fd, p.sq_off.array + p.sq_entries * sizeof(unsigned), IORING_OFF_SQ_RING);
  char *cq = map_ring(r.fd, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
                      IORING_OFF_CQ_RING);
  r.sqes = map_ring(r.fd, p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES);
  r.sq_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
  r.sq_tail = (_Atomic unsigned *)(sq + p.sq_off.tail);
  r.sq_array = (unsigned *)(sq + p.sq_off.array);
  r.cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
  r.cq_head = (_Atomic unsigned *)(cq + p.cq_off.head);
  r.cq_tail = (_Atomic unsigned *)(cq + p.cq_off.tail);
  r.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  return r;
}

/*
 * reap-lag through raw system calls: COUNT NOPs, one at a time, each submitted and
 * waited for with io_uring_enter(), its CQE held REAP_HOLD_MS, then reaped by a store to
 * the mapped CQ head. liburing's ring of this process stays idle.
 */
void scenario_reap_lag_raw(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  struct raw_ring r = raw_ring_setup(8);
  struct hold_stats h = {UINT64_MAX, 0, 0};
  for (unsigned long i = 0; i < c->count; i++) {
    const unsigned tail = atomic_load_explicit(r.sq_tail, memory_order_relaxed);
    const unsigned slot = tail & r.sq_mask;
    memset(&r.sqes[slot], 0, sizeof(r.sqes[slot]));
    r.sqes[slot].opcode = IORING_OP_NOP;
    r.sqes[slot].user_data = c->next_user_data++;
    r.sq_array[slot] = slot;
    atomic_store_explicit(r.sq_tail, tail + 1, memory_order_release);
    if (syscall(__NR_io_uring_enter, r.fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) != 1)
      fail_errno("io_uring_enter");
    st->submitted++;
    const unsigned head = atomic_load_explicit(r.cq_head, memory_order_relaxed);
    if (atomic_load_explicit(r.cq_tail, memory_order_acquire) == head) fail("no CQE after enter");
    const struct io_uring_cqe *cqe = &r.cqes[head & r.cq_mask];
    const uint64_t seen = now_ns();
    count_cqe(st, cqe->res, cqe->flags);
    if (cqe->res != 0) fail("NOP returned %d", cqe->res);
    sleep_ms(REAP_HOLD_MS);
    hold_add(&h, now_ns() - seen);
    atomic_store_explicit(r.cq_head, head + 1, memory_order_release);
  }
  note(c, "GROUND-TRUTH raw_ring fd=%d\n", r.fd);
  hold_note(c, &h);
  close(r.fd);
}

/* ------------------------------------------------------------------ sq-wait */

#define SQ_HOLD_MS 50u
/* After IORING_SQ_NEED_WAKEUP shows, the thread still checks the SQ once before it
 * sleeps: an SQE written in that instant is taken at once. */
#define SQ_ASLEEP_SETTLE_MS 5u

static void wait_poller_asleep(struct ctx *c) {
  for (unsigned i = 0; i < 2000; i++) {
    if (IO_URING_READ_ONCE(*c->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP) {
      sleep_ms(SQ_ASLEEP_SETTLE_MS);
      return;
    }
    sleep_ms(1);
  }
  fail("the SQPOLL thread did not go to sleep within 2 s");
}

/*
 * An SQPOLL ring whose thread idles out after 2 ms. COUNT times: once the thread sleeps,
 * a NOP is written and the SQ tail published as io_uring_submit() does, but without its
 * wakeup; SQ_HOLD_MS later the program wakes the thread (io_uring_enter with
 * IORING_ENTER_SQ_WAKEUP) and reaps the CQE. The hold runs from the tail store to the
 * wakeup call's return, so the SQE waited at least that long. A NOP first, submitted the
 * usual way, lets the tool learn the thread before it sleeps.
 */
void scenario_sq_wait(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  struct hold_stats h = {UINT64_MAX, 0, 0};
  unsigned long woken = 0, taken_early = 0;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, c->next_user_data++);
  submit_queued(c, 1);
  st->submitted++;
  struct cqe_copy q = reap(c);
  count_cqe(st, q.res, q.flags);
  for (unsigned long i = 0; i < c->count; i++) {
    wait_poller_asleep(c);
    const uint64_t ud = c->next_user_data++;
    sqe = get_sqe(c);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, ud);
    const unsigned head = io_uring_smp_load_acquire(c->ring.sq.khead);
    c->ring.sq.sqe_head = c->ring.sq.sqe_tail;
    io_uring_smp_store_release(c->ring.sq.ktail, c->ring.sq.sqe_tail);
    const uint64_t written = now_ns();
    st->submitted++;
    sleep_ms(SQ_HOLD_MS);
    if (io_uring_smp_load_acquire(c->ring.sq.khead) != head) {
      taken_early++;  // the thread saw it on its way to sleep: not a held SQE
    } else {
      if (syscall(__NR_io_uring_enter, c->ring.ring_fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0) < 0)
        fail_errno("io_uring_enter(IORING_ENTER_SQ_WAKEUP)");
      hold_add(&h, now_ns() - written);
      woken++;
    }
    q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != 0) fail("NOP user_data=%llu failed: %s", (unsigned long long)ud, strerror(-q.res));
  }
  note(c, "GROUND-TRUTH sq_wait held=%lu taken_early=%lu hold_ms=%u hold_min_us=%llu "
       "hold_max_us=%llu hold_sum_us=%llu\n", woken, taken_early, SQ_HOLD_MS,
       (unsigned long long)(woken ? h.min_ns / 1000 : 0), (unsigned long long)(h.max_ns / 1000),
       (unsigned long long)(h.sum_ns / 1000));
}

/* ----------------------------------------------------------- reap-lag-wait */

/*
 * COUNT times: one NOP submitted with io_uring_submit() (it completes inside the call),
 * its CQE seen ready in the mapped ring (inline, no call), REAP_HOLD_MS later fetched with
 * io_uring_wait_cqes(), an exported liburing call, and marked seen at once. The CQE is
 * posted inside the submit call and handed over inside the fetch, so its lag lies
 * between the hold (CQE seen ready -> the fetch's return) less the fetch's return path,
 * and the span (the submit call's start -> the fetch's return). Under a slow machine the
 * submit call's own return (a uretprobe with --liburing) widens the gap between the two.
 */
void scenario_reap_lag_wait(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  struct hold_stats h = {UINT64_MAX, 0, 0}, span = {UINT64_MAX, 0, 0};
  for (unsigned long i = 0; i < c->count; i++) {
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, c->next_user_data++);
    const uint64_t submit_start = now_ns();
    submit_queued(c, 1);
    st->submitted++;
    while (io_uring_cq_ready(&c->ring) == 0) {
    }
    const uint64_t ready = now_ns();
    sleep_ms(REAP_HOLD_MS);
    struct io_uring_cqe *cqe = NULL;
    const int ret = io_uring_wait_cqes(&c->ring, &cqe, 1, NULL, NULL);
    if (ret < 0 || !cqe) fail_uring("io_uring_wait_cqes", ret < 0 ? ret : -EIO);
    const uint64_t fetched = now_ns();
    hold_add(&h, fetched - ready);
    hold_add(&span, fetched - submit_start);
    count_cqe(st, cqe->res, cqe->flags);
    if (cqe->res != 0) fail("NOP returned %d", cqe->res);
    io_uring_cqe_seen(&c->ring, cqe);
  }
  note(c, "GROUND-TRUTH reap_wait handed=%lu hold_ms=%u hold_min_us=%llu hold_max_us=%llu "
       "hold_sum_us=%llu span_max_us=%llu\n", c->count, REAP_HOLD_MS,
       (unsigned long long)(c->count ? h.min_ns / 1000 : 0), (unsigned long long)(h.max_ns / 1000),
       (unsigned long long)(h.sum_ns / 1000), (unsigned long long)(span.max_ns / 1000 + 1));
}
