// SPDX-License-Identifier: MIT
// Ring churn: rings set up, used for one batch of NOPs and torn down, one after another,
// as a test suite or a short-lived worker does: what a tracer keeps of destroyed rings
// is what grows here.
#include <stdio.h>

#include "loadgen.h"

// One ring's life: set up, -b NOPs in one submit, all reaped, torn down.
static void one_ring(const struct options *o) {
  struct io_uring ring;
  int ret = io_uring_queue_init(o->depth, &ring, 0);
  if (ret < 0) die("io_uring_queue_init: %d", ret);
  for (unsigned i = 0; i < o->batch; i++) io_uring_prep_nop(io_uring_get_sqe(&ring));
  ret = io_uring_submit_and_wait(&ring, o->batch);
  if (ret != (int)o->batch) die("io_uring_submit_and_wait: %d", ret);
  struct io_uring_cqe *cqe;
  unsigned head, seen = 0;
  io_uring_for_each_cqe(&ring, head, cqe) {
    if (cqe->res != 0) die("a NOP returned %d", cqe->res);
    seen++;
  }
  io_uring_cq_advance(&ring, seen);
  io_uring_queue_exit(&ring);
}

struct result run_churn(const struct options *o) {
  if (o->wait_signal) wait_for_go();
  struct result r = {0};
  const uint64_t start = now_ns(), cpu0 = cpu_ns();
  const uint64_t until = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : 0;
  while (!stop_requested) {
    one_ring(o);
    r.ops++;
    if (o->ops && r.ops >= o->ops) break;
    // The clock is read every 64 rings: a ring's life is a few microseconds.
    if (until && (r.ops & 63) == 0 && now_ns() >= until) break;
  }
  r.ns = now_ns() - start;
  r.cpu = cpu_ns() - cpu0;
  return r;
}
