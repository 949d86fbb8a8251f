// SPDX-License-Identifier: MIT
// -j: threads that each drive their own rings (uring.c), set up before READY and
// started together by SIGUSR1. One thread runs in the main thread, as loadgen always did.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen.h"

struct worker {
  pthread_t thread;
  const struct options *o;
  const struct kind_files *f;
  int cpu;  // -1: not pinned
  pthread_barrier_t *ready;
  pthread_barrier_t *go;
  struct result r;
};

static int thread_cpu(const struct options *o, unsigned i) {
  if (o->cpu >= 0) return o->cpu + (int)i;
  return o->pin_threads ? (int)i : -1;
}

static void worker_ready(void *arg) {
  struct worker *w = arg;
  pthread_barrier_wait(w->ready);  // every thread's rings are set up
  pthread_barrier_wait(w->go);     // the timed loop starts
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  if (w->cpu >= 0) pin(w->cpu);
  w->r = run_rings(w->o, w->f, worker_ready, w);
  return NULL;
}

static void go_alone(void *arg) {
  const struct options *o = arg;
  if (o->wait_signal) wait_for_go();
}

// ops add up; the time is the slowest thread's; the CPU time is the whole process's
// (workers and their io-wq threads) over the timed loops.
static struct result run_threads(const struct options *o, const struct kind_files *f) {
  pthread_barrier_t ready, go;
  pthread_barrier_init(&ready, NULL, o->threads + 1);
  pthread_barrier_init(&go, NULL, o->threads + 1);
  struct worker *w = calloc(o->threads, sizeof *w);
  if (!w) die("out of memory");
  for (unsigned i = 0; i < o->threads; ++i) {
    w[i] = (struct worker){.o = o, .f = f, .cpu = thread_cpu(o, i), .ready = &ready, .go = &go};
    int err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
    if (err) die("pthread_create: %s", strerror(err));
  }
  pthread_barrier_wait(&ready);
  if (o->wait_signal) wait_for_go();
  const uint64_t cpu_start = cpu_ns();
  pthread_barrier_wait(&go);
  struct result r = {0};
  for (unsigned i = 0; i < o->threads; ++i) {
    pthread_join(w[i].thread, NULL);
    r.ops += w[i].r.ops;
    if (w[i].r.ns > r.ns) r.ns = w[i].r.ns;
  }
  r.cpu = cpu_ns() - cpu_start;
  pthread_barrier_destroy(&ready);
  pthread_barrier_destroy(&go);
  free(w);
  return r;
}

struct result run_uring(const struct options *o) {
  struct kind_files f;
  kinds_open(o, &f);
  struct result r;
  if (o->threads > 1) {
    r = run_threads(o, &f);
  } else {
    if (o->cpu < 0 && o->pin_threads) pin(0);
    r = run_rings(o, &f, go_alone, (void *)o);
  }
  kinds_close(&f);
  return r;
}
