// SPDX-License-Identifier: MIT
// The ring: setting it up, queueing and submitting SQEs, reaping and matching
// CQEs, and counting both per op; run_batched() is the workload most scenarios are.
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

/* ------------------------------------------------------------------ setup */

void setup_ring(struct ctx *c, unsigned entries, unsigned flags, unsigned sq_idle_ms) {
  memset(&c->params, 0, sizeof(c->params));
  c->params.flags = flags;
  if (flags & IORING_SETUP_CQSIZE) {
    // The CQ is fixed; --entries sizes only the SQ, which the kernel wants no larger.
    if (entries > SMALL_CQ_ENTRIES)
      bad_args("--entries %u: this scenario's CQ has %u entries, and the SQ may not be larger",
               entries, SMALL_CQ_ENTRIES);
    c->params.cq_entries = SMALL_CQ_ENTRIES;
  }
  if (flags & IORING_SETUP_SQPOLL)
    c->params.sq_thread_idle = sq_idle_ms != 0 ? sq_idle_ms : SQPOLL_IDLE_MS;
  int ret = io_uring_queue_init_params(entries, &c->ring, &c->params);
  if (ret < 0) fail_uring("io_uring_queue_init_params", ret);
}

/* ------------------------------------------------------------- submitting */

struct op_stats *use_op(struct ctx *c, enum op_kind op) {
  c->ops[op].used = true;
  return &c->ops[op];
}

struct io_uring_sqe *get_sqe(struct ctx *c) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
  // Callers queue at most sq_entries SQEs and submit them before queueing
  // more, so a full SQ means the scenario itself is wrong.
  if (sqe == NULL) fail("io_uring_get_sqe: submission queue full");
  return sqe;
}

// Loops because io_uring_submit() may consume fewer SQEs than are queued;
// the leftovers stay in the SQ and are picked up by the next call.
//
// Not on an SQPOLL ring: there liburing returns the SQ tail minus the head the
// poller last published, and the poller publishes its head only after a whole
// pass, once the CQEs of that pass are posted. A program that reaps a batch
// and queues the next in that gap gets back both batches (64 for 32 queued).
// Publishing the tail hands every queued SQE to the poller, so all n are in.
void submit_queued(struct ctx *c, unsigned n) {
  if (c->ring.flags & IORING_SETUP_SQPOLL) {
    int ret = io_uring_submit(&c->ring);
    if (ret < 0) fail_uring("io_uring_submit", ret);
    c->submit_calls++;
    c->sqes += n;
    return;
  }
  unsigned done = 0;
  while (done < n) {
    int ret = io_uring_submit(&c->ring);
    if (ret < 0) fail_uring("io_uring_submit", ret);
    if (ret == 0) fail("io_uring_submit: submitted 0 of %u queued SQEs", n - done);
    if ((unsigned)ret > n - done) fail("io_uring_submit: submitted %d, only %u queued", ret, n - done);
    c->submit_calls++;
    c->sqes += (unsigned)ret;
    done += (unsigned)ret;
  }
}

unsigned batch_size(const struct ctx *c, unsigned want, unsigned long remaining) {
  unsigned b = want < c->params.sq_entries ? want : c->params.sq_entries;
  return remaining < b ? (unsigned)remaining : b;
}

/* --------------------------------------------------------------- reaping */

struct io_uring_cqe *wait_one(struct ctx *c) {
  struct io_uring_cqe *cqe = NULL;
  for (;;) {
    int ret = io_uring_wait_cqe(&c->ring, &cqe);
    if (ret == -EINTR) continue;  // e.g. SIGSTOP/SIGCONT from a debugger
    if (ret < 0) fail_uring("io_uring_wait_cqe", ret);
    return cqe;
  }
}

struct cqe_copy reap(struct ctx *c) {
  struct io_uring_cqe *cqe = wait_one(c);
  struct cqe_copy out = {io_uring_cqe_get_data64(cqe), cqe->res, cqe->flags};
  io_uring_cqe_seen(&c->ring, cqe);
  return out;
}

// Index of `ud` in the batch first..first+n-1; fails on a foreign or repeated one.
unsigned batch_index(uint64_t ud, uint64_t first, unsigned n, bool *seen) {
  if (ud < first || ud - first >= n)
    fail("unexpected completion user_data=%llu (batch is %llu..%llu)", (unsigned long long)ud,
         (unsigned long long)first, (unsigned long long)(first + n - 1));
  unsigned i = (unsigned)(ud - first);
  if (seen[i]) fail("duplicate completion user_data=%llu", (unsigned long long)ud);
  seen[i] = true;
  return i;
}

void count_cqe(struct op_stats *st, int res, unsigned flags) {
  st->completed++;
  if (res < 0) st->errors++;
  if (res > 0) st->positive_results += (unsigned)res;
  if (flags & IORING_CQE_F_MORE) st->multishot_cqes++;
}

/* ------------------------------------------------------------ CQ overflow */

// The kernel's count of CQEs it dropped (rings->cq_overflow, liburing's *cq.koverflow).
// With IORING_FEAT_NODROP (5.5+) those are only the CQEs it could not even allocate an
// overflow entry for, and a run that lost one is not the one described: it fails.
unsigned cq_dropped(const struct ctx *c) {
  const unsigned dropped = IO_URING_READ_ONCE(*c->ring.cq.koverflow);
  if (dropped != 0) fail("the kernel dropped %u CQEs (overflow allocation failed)", dropped);
  return dropped;
}

// The line of the scenarios that overflow the CQ on purpose: CQEs that went through the
// kernel's overflow list, CQEs posted straight into the ring, and the dropped count.
void note_cq_overflow(struct ctx *c, unsigned long long overflowed, unsigned long long in_ring) {
  note(c, "GROUND-TRUTH cq overflowed=%llu in_ring=%llu dropped=%u\n", overflowed, in_ring,
       cq_dropped(c));
}

/* --------------------------------------------------------------- workload */

/*
 * Issues c->count requests of one op in batches: queue `batch` SQEs, submit
 * them, then reap exactly those completions before the next batch, so the
 * number of SQEs per io_uring_enter is exactly `batch` (the last one may be
 * smaller). Each CQE is matched against the batch by user_data, so a lost,
 * duplicated or foreign completion aborts the run instead of silently
 * skewing the ground truth.
 */
void run_batched(struct ctx *c, enum op_kind op, unsigned batch, unsigned sqe_flags) {
  run_batched_count(c, op, batch, sqe_flags, c->count);
}

/* run_batched() for `count` requests instead of the scenario's COUNT. */
void run_batched_count(struct ctx *c, enum op_kind op, unsigned batch, unsigned sqe_flags,
                       unsigned long count) {
  // A ring smaller than the batch cannot hold it; shrinking the batch keeps
  // the run valid and the printed submit_calls stay exact.
  if (batch > c->params.sq_entries) batch = c->params.sq_entries;

  struct op_stats *st = &c->ops[op];
  st->used = true;

  unsigned char *bufs = NULL;
  if (op == OP_READ) {
    if (c->file_fd < 0) fail("internal: READ scenario without a prepared file");
    bufs = alloc_blocks(batch);
  }
  uint64_t *blocks = calloc(batch, sizeof(*blocks));
  bool *seen = calloc(batch, sizeof(*seen));
  if (blocks == NULL || seen == NULL) fail("calloc: %s", strerror(errno));

  unsigned long remaining = count;
  while (remaining > 0) {
    unsigned n = remaining < batch ? (unsigned)remaining : batch;
    uint64_t first = c->next_user_data;

    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
      // Every batch is fully reaped before the next, so the SQ has room.
      if (sqe == NULL) fail("io_uring_get_sqe: submission queue full");
      if (op == OP_READ) {
        blocks[i] = rng_next(&c->rng) % FILE_CHUNKS;
        io_uring_prep_read(sqe, c->file_fd, bufs + (size_t)i * CHUNK, CHUNK,
                           blocks[i] * CHUNK);
      } else {
        io_uring_prep_nop(sqe);
      }
      io_uring_sqe_set_flags(sqe, sqe_flags);
      io_uring_sqe_set_data64(sqe, first + i);
      seen[i] = false;
    }
    c->next_user_data += n;

    submit_queued(c, n);
    st->submitted += n;
    if (sqe_flags & IOSQE_ASYNC) st->forced_async += n;

    for (unsigned done = 0; done < n; done++) {
      struct io_uring_cqe *cqe = wait_one(c);
      uint64_t ud = io_uring_cqe_get_data64(cqe);
      int res = cqe->res;
      io_uring_cqe_seen(&c->ring, cqe);

      if (ud < first || ud - first >= n)
        fail("unexpected completion user_data=%llu (batch is %llu..%llu)", (unsigned long long)ud,
             (unsigned long long)first, (unsigned long long)(first + n - 1));
      unsigned i = (unsigned)(ud - first);
      if (seen[i]) fail("duplicate completion user_data=%llu", (unsigned long long)ud);
      seen[i] = true;
      st->completed++;
      if (res > 0) st->positive_results += (unsigned)res;

      if (res < 0) {
        st->errors++;
      } else if (op == OP_READ) {
        if ((unsigned)res != CHUNK)
          fail("short read: user_data=%llu returned %d of %u bytes", (unsigned long long)ud, res,
               CHUNK);
        if (!block_matches(bufs + (size_t)i * CHUNK, blocks[i]))
          fail("read user_data=%llu returned wrong data for block %llu", (unsigned long long)ud,
               (unsigned long long)blocks[i]);
      }
    }
    remaining -= n;
  }

  free(seen);
  free(blocks);
  free(bufs);
}
