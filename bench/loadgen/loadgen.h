// SPDX-License-Identifier: MIT
// What the load generator's files share: the options, the result of a timed loop and
// the few helpers every mode uses. Each .c file has one job (see its header comment).
#pragma once

#include <liburing.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define BLOCK 4096u
// A request kind's transfer size (-o): small, so that the kinds cost about what a NOP
// costs and the tracer's share stays visible.
#define KIND_BYTES 64u
#define MAX_KINDS 8u

enum mode {
  MODE_NOP,
  MODE_READ,
  MODE_READ_ASYNC,
  MODE_READ_DIRECT,
  MODE_CTXSW,
  MODE_SYSCALL,
  MODE_HOLD,
  MODE_CHURN,
  MODE__COUNT,
};

extern const char *const mode_names[MODE__COUNT];

struct options {
  enum mode mode;
  unsigned depth;       // requests in flight per ring
  unsigned batch;       // SQEs queued per io_uring_enter
  double seconds;       // timed-loop length (0 = use ops)
  uint64_t ops;         // stop after this many completions per thread (0 = use seconds)
  const char *path;     // data file for the read modes
  uint64_t file_bytes;  // its size
  int cpu;              // pin to this CPU (-1 = no pinning); threads take cpu, cpu+1, ...
  bool wait_signal;     // wait for SIGUSR1 before the timed loop
  unsigned rings;       // rings per thread, visited in turn
  unsigned threads;     // threads, each with its own rings
  unsigned kinds;       // distinct opcodes cycled through (nop mode)
  bool pin_threads;     // thread i on CPU i (when -c is not given)
  int iowq_cpu;         // io-wq workers' CPU (-1 = wherever the kernel puts them)
  unsigned processes;   // hold mode: processes, each holding its own rings
};

struct result {
  uint64_t ops;
  uint64_t ns;
  uint64_t cpu;
};

// The files the request kinds and the read modes use, opened once per process.
struct kind_files {
  int data;   // the data file (read modes), -1 otherwise
  int zero;   // /dev/zero
  int null;   // /dev/null
  int event;  // an eventfd that is always readable (POLL_ADD)
};

extern volatile sig_atomic_t stop_requested;

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
uint64_t now_ns(void);
uint64_t cpu_ns(void);
void wait_for_go(void);
void pin(int cpu);

// options.c
struct options parse_options(int argc, char **argv);

// datafile.c
void prepare_file(const struct options *o);
void warm_page_cache(const struct options *o, int fd);
uint64_t rng_next(void);

// kinds.c
void kinds_open(const struct options *o, struct kind_files *f);
void kinds_close(struct kind_files *f);
const char *kind_names(unsigned kinds);
size_t slot_bytes(const struct options *o);
void prep_request(const struct options *o, const struct kind_files *f, struct io_uring_sqe *sqe,
                  char *buf, unsigned slot, uint64_t seq);
void check_cqe(const struct options *o, const struct io_uring_cqe *cqe);
unsigned cqe_slot(const struct io_uring_cqe *cqe);
void kinds_register(const struct options *o, struct io_uring *ring, char *bufs, size_t bytes);

// uring.c: one thread's rings, visited in turn. ready(ready_arg) runs once they are set
// up and returns when the timed loop is to start.
struct result run_rings(const struct options *o, const struct kind_files *f,
                        void (*ready)(void *), void *ready_arg);
void open_ring(const struct options *o, struct io_uring *ring, unsigned entries);

// threads.c
struct result run_uring(const struct options *o);

// side.c: the loads that are not io_uring requests
struct result run_ctxsw(const struct options *o);
struct result run_syscall(const struct options *o);
struct result run_hold(const struct options *o);

// churn.c
struct result run_churn(const struct options *o);
