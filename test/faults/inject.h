// SPDX-License-Identifier: MIT
/*
 * What the parts of the fault injector share: the run's context, a row of the
 * scenario table, and the helpers the scenarios are built from. One job per
 * file:
 *   inject.c            main(): arguments, the scenario table, dispatch
 *   common.c            fatal errors, the data pattern, clocks
 *   report.c            the GROUND-TRUTH lines
 *   ring.c              ring setup, submitting, reaping, counting
 *   fixtures.c          the cached temp file and the pipe several scenarios use
 *   fdinfo.c            the ring's lists as the kernel shows them in /proc/self/fdinfo
 *   scenarios_*.c       the scenarios, one family per file (scenarios_hazards.c also
 *                       holds the helpers of both hazard files)
 * Each .c file defines _GNU_SOURCE itself, before its first include.
 */
#ifndef URINGSCOPE_INJECT_H
#define URINGSCOPE_INJECT_H

#include <liburing.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHUNK 4096u
#define FILE_SIZE (1u << 20)
#define FILE_CHUNKS (FILE_SIZE / CHUNK)

// Mixed into the file pattern so a block of zeroes (e.g. a hole or a read of
// the wrong file) can never pass verification.
#define PATTERN_MAGIC 0x75726e6773636f70ull  // "urngscop"

// How long an idle SQPOLL thread keeps polling before it sleeps: long enough
// that a batch-and-reap loop never lets it fall asleep mid-run.
#define SQPOLL_IDLE_MS 100u

// Room for the scenario-specific GROUND-TRUTH lines: a few short lines, plus
// `leak`'s user_data list (up to MAX_THREAD_COUNT numbers).
#define NOTES_SIZE 16384

// Rings set up with IORING_SETUP_CQSIZE (timeout-flood) get a CQ of exactly this many
// entries, whatever --entries says (that sizes the SQ, at most this large).
#define SMALL_CQ_ENTRIES 16u

// `leak` and `worker-storm` park one io-wq thread per request.
#define MAX_THREAD_COUNT 1024ul

// sqpoll-stall: the table sets its ring's sq_thread_idle, the scenario sleeps
// the gap before each NOP.
#define SQPOLL_STALL_IDLE_MS 2u
// Longer than the stall scenario's sq_thread_idle, so the thread always sleeps.
#define SQPOLL_STALL_GAP_MS 20u
// sqpoll-sparse: awake a fifth of each gap, asleep the rest.
#define SQPOLL_SPARSE_IDLE_MS 100u
#define SQPOLL_SPARSE_GAP_MS 500u

enum op_kind {
  OP_NOP,
  OP_READ,
  OP_POLL_ADD,
  OP_POLL_REMOVE,
  OP_INVALID,
  OP_OPENAT,
  OP_RECV,
  OP_SEND,
  OP_WRITE,
  OP_SEND_ZC,
  OP_SENDMSG_ZC,
  OP_TIMEOUT,
  OP_READV,
  OP_READ_FIXED,
  OP_RECVMSG,
  OP_KIND_COUNT
};

extern const char *const op_names[OP_KIND_COUNT];

struct op_stats {
  bool used;  // print a line even if a future scenario submits zero of it
  // The two optional fields are printed only for ops that set these, so the
  // lines of the original scenarios stay exactly as they were.
  bool show_multishot;
  bool show_before_ready;
  unsigned long long submitted;
  unsigned long long completed;
  unsigned long long forced_async;
  unsigned long long errors;
  unsigned long long multishot_cqes;  // CQEs that carried IORING_CQE_F_MORE
  unsigned long long positive_results;  // sum of res > 0: bytes, for the ops that move data
  unsigned long long before_ready;    // of `submitted`, those made in prepare
};

struct ctx {
  struct io_uring ring;
  struct io_uring_params params;
  int file_fd;  // -1 until a scenario's prepare step creates the cached file
  int pipe_rd;  // -1 until a scenario's prepare step creates the pipe
  int pipe_wr;
  int sock[2];    // -1 until a scenario's prepare step creates the socketpair
  int fifo_path_fd;  // O_PATH fd of an already unlinked FIFO, or -1
  char fifo_path[64];  // "/proc/self/fd/<fifo_path_fd>": reopens that FIFO
  uint64_t armed_user_data;  // `inflight`: the POLL_ADD left in flight by prepare
  unsigned long count;
  uint64_t next_user_data;  // 1-based request index across the whole run
  uint64_t rng;
  unsigned long long submit_calls;  // io_uring_submit() calls that returned > 0
  unsigned long long sqes;
  struct op_stats ops[OP_KIND_COUNT];
  // Scenario-specific GROUND-TRUTH lines, printed after the op lines.
  char notes[NOTES_SIZE];
  size_t notes_len;
};

struct scenario {
  const char *name;
  unsigned long default_count;
  const char *expect;  // finding tag uringscope must raise, "none" if healthy
  unsigned ring_flags;  // IORING_SETUP_*
  unsigned default_entries;  // --entries when not given; 0 means 64
  void (*prepare)(struct ctx *);  // optional; runs before READY
  void (*run)(struct ctx *);
  unsigned sq_idle_ms;  // SQPOLL rings: sq_thread_idle; 0 means SQPOLL_IDLE_MS
  void (*before_ring)(void);  // optional; runs before the ring is set up
};

// A CQE copied out of the ring, so it can be checked after io_uring_cqe_seen.
struct cqe_copy {
  uint64_t ud;
  int res;
  unsigned flags;
};

/* ----------------------------------------------------------- common.c */

extern const char *progname;

__attribute__((noreturn, format(printf, 1, 2))) void bad_args(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void fail(const char *fmt, ...);
__attribute__((noreturn)) void fail_uring(const char *call, int ret);
__attribute__((noreturn)) void fail_errno(const char *call);
unsigned long long fd_ino(int fd);

uint64_t rng_next(uint64_t *state);
void fill_block(unsigned char *dst, uint64_t block);
bool block_matches(const unsigned char *src, uint64_t block);
void *alloc_blocks(unsigned n);

uint64_t now_ns(void);
void sleep_ms(unsigned ms);
void sleep_until_ns(uint64_t deadline_ns);

/* ----------------------------------------------------------- report.c */

__attribute__((format(printf, 2, 3))) void note(struct ctx *c, const char *fmt, ...);
void report(const struct ctx *c, const struct scenario *s);

/* ------------------------------------------------------------- ring.c */

void setup_ring(struct ctx *c, unsigned entries, unsigned flags, unsigned sq_idle_ms);
struct op_stats *use_op(struct ctx *c, enum op_kind op);
struct io_uring_sqe *get_sqe(struct ctx *c);
void submit_queued(struct ctx *c, unsigned n);
struct io_uring_cqe *wait_one(struct ctx *c);
struct cqe_copy reap(struct ctx *c);
unsigned batch_index(uint64_t ud, uint64_t first, unsigned n, bool *seen);
unsigned batch_size(const struct ctx *c, unsigned want, unsigned long remaining);
void count_cqe(struct op_stats *st, int res, unsigned flags);
void run_batched(struct ctx *c, enum op_kind op, unsigned batch, unsigned sqe_flags);
void run_batched_count(struct ctx *c, enum op_kind op, unsigned batch, unsigned sqe_flags,
                       unsigned long count);
unsigned cq_dropped(const struct ctx *c);
void note_cq_overflow(struct ctx *c, unsigned long long overflowed, unsigned long long in_ring);

/* ----------------------------------------------------------- fdinfo.c */

unsigned fdinfo_count(const struct ctx *c, const char *section);

/* --------------------------------------------------------- fixtures.c */

void prepare_cached_file(struct ctx *c);
void prepare_pipe(struct ctx *c);
void pipe_put(struct ctx *c, unsigned char byte);
void pipe_take(struct ctx *c, unsigned char want);
void send_all(int fd, const void *buf, size_t len);

/* ------------------------------------------- scenarios, for the table */

// scenarios_basic.c
void scenario_clean(struct ctx *c);
void scenario_clean_read(struct ctx *c);
void scenario_punt(struct ctx *c);
void scenario_nobatch(struct ctx *c);

// scenarios_traps.c
void scenario_multishot(struct ctx *c);
void scenario_link(struct ctx *c);
void scenario_overflow(struct ctx *c);
void scenario_cqe_skip(struct ctx *c);
void scenario_badop(struct ctx *c);
void scenario_sqpoll(struct ctx *c);
void prepare_inflight(struct ctx *c);
void scenario_inflight(struct ctx *c);

// scenarios_results.c
void scenario_errors(struct ctx *c);
void prepare_empty_file(struct ctx *c);
void scenario_short_write(struct ctx *c);
// scenarios_matching.c
void scenario_shared_udata(struct ctx *c);
void scenario_multishot_storm(struct ctx *c);
// scenarios_zerocopy.c
void prepare_tcp_loopback(struct ctx *c);
void scenario_zc_send(struct ctx *c);

// scenarios_iowq.c
void prepare_fifo(struct ctx *c);
void scenario_leak(struct ctx *c);
void scenario_worker_storm(struct ctx *c);

// scenarios_wakeups.c
void scenario_sqpoll_stall(struct ctx *c);
void scenario_defer_tw(struct ctx *c);

// scenarios_sockets.c
void prepare_socketpair(struct ctx *c);
void scenario_pollretry_socket(struct ctx *c);
void scenario_clean_socket(struct ctx *c);

// scenarios_timeouts.c
void scenario_timeout_flood(struct ctx *c);

// scenarios_pending.c
void scenario_leak_growing(struct ctx *c);
void prepare_steady_sockets(struct ctx *c);
void scenario_steady_recv(struct ctx *c);

// scenarios_fork.c
void scenario_fork(struct ctx *c);

// scenarios_churn.c
void scenario_ring_churn(struct ctx *c);

// scenarios_trace_pipe.c
void prepare_trace_instance(struct ctx *c);
void scenario_pollretry_file(struct ctx *c);

// scenarios_boundary.c
void scenario_reap_lag(struct ctx *c);
void scenario_reap_lag_raw(struct ctx *c);
void scenario_reap_hold(struct ctx *c);
void scenario_reap_batch(struct ctx *c);
void scenario_reap_exit(struct ctx *c);
void scenario_sqpoll_sparse(struct ctx *c);
void scenario_leak_growing_slow(struct ctx *c);
void scenario_sq_wait(struct ctx *c);
void scenario_reap_lag_wait(struct ctx *c);

// scenarios_hazards.c: the helpers of both hazard files, then its scenarios
// reap_expect(): any result will do (the scenario records it).
#define ANY_RES (-100000)
void open_pipe(int fds[2]);
void close_pipe(int fds[2]);
bool slice_matches(const unsigned char *p, size_t len, uint64_t block);
void pipe_feed(int wr, uint64_t block, size_t len);
unsigned pipe_drain(int rd, uint64_t block);
void queue_read(struct ctx *c, int fd, void *buf, unsigned len, uint64_t ud);
void expect_pending(struct ctx *c, const char *what);
struct cqe_copy reap_expect(struct ctx *c, uint64_t ud, enum op_kind op, int want);
void note_no_hazard(struct ctx *c);
void scenario_hazard_overlap(struct ctx *c);
void scenario_hazard_vec_overlap(struct ctx *c);
void scenario_hazard_write_read(struct ctx *c);
void scenario_check_clean_split(struct ctx *c);
void scenario_check_clean_reuse(struct ctx *c);
// scenarios_hazards_msg.c
void scenario_hazard_recvmsg(struct ctx *c);
// scenarios_hazards_lifetime.c
unsigned char *map_anon(size_t len);
void scenario_hazard_unmap(struct ctx *c);
void scenario_hazard_mremap(struct ctx *c);
void scenario_check_clean_unmap(struct ctx *c);
// scenarios_hazards_bufreg.c
void scenario_hazard_bufreg(struct ctx *c);
void scenario_hazard_bufupdate(struct ctx *c);

// scenarios_files.c
void prepare_files(struct ctx *c);
void scenario_files(struct ctx *c);

// scenarios_hostile.c
void hostile_rename(void);
void prepare_hostile_files(struct ctx *c);
void scenario_hostile_names(struct ctx *c);

#endif  // URINGSCOPE_INJECT_H
