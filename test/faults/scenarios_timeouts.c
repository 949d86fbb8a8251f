// SPDX-License-Identifier: MIT
// timeout-flood: TIMEOUTs that expire into a full 16-entry CQ, so most of their CQEs
// take the kernel's overflow list, and the kernel's own count of that list.
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

// Every TIMEOUT is relative, with no completion count (off = 0): it ends only by
// expiring, with -ETIME, this long after its submit.
#define FLOOD_TIMEOUT_NS 1000000
// TIMEOUTs in flight per round: eight CQs' worth, so 7 in 8 of their CQEs overflow.
#define FLOOD_BURST (8u * SMALL_CQ_ENTRIES)
// A round whose CQEs are not all posted by then fails the run (1 ms timeouts).
#define FLOOD_POST_DEADLINE_NS 5000000000ull

struct flood_round {
  unsigned in_ring;     // CQEs posted straight into the ring
  unsigned overflowed;  // CQEs on the kernel's overflow list
};

// n TIMEOUTs, up to sq_entries per io_uring_submit(), none reaped meanwhile.
static void flood_submit(struct ctx *c, struct op_stats *st, unsigned n,
                         struct __kernel_timespec *ts) {
  unsigned long remaining = n;
  while (remaining > 0) {
    unsigned b = batch_size(c, c->params.sq_entries, remaining);
    for (unsigned i = 0; i < b; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_timeout(sqe, ts, 0, 0);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, b);
    st->submitted += b;
    remaining -= b;
  }
}

/*
 * Waits until all n CQEs of the round are posted, without moving the CQ head. The
 * timers fire asynchronously, and the CQEs are posted by task work in this thread
 * whenever it leaves a system call (here: the fdinfo reads and the sleeps). The list is
 * counted before the ring. Both only grow, and the round has only n CQEs. So
 * ring + list == n proves that all are posted and that the list count is still current.
 */
static struct flood_round flood_wait_posted(struct ctx *c, unsigned n) {
  const uint64_t deadline = now_ns() + FLOOD_POST_DEADLINE_NS;
  struct flood_round r;
  for (;;) {
    r.overflowed = fdinfo_count(c, "CqOverflowList");
    r.in_ring = io_uring_cq_ready(&c->ring);
    if (r.in_ring + r.overflowed == n) break;
    if (r.in_ring + r.overflowed > n)
      fail("%u CQEs in the ring and %u on the overflow list for a round of %u TIMEOUTs",
           r.in_ring, r.overflowed, n);
    if (now_ns() > deadline)
      fail("after 5 s only %u of %u TIMEOUT CQEs are posted", r.in_ring + r.overflowed, n);
    sleep_ms(1);
  }
  // The head did not move, so the ring took the first CQEs until it was full, and the
  // list took the rest.
  const unsigned want_ring = n < c->params.cq_entries ? n : c->params.cq_entries;
  if (r.in_ring != want_ring)
    fail("round of %u TIMEOUTs: %u CQEs in the ring, expected %u", n, r.in_ring, want_ring);
  if ((r.overflowed > 0) != io_uring_cq_has_overflow(&c->ring))
    fail("CQ overflow flag disagrees with %u CQEs on the overflow list", r.overflowed);
  return r;
}

// Reaps the round. Each wait on an empty ring enters the kernel, which flushes the
// next CQEs from the overflow list into the ring.
static void flood_reap(struct ctx *c, struct op_stats *st, uint64_t first, unsigned n,
                       bool *seen) {
  memset(seen, 0, n * sizeof(*seen));
  for (unsigned done = 0; done < n; done++) {
    struct cqe_copy q = reap(c);
    batch_index(q.ud, first, n, seen);
    count_cqe(st, q.res, q.flags);
    if (q.res != -ETIME)
      fail("TIMEOUT user_data=%llu: res=%d, expected -ETIME", (unsigned long long)q.ud, q.res);
  }
  if (io_uring_cq_ready(&c->ring) != 0 || io_uring_cq_has_overflow(&c->ring))
    fail("CQEs left after reaping a round of %u TIMEOUTs", n);
}

/*
 * COUNT TIMEOUTs in rounds of FLOOD_BURST: submit the round, wait until every one has
 * expired and posted its CQE (the ring full, the rest on the overflow list), then reap
 * the round entirely before the next. At most FLOOD_BURST are in flight, and only
 * CQEs known to be posted are waited for, so a full CQ never stalls the run.
 */
void scenario_timeout_flood(struct ctx *c) {
  // Without NODROP (before 5.5) the kernel drops what does not fit instead.
  if (!(c->params.features & IORING_FEAT_NODROP)) fail("kernel lacks IORING_FEAT_NODROP");
  if (c->params.cq_entries != SMALL_CQ_ENTRIES)
    fail("CQ has %u entries, expected %u", c->params.cq_entries, SMALL_CQ_ENTRIES);
  struct op_stats *st = use_op(c, OP_TIMEOUT);
  struct __kernel_timespec ts = {.tv_sec = 0, .tv_nsec = FLOOD_TIMEOUT_NS};
  bool *seen = calloc(FLOOD_BURST, sizeof(*seen));
  if (seen == NULL) fail("calloc: %s", strerror(errno));

  unsigned long long overflowed = 0, in_ring = 0;
  unsigned long remaining = c->count;
  while (remaining > 0) {
    const unsigned n = remaining < FLOOD_BURST ? (unsigned)remaining : FLOOD_BURST;
    const uint64_t first = c->next_user_data;
    flood_submit(c, st, n, &ts);
    struct flood_round r = flood_wait_posted(c, n);
    cq_dropped(c);
    flood_reap(c, st, first, n, seen);
    overflowed += r.overflowed;
    in_ring += r.in_ring;
    remaining -= n;
  }
  free(seen);
  note_cq_overflow(c, overflowed, in_ring);
  note(c, "GROUND-TRUTH timeouts burst=%u timeout_ms=%u\n", FLOOD_BURST,
       (unsigned)(FLOOD_TIMEOUT_NS / 1000000));
}
