// SPDX-License-Identifier: MIT
// The boundary between the kernel and the program, the ground truth of uringscope's CQ
// ring index timing: reap-lag leaves every CQE in the CQ ring REAP_HOLD_MS after it is
// there before marking it seen (io_uring_cqe_seen() is inline: no system call tells the
// kernel, only the ring's head moves).
#define _GNU_SOURCE
#include "inject.h"

#define REAP_HOLD_MS 50u

/*
 * COUNT times: one NOP submitted alone (it completes inside the submit call), its CQE
 * waited for, then held REAP_HOLD_MS before io_uring_cqe_seen(). The hold is measured from
 * the moment the CQE was seen in the ring to the call that reaps it: the kernel posted
 * it a little before the first, so the true lag is at least the hold.
 */
void scenario_reap_lag(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  uint64_t min_ns = UINT64_MAX, max_ns = 0, sum_ns = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, c->next_user_data++);
    submit_queued(c, 1);
    st->submitted++;
    struct io_uring_cqe *cqe = wait_one(c);
    const uint64_t seen = now_ns();
    count_cqe(st, cqe->res, cqe->flags);
    if (cqe->res != 0) fail("NOP returned %d", cqe->res);
    sleep_ms(REAP_HOLD_MS);
    const uint64_t hold = now_ns() - seen;
    io_uring_cqe_seen(&c->ring, cqe);
    if (hold < min_ns) min_ns = hold;
    if (hold > max_ns) max_ns = hold;
    sum_ns += hold;
  }
  if (c->count == 0) min_ns = 0;
  note(c, "GROUND-TRUTH reap cqes=%lu hold_ms=%u hold_min_us=%llu hold_max_us=%llu "
       "hold_avg_us=%llu\n", c->count, REAP_HOLD_MS, (unsigned long long)(min_ns / 1000),
       (unsigned long long)(max_ns / 1000),
       (unsigned long long)(c->count ? sum_ns / c->count / 1000 : 0));
}
