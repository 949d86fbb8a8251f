// SPDX-License-Identifier: MIT
// One thread's timed loop over its rings: on each ring in turn, queue a batch, submit it
// (waiting for a completion only when the ring is full), and reap what has completed.
// Every ring keeps its own depth, so the work per request is the same whatever the
// number of rings: what grows with -r is only how many rings the thread cycles through.
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen.h"

struct lane {
  struct io_uring ring;
  unsigned *free_slots;
  unsigned nfree;
  unsigned inflight;
  char *bufs;
};

struct loop {
  const struct options *o;
  const struct kind_files *f;
  size_t slot_bytes;
  uint64_t submitted;  // SQEs this thread submitted
  uint64_t seq;        // requests prepared: picks each one's kind
  uint64_t done;       // CQEs reaped
  bool draining;
};

void open_ring(const struct options *o, struct io_uring *ring, unsigned entries) {
  (void)o;
  int ret = io_uring_queue_init(entries, ring, 0);
  if (ret < 0) die("io_uring_queue_init: %s", strerror(-ret));
}

static void lane_init(const struct options *o, struct lane *l) {
  open_ring(o, &l->ring, o->depth);
  const size_t bytes = slot_bytes(o) * o->depth;
  l->bufs = NULL;
  if (bytes) {
    // O_DIRECT needs the buffer, offset and length aligned to the logical block size;
    // page alignment covers every device.
    if (posix_memalign((void **)&l->bufs, BLOCK, bytes) != 0) die("out of memory");
    memset(l->bufs, 0, bytes);
    kinds_register(o, &l->ring, l->bufs, bytes);
  }
  l->free_slots = malloc(o->depth * sizeof *l->free_slots);
  if (!l->free_slots) die("out of memory");
  for (unsigned i = 0; i < o->depth; ++i) l->free_slots[i] = i;
  l->nfree = o->depth;
  l->inflight = 0;
}

static void lane_exit(struct lane *l) {
  io_uring_queue_exit(&l->ring);
  free(l->free_slots);
  free(l->bufs);
}

// io-wq workers belong to the submitting task, whichever of its rings they serve: one
// call per thread places them all.
static void place_iowq(const struct options *o, struct io_uring *ring) {
  if (o->iowq_cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(o->iowq_cpu, &set);
  int ret = io_uring_register_iowq_aff(ring, sizeof set, &set);
  if (ret < 0) die("io_uring_register_iowq_aff(CPU %d): %s", o->iowq_cpu, strerror(-ret));
}

static void lane_visit(struct loop *s, struct lane *l) {
  const struct options *o = s->o;
  unsigned queued = 0;
  while (!s->draining && l->nfree && queued < o->batch && (!o->ops || s->submitted + queued < o->ops)) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);
    if (!sqe) die("submission queue full");  // depth <= SQ size, so this is a bug
    const unsigned slot = l->free_slots[--l->nfree];
    prep_request(o, s->f, sqe, l->bufs ? l->bufs + slot * s->slot_bytes : NULL, slot, s->seq++);
    ++queued;
  }
  if (!queued && !l->inflight) return;
  // Wait for one completion only when the ring is full (or draining): with NOPs and
  // page-cache reads the CQEs are already there after submit.
  const unsigned wait = l->inflight + queued == o->depth || s->draining ? 1 : 0;
  int ret = io_uring_submit_and_wait(&l->ring, wait);
  if (ret < 0 && ret != -EINTR) die("io_uring_submit_and_wait: %s", strerror(-ret));
  if (ret > 0) {
    s->submitted += (unsigned)ret;
    l->inflight += (unsigned)ret;
  }
  struct io_uring_cqe *cqe;
  unsigned head, seen = 0;
  io_uring_for_each_cqe(&l->ring, head, cqe) {
    check_cqe(o, cqe);
    l->free_slots[l->nfree++] = cqe_slot(cqe);
    ++seen;
  }
  io_uring_cq_advance(&l->ring, seen);
  l->inflight -= seen;
  s->done += seen;
}

struct result run_rings(const struct options *o, const struct kind_files *f,
                        void (*ready)(void *), void *ready_arg) {
  struct lane *lanes = calloc(o->rings, sizeof *lanes);
  if (!lanes) die("out of memory");
  for (unsigned i = 0; i < o->rings; ++i) lane_init(o, &lanes[i]);
  place_iowq(o, &lanes[0].ring);
  ready(ready_arg);

  struct loop s = {.o = o, .f = f, .slot_bytes = slot_bytes(o)};
  const uint64_t start = now_ns(), cpu_start = cpu_ns();
  const uint64_t deadline = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : UINT64_MAX;
  for (;;) {
    if (!s.draining && (stop_requested || now_ns() >= deadline || (o->ops && s.submitted >= o->ops)))
      s.draining = true;
    unsigned inflight = 0;
    for (unsigned i = 0; i < o->rings; ++i) {
      lane_visit(&s, &lanes[i]);
      inflight += lanes[i].inflight;
    }
    if (s.draining && !inflight) break;
  }
  struct result r = {.ops = s.done, .ns = now_ns() - start, .cpu = cpu_ns() - cpu_start};
  for (unsigned i = 0; i < o->rings; ++i) lane_exit(&lanes[i]);
  free(lanes);
  return r;
}
