// SPDX-License-Identifier: MIT
// The boundary between the kernel and the program, the ground truth of uringscope's CQ
// ring index timing: reap-lag leaves every CQE in the CQ ring REAP_HOLD_MS after it is
// there before marking it seen (io_uring_cqe_seen() is inline: no system call tells the
// kernel, only the ring's head moves). reap-lag-raw does the same on a ring of its own,
// set up and driven with raw system calls and its own mappings, as programs without
// liburing (Rust's io-uring crate, Go, Java) do: nothing there for a uprobe to see.
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

/* One NOP submitted alone and its CQE waited for (it completes inside the submit call),
 * its CQE held `hold_ms` before io_uring_cqe_seen(); the hold, from the moment the CQE
 * was seen in the ring, goes into `h`. */
static void nop_held(struct ctx *c, struct op_stats *st, unsigned hold_ms, struct hold_stats *h) {
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, c->next_user_data++);
  submit_queued(c, 1);
  st->submitted++;
  struct io_uring_cqe *cqe = wait_one(c);
  const uint64_t seen = now_ns();
  count_cqe(st, cqe->res, cqe->flags);
  if (cqe->res != 0) fail("NOP returned %d", cqe->res);
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
