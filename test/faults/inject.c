// SPDX-License-Identifier: MIT
/*
 * inject: runs one io_uring workload whose shape is known exactly and prints
 * it as GROUND-TRUTH lines, so the kernel test tier can score what uringscope
 * reports against what really happened. Test tool only; uringscope never
 * links liburing.
 *
 *   inject [--wait-signal] [--linger SECONDS] [--entries N] SCENARIO [COUNT]
 *
 * Exit status: 0 ok, 1 the workload could not be run as specified (liburing
 * or system call failure, short read, unexpected completion), 2 bad arguments.
 * An exit status of 0 therefore means the GROUND-TRUTH lines are exact.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 4096u
#define FILE_SIZE (1u << 20)
#define FILE_CHUNKS (FILE_SIZE / CHUNK)

// Upper bounds keep every counter and user_data far from overflow and stop a
// typo from turning a test into an hour-long run.
#define MAX_COUNT 100000000ul
#define MAX_ENTRIES 32768u  // IORING_MAX_ENTRIES; larger fails with EINVAL
#define MAX_LINGER 86400.0

// Mixed into the file pattern so a block of zeroes (e.g. a hole or a read of
// the wrong file) can never pass verification.
#define PATTERN_MAGIC 0x75726e6773636f70ull  // "urngscop"

// An opcode no kernel defines (IORING_OP_LAST is 63 on 6.18); io_init_req()
// rejects it before the submit tracepoint, which is what `badop` is about.
#define INVALID_OPCODE 250

// How long an idle SQPOLL thread keeps polling before it sleeps: long enough
// that a batch-and-reap loop never lets it fall asleep mid-run.
#define SQPOLL_IDLE_MS 100u

// Room for the scenario-specific GROUND-TRUTH lines: a few short lines, plus
// `leak`'s user_data list (up to MAX_THREAD_COUNT numbers).
#define NOTES_SIZE 16384

// `leak` and `worker-storm` park one io-wq thread per request.
#define MAX_THREAD_COUNT 1024ul

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
  OP_KIND_COUNT
};

// POLL_ADD and POLL_REMOVE match uringscope's opcode names. INVALID is not an
// opcode name: its number is printed on a separate line.
static const char *const op_names[OP_KIND_COUNT] = {
    [OP_NOP] = "NOP",
    [OP_READ] = "READ",
    [OP_POLL_ADD] = "POLL_ADD",
    [OP_POLL_REMOVE] = "POLL_REMOVE",
    [OP_INVALID] = "INVALID",
    [OP_OPENAT] = "OPENAT",
    [OP_RECV] = "RECV",
    [OP_SEND] = "SEND",
    [OP_WRITE] = "WRITE",
};

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
};

static const char *progname = "inject";

static void usage_line(FILE *out) {
  fprintf(out,
          "usage: %s [--wait-signal] [--linger SECONDS] [--entries N] "
          "SCENARIO [COUNT]\n",
          progname);
}

__attribute__((noreturn, format(printf, 1, 2))) static void bad_args(
    const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", progname);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

__attribute__((noreturn, format(printf, 1, 2))) static void fail(
    const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", progname);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

// liburing returns -errno instead of setting errno.
__attribute__((noreturn)) static void fail_uring(const char *call, int ret) {
  fail("%s: %s", call, strerror(-ret));
}

__attribute__((noreturn)) static void fail_errno(const char *call) {
  fail("%s: %s", call, strerror(errno));
}

/* ---------------------------------------------------------------- helpers */

// Fixed-seed xorshift64*: offsets look random to the kernel but every run
// issues the same sequence, so a failure can be replayed.
static uint64_t rng_next(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545f4914f6cdd1dull;
}

static uint64_t block_word(uint64_t block) {
  return (block + 1) * PATTERN_MAGIC;
}

static void fill_block(unsigned char *dst, uint64_t block) {
  uint64_t w = block_word(block);
  for (unsigned i = 0; i < CHUNK; i += sizeof(w)) memcpy(dst + i, &w, sizeof(w));
}

static bool block_matches(const unsigned char *src, uint64_t block) {
  uint64_t w = block_word(block);
  for (unsigned i = 0; i < CHUNK; i += sizeof(w))
    if (memcmp(src + i, &w, sizeof(w)) != 0) return false;
  return true;
}

static void *alloc_blocks(unsigned n) {
  void *p = NULL;
  int err = posix_memalign(&p, CHUNK, (size_t)n * CHUNK);
  if (err != 0) fail("posix_memalign: %s", strerror(err));
  return p;
}

__attribute__((format(printf, 2, 3))) static void note(struct ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(c->notes + c->notes_len, sizeof(c->notes) - c->notes_len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof(c->notes) - c->notes_len) fail("internal: notes buffer full");
  c->notes_len += (size_t)n;
}

static struct op_stats *use_op(struct ctx *c, enum op_kind op) {
  c->ops[op].used = true;
  return &c->ops[op];
}

static struct io_uring_sqe *get_sqe(struct ctx *c) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
  // Callers queue at most sq_entries SQEs and submit them before queueing
  // more, so a full SQ means the scenario itself is wrong.
  if (sqe == NULL) fail("io_uring_get_sqe: submission queue full");
  return sqe;
}

/* ------------------------------------------------------------------ setup */

static void setup_ring(struct ctx *c, unsigned entries, unsigned flags, unsigned sq_idle_ms) {
  memset(&c->params, 0, sizeof(c->params));
  c->params.flags = flags;
  if (flags & IORING_SETUP_SQPOLL)
    c->params.sq_thread_idle = sq_idle_ms != 0 ? sq_idle_ms : SQPOLL_IDLE_MS;
  int ret = io_uring_queue_init_params(entries, &c->ring, &c->params);
  if (ret < 0) fail_uring("io_uring_queue_init_params", ret);
}

// A 1 MiB file that is entirely in the page cache, so buffered reads can be
// served inline: any io-wq punt seen for it is then caused by the scenario
// (IOSQE_ASYNC), not by a cache miss. Unlinked at once so nothing leaks even
// if the process is killed while lingering.
static void prepare_cached_file(struct ctx *c) {
  const char *dir = getenv("TMPDIR");
  if (dir == NULL || dir[0] == '\0') dir = "/tmp";
  char path[4096];
  int n = snprintf(path, sizeof(path), "%s/uringscope-inject-XXXXXX", dir);
  if (n < 0 || (size_t)n >= sizeof(path)) fail("TMPDIR too long: %s", dir);

  int fd = mkostemp(path, O_CLOEXEC);
  if (fd < 0) fail("mkostemp %s: %s", path, strerror(errno));
  if (unlink(path) < 0) fail_errno("unlink");

  unsigned char *buf = alloc_blocks(1);
  for (uint64_t b = 0; b < FILE_CHUNKS; b++) {
    fill_block(buf, b);
    size_t done = 0;
    while (done < CHUNK) {
      ssize_t w = pwrite(fd, buf + done, CHUNK - done, (off_t)(b * CHUNK + done));
      if (w < 0) {
        if (errno == EINTR) continue;
        fail_errno("pwrite");
      }
      if (w == 0) fail("pwrite: wrote 0 bytes");
      done += (size_t)w;
    }
  }
  // Flush now so background writeback of dirty pages cannot overlap with the
  // measured workload.
  if (fdatasync(fd) < 0) fail_errno("fdatasync");

  // The read-back also proves the pattern the workload verifies against.
  for (uint64_t b = 0; b < FILE_CHUNKS; b++) {
    size_t done = 0;
    while (done < CHUNK) {
      ssize_t r = pread(fd, buf + done, CHUNK - done, (off_t)(b * CHUNK + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        fail_errno("pread");
      }
      if (r == 0) fail("pread: unexpected end of file at %llu", (unsigned long long)(b * CHUNK + done));
      done += (size_t)r;
    }
    if (!block_matches(buf, b)) fail("temp file block %llu read back wrong", (unsigned long long)b);
  }
  free(buf);
  c->file_fd = fd;
}

// A pipe gives a pollable fd whose readiness the scenario controls exactly:
// it is readable only between our write of one byte and our read of it.
static void prepare_pipe(struct ctx *c) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) fail_errno("pipe2");
  c->pipe_rd = fds[0];
  c->pipe_wr = fds[1];
}

static void pipe_put(struct ctx *c, unsigned char byte) {
  for (;;) {
    ssize_t w = write(c->pipe_wr, &byte, 1);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail_errno("write to pipe");
    if (w != 1) fail("write to pipe: wrote %zd of 1 byte", w);
    return;
  }
}

static void pipe_take(struct ctx *c, unsigned char want) {
  for (;;) {
    unsigned char byte = 0;
    ssize_t r = read(c->pipe_rd, &byte, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_errno("read from pipe");
    if (r != 1) fail("read from pipe: got %zd of 1 byte", r);
    if (byte != want) fail("read from pipe: got 0x%02x, wrote 0x%02x", byte, want);
    return;
  }
}

/* --------------------------------------------------------------- workload */

// Loops because io_uring_submit() may consume fewer SQEs than are queued;
// the leftovers stay in the SQ and are picked up by the next call.
static void submit_queued(struct ctx *c, unsigned n) {
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

static struct io_uring_cqe *wait_one(struct ctx *c) {
  struct io_uring_cqe *cqe = NULL;
  for (;;) {
    int ret = io_uring_wait_cqe(&c->ring, &cqe);
    if (ret == -EINTR) continue;  // e.g. SIGSTOP/SIGCONT from a debugger
    if (ret < 0) fail_uring("io_uring_wait_cqe", ret);
    return cqe;
  }
}

/*
 * Issues c->count requests of one op in batches: queue `batch` SQEs, submit
 * them, then reap exactly those completions before the next batch, so the
 * number of SQEs per io_uring_enter is exactly `batch` (the last one may be
 * smaller). Each CQE is matched against the batch by user_data, so a lost,
 * duplicated or foreign completion aborts the run instead of silently
 * skewing the ground truth.
 */
static void run_batched(struct ctx *c, enum op_kind op, unsigned batch, unsigned sqe_flags) {
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

  unsigned long remaining = c->count;
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

/* -------------------------------------------------------------- scenarios */

// 32 per enter is well above any sane BATCH threshold.
static void scenario_clean(struct ctx *c) { run_batched(c, OP_NOP, 32, 0); }

static void scenario_clean_read(struct ctx *c) { run_batched(c, OP_READ, 16, 0); }

// Cached data would complete inline; IOSQE_ASYNC alone sends it to io-wq.
static void scenario_punt(struct ctx *c) { run_batched(c, OP_READ, 16, IOSQE_ASYNC); }

static void scenario_nobatch(struct ctx *c) { run_batched(c, OP_NOP, 1, 0); }

static void count_cqe(struct op_stats *st, int res, unsigned flags) {
  st->completed++;
  if (res < 0) st->errors++;
  if (flags & IORING_CQE_F_MORE) st->multishot_cqes++;
}

/*
 * One submit, COUNT + 1 CQEs. On 6.13+ the intermediate (F_MORE) CQEs are
 * posted through the aux path without a request pointer, so a tracer must
 * find them by (ring, user_data); only the final -ECANCELED CQE carries the
 * request. Each wakeup is ours: the pipe is readable only between one write
 * and its read, so every write yields exactly one poll event. Any CQE that
 * arrives anyway is still reaped and counted, never assumed.
 */
static void scenario_multishot(struct ctx *c) {
  struct op_stats *poll = use_op(c, OP_POLL_ADD);
  struct op_stats *rm = use_op(c, OP_POLL_REMOVE);
  poll->show_multishot = true;

  const uint64_t poll_ud = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_poll_multishot(sqe, c->pipe_rd, POLLIN);
  io_uring_sqe_set_data64(sqe, poll_ud);
  submit_queued(c, 1);
  poll->submitted++;

  for (unsigned long i = 0; i < c->count; i++) {
    const unsigned char byte = (unsigned char)(i & 0xff);
    pipe_put(c, byte);
    struct io_uring_cqe *cqe = wait_one(c);
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    io_uring_cqe_seen(&c->ring, cqe);
    if (ud != poll_ud) fail("unexpected completion user_data=%llu", (unsigned long long)ud);
    count_cqe(poll, res, flags);
    if (!(flags & IORING_CQE_F_MORE)) fail("multishot poll ended early: res=%d", res);
    if (res < 0 || !(res & POLLIN)) fail("multishot poll CQE res=%d has no POLLIN", res);
    // Emptying the pipe is what lets the next write wake the poll again.
    pipe_take(c, byte);
  }

  const uint64_t rm_ud = c->next_user_data++;
  sqe = get_sqe(c);
  io_uring_prep_poll_remove(sqe, poll_ud);
  io_uring_sqe_set_data64(sqe, rm_ud);
  submit_queued(c, 1);
  rm->submitted++;

  // The removal posts two CQEs in either order: the poll's last one (no
  // F_MORE, -ECANCELED) and the removal's own.
  bool poll_done = false, rm_done = false;
  while (!poll_done || !rm_done) {
    struct io_uring_cqe *cqe = wait_one(c);
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    io_uring_cqe_seen(&c->ring, cqe);
    if (ud == poll_ud && !poll_done) {
      count_cqe(poll, res, flags);
      if (flags & IORING_CQE_F_MORE) continue;
      if (res != -ECANCELED) fail("multishot poll ended with res=%d, not -ECANCELED", res);
      poll_done = true;
    } else if (ud == rm_ud && !rm_done) {
      count_cqe(rm, res, flags);
      if (res != 0) fail("POLL_REMOVE failed: %s", strerror(-res));
      rm_done = true;
    } else {
      fail("unexpected completion user_data=%llu", (unsigned long long)ud);
    }
  }
}

/*
 * Chains of three NOPs (IOSQE_IO_LINK on the first two), one chain per
 * io_uring_submit(). Members after the head are issued from their
 * predecessor's completion, not at submit, yet each still fires the submit
 * tracepoint once.
 */
#define LINK_LENGTH 3u

static void scenario_link(struct ctx *c) {
  // The kernel cuts a chain at the end of each submit call, so a chain must
  // fit in the SQ.
  if (c->params.sq_entries < LINK_LENGTH)
    fail("link needs --entries >= %u (sq_entries is %u)", LINK_LENGTH, c->params.sq_entries);
  struct op_stats *st = use_op(c, OP_NOP);
  for (unsigned long chain = 0; chain < c->count; chain++) {
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < LINK_LENGTH; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_flags(sqe, i + 1 < LINK_LENGTH ? IOSQE_IO_LINK : 0);
      io_uring_sqe_set_data64(sqe, first + i);
    }
    c->next_user_data += LINK_LENGTH;
    submit_queued(c, LINK_LENGTH);
    st->submitted += LINK_LENGTH;

    bool seen[LINK_LENGTH] = {false};
    for (unsigned done = 0; done < LINK_LENGTH; done++) {
      struct io_uring_cqe *cqe = wait_one(c);
      uint64_t ud = io_uring_cqe_get_data64(cqe);
      int res = cqe->res;
      unsigned flags = cqe->flags;
      io_uring_cqe_seen(&c->ring, cqe);
      if (ud < first || ud - first >= LINK_LENGTH || seen[ud - first])
        fail("unexpected completion user_data=%llu (chain is %llu..%llu)",
             (unsigned long long)ud, (unsigned long long)first,
             (unsigned long long)(first + LINK_LENGTH - 1));
      seen[ud - first] = true;
      count_cqe(st, res, flags);
      // A failed member would cancel the rest with -ECANCELED: not this workload.
      if (res != 0)
        fail("linked NOP user_data=%llu failed: %s", (unsigned long long)ud, strerror(-res));
    }
  }
  note(c, "GROUND-TRUTH links chains=%lu length=%u\n", c->count, LINK_LENGTH);
}

/*
 * COUNT NOPs submitted before any CQE is reaped, so once the CQ ring is full
 * every further CQE goes to the kernel's overflow list (tracepoint
 * io_uring_cqe_overflow, no io_uring_complete). NOPs complete inline, inside
 * the submitting io_uring_enter(), so when the last submit returns every
 * completion is either in the CQ ring or on the overflow list: the overflowed
 * count is COUNT minus what the ring holds. The later submits enter with
 * IORING_ENTER_GETEVENTS (liburing sees IORING_SQ_CQ_OVERFLOW), which tries
 * to flush the list, but the ring has no room: nothing moves until we reap.
 */
static void scenario_overflow(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  bool *seen = calloc(c->count, sizeof(*seen));
  if (seen == NULL) fail("calloc: %s", strerror(errno));
  const uint64_t first = c->next_user_data;

  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = remaining < c->params.sq_entries ? (unsigned)remaining : c->params.sq_entries;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    remaining -= n;
  }

  const unsigned in_ring = io_uring_cq_ready(&c->ring);
  // Nonzero when the kernel could not even allocate an overflow entry and
  // dropped the CQE: then the run is not the one described.
  const unsigned dropped = IO_URING_READ_ONCE(*c->ring.cq.koverflow);
  if (dropped != 0) fail("the kernel dropped %u CQEs (overflow allocation failed)", dropped);
  if (in_ring > c->count) fail("CQ holds %u CQEs for %lu requests", in_ring, c->count);
  const unsigned long overflowed = c->count - in_ring;
  if ((overflowed > 0) != io_uring_cq_has_overflow(&c->ring))
    fail("CQ overflow flag disagrees with %lu CQEs missing from the ring", overflowed);

  // wait_one enters the kernel with GETEVENTS whenever the ring is empty, and
  // that call moves the next overflowed CQEs into the ring.
  for (unsigned long done = 0; done < c->count; done++) {
    struct io_uring_cqe *cqe = wait_one(c);
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    int res = cqe->res;
    unsigned flags = cqe->flags;
    io_uring_cqe_seen(&c->ring, cqe);
    if (ud < first || ud - first >= c->count || seen[ud - first])
      fail("unexpected completion user_data=%llu", (unsigned long long)ud);
    seen[ud - first] = true;
    count_cqe(st, res, flags);
  }
  if (io_uring_cq_has_overflow(&c->ring)) fail("CQ overflow list not empty after reaping");
  free(seen);
  note(c, "GROUND-TRUTH cq overflowed=%lu in_ring=%u dropped=%u\n", overflowed, in_ring,
       dropped);
}

/*
 * COUNT NOPs with IOSQE_CQE_SKIP_SUCCESS post no CQE at all; one plain NOP
 * afterwards does, and since NOPs complete in submission order its CQE proves
 * that all the others were processed. Also the test for the 64-bit
 * req->flags: the skip bit is bit 6 of it.
 */
static void scenario_cqe_skip(struct ctx *c) {
  if (!(c->params.features & IORING_FEAT_CQE_SKIP)) fail("kernel lacks IORING_FEAT_CQE_SKIP");
  struct op_stats *st = use_op(c, OP_NOP);
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = remaining < c->params.sq_entries ? (unsigned)remaining : c->params.sq_entries;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    remaining -= n;
  }

  const uint64_t last = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, last);
  submit_queued(c, 1);
  st->submitted++;

  struct io_uring_cqe *cqe = wait_one(c);
  uint64_t ud = io_uring_cqe_get_data64(cqe);
  int res = cqe->res;
  unsigned flags = cqe->flags;
  io_uring_cqe_seen(&c->ring, cqe);
  if (ud != last)
    fail("unexpected completion user_data=%llu (a skipped NOP posted a CQE)",
         (unsigned long long)ud);
  count_cqe(st, res, flags);
  if (io_uring_cq_ready(&c->ring) != 0) fail("CQEs left after the final NOP's");
  note(c, "GROUND-TRUTH cqe_skip skipped=%lu\n", c->count);
}

/*
 * SQEs with an opcode the kernel does not know. io_init_req() fails them
 * (tracepoint io_uring_req_failed) before the submit tracepoint, and each
 * still gets a CQE with -EINVAL. Without IORING_SETUP_SUBMIT_ALL the kernel
 * stops a submit call right after a failing SQE (that SQE counts as consumed:
 * io_uring_enter returns 1), and the rest stay queued, so submit_queued()
 * needs one io_uring_submit() per bad SQE: submit_calls == COUNT. Reaping
 * after each batch of at most sq_entries keeps the CQ (2 x sq_entries) from
 * overflowing.
 */
static void scenario_badop(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_INVALID);
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = remaining < c->params.sq_entries ? (unsigned)remaining : c->params.sq_entries;
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_nop(sqe);
      sqe->opcode = INVALID_OPCODE;
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    for (unsigned done = 0; done < n; done++) {
      struct io_uring_cqe *cqe = wait_one(c);
      uint64_t ud = io_uring_cqe_get_data64(cqe);
      int res = cqe->res;
      unsigned flags = cqe->flags;
      io_uring_cqe_seen(&c->ring, cqe);
      if (ud < first || ud - first >= n)
        fail("unexpected completion user_data=%llu", (unsigned long long)ud);
      if (res != -EINVAL) fail("opcode %d: res=%d, expected -EINVAL", INVALID_OPCODE, res);
      count_cqe(st, res, flags);
    }
    remaining -= n;
  }
  note(c, "GROUND-TRUTH invalid opcode=%d\n", INVALID_OPCODE);
}

/*
 * NOPs on an SQPOLL ring: the kernel thread iou-sqp-<pid> takes them from the
 * SQ, so io_uring_submit() only enters the kernel to wake that thread when it
 * has gone idle (and io_uring_wait_cqe when a CQE is not there yet). 32 per
 * batch, reaped before the next, as in `clean`.
 */
static void scenario_sqpoll(struct ctx *c) {
  run_batched(c, OP_NOP, 32, 0);
  note(c, "GROUND-TRUTH sqpoll idle_ms=%u\n", c->params.sq_thread_idle);
}

/*
 * For `-p` attach: prepare (before READY) submits a single-shot POLL_ADD on
 * the empty pipe, which stays in flight; run (after SIGUSR1) makes the pipe
 * readable, reaps that CQE, then runs COUNT NOPs as `clean` does. A tracer
 * attached in between sees a completion it never saw submitted.
 */
static void prepare_inflight(struct ctx *c) {
  prepare_pipe(c);
  struct op_stats *poll = use_op(c, OP_POLL_ADD);
  poll->show_before_ready = true;
  c->armed_user_data = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_poll_add(sqe, c->pipe_rd, POLLIN);
  io_uring_sqe_set_data64(sqe, c->armed_user_data);
  submit_queued(c, 1);
  poll->submitted++;
  poll->before_ready++;
  // The pipe is empty, so the poll must still be armed, not completed.
  if (io_uring_cq_ready(&c->ring) != 0) fail("POLL_ADD on an empty pipe completed at once");
}

static void scenario_inflight(struct ctx *c) {
  struct op_stats *poll = use_op(c, OP_POLL_ADD);
  pipe_put(c, 0x5a);
  struct io_uring_cqe *cqe = wait_one(c);
  uint64_t ud = io_uring_cqe_get_data64(cqe);
  int res = cqe->res;
  unsigned flags = cqe->flags;
  io_uring_cqe_seen(&c->ring, cqe);
  if (ud != c->armed_user_data)
    fail("unexpected completion user_data=%llu", (unsigned long long)ud);
  count_cqe(poll, res, flags);
  if (res < 0 || !(res & POLLIN)) fail("POLL_ADD res=%d has no POLLIN", res);
  if (flags & IORING_CQE_F_MORE) fail("single-shot POLL_ADD posted IORING_CQE_F_MORE");
  pipe_take(c, 0x5a);
  run_batched(c, OP_NOP, 32, 0);
}

/* ------------------------------------------------ scenarios: shared helpers */

static uint64_t now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0) fail_errno("clock_gettime");
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// Absolute deadline, so an interrupted sleep does not restart from zero.
static void sleep_ms(unsigned ms) {
  struct timespec until;
  if (clock_gettime(CLOCK_MONOTONIC, &until) < 0) fail_errno("clock_gettime");
  until.tv_sec += ms / 1000u;
  until.tv_nsec += (long)(ms % 1000u) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  int err;
  while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL)) == EINTR) {
  }
  if (err != 0) fail("clock_nanosleep: %s", strerror(err));
}

// A CQE copied out of the ring, so it can be checked after io_uring_cqe_seen.
struct cqe_copy {
  uint64_t ud;
  int res;
  unsigned flags;
};

static struct cqe_copy reap(struct ctx *c) {
  struct io_uring_cqe *cqe = wait_one(c);
  struct cqe_copy out = {io_uring_cqe_get_data64(cqe), cqe->res, cqe->flags};
  io_uring_cqe_seen(&c->ring, cqe);
  return out;
}

// Index of `ud` in the batch first..first+n-1; fails on a foreign or repeated one.
static unsigned batch_index(uint64_t ud, uint64_t first, unsigned n, bool *seen) {
  if (ud < first || ud - first >= n)
    fail("unexpected completion user_data=%llu (batch is %llu..%llu)", (unsigned long long)ud,
         (unsigned long long)first, (unsigned long long)(first + n - 1));
  unsigned i = (unsigned)(ud - first);
  if (seen[i]) fail("duplicate completion user_data=%llu", (unsigned long long)ud);
  seen[i] = true;
  return i;
}

static unsigned batch_size(const struct ctx *c, unsigned want, unsigned long remaining) {
  unsigned b = want < c->params.sq_entries ? want : c->params.sq_entries;
  return remaining < b ? (unsigned)remaining : b;
}

// Scenarios that park one io-wq thread per request refuse absurd counts.
static void check_thread_count(const struct ctx *c, const char *scenario) {
  if (c->count > MAX_THREAD_COUNT)
    bad_args("%s: COUNT %lu is above %lu (one io-wq thread per request)", scenario, c->count,
             MAX_THREAD_COUNT);
}

/* -------------------------------------------------------------- errors */

/*
 * READs on an fd number that is not open: each fails in the issue path with
 * -EBADF (after the submit tracepoint, unlike `badop`). Batched 16 per submit.
 */
static void scenario_errors(struct ctx *c) {
  // A number that was just open and is now closed; nothing else is opened
  // during the run, so it stays closed.
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_errno("open /dev/null");
  if (close(fd) < 0) fail_errno("close");
  if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) fail("fd %d is still open after close", fd);

  struct op_stats *st = use_op(c, OP_READ);
  unsigned char *buf = alloc_blocks(1);
  bool seen[16];
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = batch_size(c, 16, remaining);
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      // All READs share the buffer: none of them can write to it.
      io_uring_prep_read(sqe, fd, buf, CHUNK, 0);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
      seen[i] = false;
    }
    submit_queued(c, n);
    st->submitted += n;
    for (unsigned done = 0; done < n; done++) {
      struct cqe_copy q = reap(c);
      batch_index(q.ud, first, n, seen);
      count_cqe(st, q.res, q.flags);
      if (q.res != -EBADF)
        fail("READ on closed fd %d: user_data=%llu res=%d, expected -EBADF", fd,
             (unsigned long long)q.ud, q.res);
    }
    remaining -= n;
  }
  free(buf);
  note(c, "GROUND-TRUTH errno name=EBADF count=%llu\n", st->errors);
}

/* -------------------------------------------- FIFO opens stuck in io-wq */

/*
 * A write-only open of a FIFO blocks until a reader appears, and it cannot be
 * polled, so with IOSQE_ASYNC it blocks an io-wq worker (wchan
 * wait_for_partner). Without IOSQE_ASYNC the inline attempt uses O_NONBLOCK
 * and fails with -ENXIO.
 *
 * Nothing is left on disk on any path: the FIFO is created in a private temp
 * dir, an O_PATH fd is kept, and FIFO and dir are removed before any request
 * is issued. The requests open "/proc/self/fd/<n>", which reopens the
 * unlinked FIFO (io-wq workers share the process's fd table), and so can a
 * reader later.
 */
static void prepare_fifo(struct ctx *c) {
  const char *tmp = getenv("TMPDIR");
  if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
  char dir[4096], path[4096 + 16];
  int n = snprintf(dir, sizeof(dir), "%s/uringscope-inject-XXXXXX", tmp);
  if (n < 0 || (size_t)n >= sizeof(dir)) fail("TMPDIR too long: %s", tmp);
  if (mkdtemp(dir) == NULL) fail("mkdtemp %s: %s", dir, strerror(errno));
  snprintf(path, sizeof(path), "%s/fifo", dir);

  int err = 0;
  const char *what = NULL;
  int fd = -1;
  if (mkfifo(path, 0600) < 0) {
    err = errno;
    what = "mkfifo";
  } else {
    fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
      err = errno;
      what = "open O_PATH";
    }
    if (unlink(path) < 0 && what == NULL) {
      err = errno;
      what = "unlink";
    }
  }
  if (rmdir(dir) < 0 && what == NULL) {
    err = errno;
    what = "rmdir";
  }
  if (what != NULL) fail("%s %s: %s", what, path, strerror(err));

  c->fifo_path_fd = fd;
  snprintf(c->fifo_path, sizeof(c->fifo_path), "/proc/self/fd/%d", fd);
}

struct io_workers {
  unsigned total;         // threads whose comm starts with "iou-wrk"
  unsigned fifo_blocked;  // of those, the ones waiting in a FIFO open
};

static bool read_small_file(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // the thread exited meanwhile
  ssize_t r = read(fd, buf, size - 1);
  close(fd);
  if (r < 0) return false;
  buf[r] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  return true;
}

static struct io_workers count_io_workers(void) {
  struct io_workers w = {0, 0};
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) fail_errno("opendir /proc/self/task");
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[64], comm[64], wchan[128];
    snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
    if (!read_small_file(path, comm, sizeof(comm))) continue;
    if (strncmp(comm, "iou-wrk", 7) != 0) continue;
    w.total++;
    snprintf(path, sizeof(path), "/proc/self/task/%.20s/wchan", e->d_name);
    if (!read_small_file(path, wchan, sizeof(wchan))) continue;
    // wait_for_partner() is where fifo_open() sleeps (fifo_open if inlined).
    if (strcmp(wchan, "wait_for_partner") == 0 || strcmp(wchan, "fifo_open") == 0)
      w.fifo_blocked++;
  }
  closedir(d);
  return w;
}

// Polls /proc until `want` io-wq workers sleep in a FIFO open (5 s at most).
static struct io_workers wait_fifo_blocked(unsigned want) {
  const uint64_t deadline = now_ns() + 5000000000ull;
  for (;;) {
    struct io_workers w = count_io_workers();
    if (w.fifo_blocked == want) return w;
    if (w.fifo_blocked > want)
      fail("%u io-wq workers wait in a FIFO open, only %u opens were issued", w.fifo_blocked,
           want);
    if (now_ns() > deadline)
      fail("after 5 s only %u of %u FIFO opens block in io-wq (%u iou-wrk threads)",
           w.fifo_blocked, want, w.total);
    sleep_ms(1);
  }
}

// Raises the bounded io-wq limit (OPENAT is bounded work) to at least
// `bound`; `unbound` 0 leaves that limit alone. Returns the bounded limit
// in force afterwards.
static unsigned raise_iowq_limits(struct ctx *c, unsigned bound, unsigned unbound) {
  unsigned cur[2] = {0, 0};  // {0, 0} only queries
  int ret = io_uring_register_iowq_max_workers(&c->ring, cur);
  if (ret < 0) fail_uring("io_uring_register_iowq_max_workers", ret);
  if (cur[0] >= bound && unbound == 0) return cur[0];
  unsigned v[2] = {bound > cur[0] ? bound : cur[0], unbound};
  ret = io_uring_register_iowq_max_workers(&c->ring, v);
  if (ret < 0) fail_uring("io_uring_register_iowq_max_workers", ret);
  return v[0];
}

// Submits c->count FIFO write-opens with IOSQE_ASYNC, up to sq_entries per
// submit, and waits until every one is blocked in an io-wq worker.
static struct io_workers submit_fifo_opens(struct ctx *c, uint64_t *first) {
  struct op_stats *st = use_op(c, OP_OPENAT);
  *first = c->next_user_data;
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = batch_size(c, c->params.sq_entries, remaining);
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_openat(sqe, AT_FDCWD, c->fifo_path, O_WRONLY | O_CLOEXEC, 0);
      io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
    }
    submit_queued(c, n);
    st->submitted += n;
    st->forced_async += n;
    remaining -= n;
  }
  struct io_workers w = wait_fifo_blocked((unsigned)c->count);
  // A completion now would be an open that did not block (e.g. -ENXIO).
  if (io_uring_cq_ready(&c->ring) != 0) {
    struct cqe_copy q = reap(c);
    fail("FIFO open completed without a reader: user_data=%llu res=%d",
         (unsigned long long)q.ud, q.res);
  }
  return w;
}

/*
 * COUNT opens that never complete: they are reported while still blocked,
 * stay blocked through --linger, and the process then exits without reaping
 * them. At exit the kernel cancels them (it interrupts the waiting workers),
 * so the exit is prompt.
 */
static void scenario_leak(struct ctx *c) {
  check_thread_count(c, "leak");
  raise_iowq_limits(c, (unsigned)c->count, 0);
  uint64_t first = 0;
  submit_fifo_opens(c, &first);
  note(c, "GROUND-TRUTH leak stuck=%lu user_data=", c->count);
  for (unsigned long i = 0; i < c->count; i++)
    note(c, "%s%llu", i == 0 ? "" : ",", (unsigned long long)(first + i));
  note(c, "\n");
}

/*
 * COUNT opens blocked at once, each in its own io-wq worker (the bounded
 * limit is raised to COUNT first: by default it is min(sq_entries, 4 x CPUs)).
 * The worker threads are counted while all of them wait; then one reader open
 * completes every open, and all COUNT fds are reaped and closed.
 */
static void scenario_worker_storm(struct ctx *c) {
  check_thread_count(c, "worker-storm");
  // All COUNT CQEs are posted at once: they must fit the CQ, or the run
  // would overflow it too.
  if (c->count > c->params.cq_entries)
    fail("worker-storm %lu needs cq_entries >= %lu (is %u): raise --entries", c->count, c->count,
         c->params.cq_entries);
  raise_iowq_limits(c, (unsigned)c->count, (unsigned)c->count);
  uint64_t first = 0;
  struct io_workers w = submit_fifo_opens(c, &first);

  int reader = open(c->fifo_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (reader < 0) fail_errno("open FIFO for reading");

  struct op_stats *st = use_op(c, OP_OPENAT);
  bool *seen = calloc(c->count, sizeof(*seen));
  if (seen == NULL) fail("calloc: %s", strerror(errno));
  for (unsigned long done = 0; done < c->count; done++) {
    struct cqe_copy q = reap(c);
    batch_index(q.ud, first, (unsigned)c->count, seen);
    count_cqe(st, q.res, q.flags);
    if (q.res < 0)
      fail("FIFO open user_data=%llu failed: %s", (unsigned long long)q.ud, strerror(-q.res));
    if (close(q.res) < 0) fail_errno("close opened FIFO");
  }
  free(seen);
  if (close(reader) < 0) fail_errno("close");
  note(c, "GROUND-TRUTH workers distinct=%u\n", w.total);
}

/* -------------------------------------------------------- sqpoll-stall */

// Longer than the stall scenario's sq_thread_idle, so the thread always sleeps.
#define SQPOLL_STALL_IDLE_MS 2u
#define SQPOLL_STALL_GAP_MS 20u

/*
 * One NOP at a time on an SQPOLL ring whose thread idles out after 2 ms;
 * before each NOP the app sleeps 20 ms, so the thread is asleep every time
 * and io_uring_submit must wake it (IORING_ENTER_SQ_WAKEUP). The flag is read
 * just before submitting, the same way liburing reads it.
 */
static void scenario_sqpoll_stall(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_NOP);
  unsigned long wakeups = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    sleep_ms(SQPOLL_STALL_GAP_MS);
    const uint64_t ud = c->next_user_data++;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, ud);
    atomic_thread_fence(memory_order_seq_cst);  // as liburing's io_uring_smp_mb()
    if (IO_URING_READ_ONCE(*c->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP) wakeups++;
    submit_queued(c, 1);
    st->submitted++;
    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != 0) fail("NOP user_data=%llu failed: %s", (unsigned long long)ud, strerror(-q.res));
  }
  note(c, "GROUND-TRUTH sqpoll idle_ms=%u wakeups=%lu gap_ms=%u\n", c->params.sq_thread_idle,
       wakeups, SQPOLL_STALL_GAP_MS);
}

/* ------------------------------------------------------- poll retries */

#define MSG_SIZE 64u

static void prepare_socketpair(struct ctx *c) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->sock) < 0) fail_errno("socketpair");
}

static void fill_msg(unsigned char *dst, uint64_t seq) {
  for (unsigned i = 0; i < MSG_SIZE; i += sizeof(seq)) {
    uint64_t w = (seq + 1) * PATTERN_MAGIC + i;
    memcpy(dst + i, &w, sizeof(w));
  }
}

static bool msg_matches(const unsigned char *src, uint64_t seq) {
  unsigned char want[MSG_SIZE];
  fill_msg(want, seq);
  return memcmp(src, want, MSG_SIZE) == 0;
}

static void send_all(int fd, const void *buf, size_t len) {
  for (;;) {
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail_errno("send");
    if ((size_t)w != len) fail("send: sent %zd of %zu bytes", w, len);
    return;
  }
}

/*
 * COUNT times: a RECV on an empty socket (the inline nonblocking attempt gets
 * -EAGAIN, so the kernel arms poll: io_uring_poll_arm), then send(2) from the
 * other end, then reap. The CQE must not be there before the send.
 */
static void scenario_pollretry_socket(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_RECV);
  unsigned char out[MSG_SIZE], in[MSG_SIZE];
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t ud = c->next_user_data++;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_recv(sqe, c->sock[1], in, MSG_SIZE, 0);
    io_uring_sqe_set_data64(sqe, ud);
    submit_queued(c, 1);
    st->submitted++;
    if (io_uring_cq_ready(&c->ring) != 0) fail("RECV on an empty socket completed at once");

    fill_msg(out, i);
    send_all(c->sock[0], out, MSG_SIZE);
    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != (int)MSG_SIZE)
      fail("RECV user_data=%llu returned %d, expected %u", (unsigned long long)ud, q.res,
           MSG_SIZE);
    if (!msg_matches(in, i)) fail("RECV user_data=%llu returned wrong data", (unsigned long long)ud);
  }
  note(c, "GROUND-TRUTH poll armed=%lu regular=0\n", c->count);
}

/*
 * A regular file that needs poll: trace_pipe of a private tracefs instance.
 * Its state lives in a static so that the exit and signal paths can remove
 * the instance (they may only use async-signal-safe calls).
 */
#define TRACEFS_DIR "/sys/kernel/tracing"
#define TRACE_WAIT_MS 10u

static struct {
  char dir[128];  // instance directory; "" when there is none
  volatile sig_atomic_t active;
  int pipe_fd;
  int marker_fd;
  int ring_fd;
} trace_inst = {"", 0, -1, -1, -1};

static const int cleanup_signals[] = {SIGHUP, SIGINT, SIGTERM};

// Async-signal-safe. Closes the instance's files (and, on the failure paths,
// the ring, whose pending READ holds trace_pipe open), then removes the
// instance, retrying while released files still hold it (EBUSY).
static bool trace_instance_remove(bool close_ring) {
  if (!trace_inst.active) return true;
  trace_inst.active = 0;
  if (trace_inst.marker_fd >= 0) {
    // Lets a READ still waiting on trace_pipe finish.
    static const char line[] = "uringscope-inject cleanup\n";
    ssize_t ignored = write(trace_inst.marker_fd, line, sizeof(line) - 1);
    (void)ignored;
    close(trace_inst.marker_fd);
  }
  if (trace_inst.pipe_fd >= 0) close(trace_inst.pipe_fd);
  if (close_ring && trace_inst.ring_fd >= 0) close(trace_inst.ring_fd);
  trace_inst.marker_fd = trace_inst.pipe_fd = -1;
  for (int i = 0; i < 500; i++) {  // 5 s
    if (rmdir(trace_inst.dir) == 0 || errno == ENOENT) return true;
    if (errno != EBUSY) break;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  static const char msg[] = "inject: could not remove tracefs instance ";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
  ignored = write(STDERR_FILENO, trace_inst.dir, strlen(trace_inst.dir));
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
  return false;
}

static void trace_instance_atexit(void) { trace_instance_remove(true); }

static void trace_instance_on_signal(int sig) {
  trace_instance_remove(true);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void prepare_trace_instance(struct ctx *c) {
  struct stat st;
  if (stat(TRACEFS_DIR "/instances", &st) < 0) {
    if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0)
      fail("tracefs unavailable: %s/instances is missing and mounting tracefs there failed: %s "
           "(needs root and CONFIG_TRACING)",
           TRACEFS_DIR, strerror(errno));
    if (stat(TRACEFS_DIR "/instances", &st) < 0)
      fail("tracefs unavailable: no %s/instances after mounting tracefs", TRACEFS_DIR);
  }

  if (atexit(trace_instance_atexit) != 0) fail("atexit failed");
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = trace_instance_on_signal;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
    if (sigaction(cleanup_signals[i], &sa, NULL) < 0) fail_errno("sigaction");

  snprintf(trace_inst.dir, sizeof(trace_inst.dir), "%s/instances/uringscope-inject-%ld",
           TRACEFS_DIR, (long)getpid());
  trace_inst.ring_fd = c->ring.ring_fd;
  // Active before mkdir, so a signal right after it still removes the
  // instance (rmdir of a missing one counts as done).
  trace_inst.active = 1;
  if (mkdir(trace_inst.dir, 0700) < 0) {
    int err = errno;
    trace_inst.active = 0;
    fail("tracefs unavailable: mkdir %s: %s", trace_inst.dir, strerror(err));
  }

  char path[192];
  snprintf(path, sizeof(path), "%s/trace_pipe", trace_inst.dir);
  trace_inst.pipe_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (trace_inst.pipe_fd < 0) fail("open %s: %s", path, strerror(errno));
  snprintf(path, sizeof(path), "%s/trace_marker", trace_inst.dir);
  trace_inst.marker_fd = open(path, O_WRONLY | O_CLOEXEC);
  if (trace_inst.marker_fd < 0) fail("open %s: %s", path, strerror(errno));
  if (fstat(trace_inst.pipe_fd, &st) < 0) fail_errno("fstat trace_pipe");
  if (!S_ISREG(st.st_mode)) fail("%s/trace_pipe is not a regular file", trace_inst.dir);
}

/*
 * COUNT times: a READ on the instance's trace_pipe, which has no data. The
 * file is regular (REQ_F_ISREG) but pollable, so the inline attempt arms poll;
 * once a line is written to trace_marker the retry is punted to io-wq, which
 * reads it. The READ must still be pending after TRACE_WAIT_MS.
 */
static void scenario_pollretry_file(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_READ);
  char buf[CHUNK + 1];
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t ud = c->next_user_data++;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_read(sqe, trace_inst.pipe_fd, buf, CHUNK, 0);
    io_uring_sqe_set_data64(sqe, ud);
    submit_queued(c, 1);
    st->submitted++;
    sleep_ms(TRACE_WAIT_MS);
    if (io_uring_cq_ready(&c->ring) != 0) fail("READ on an empty trace_pipe completed early");

    char line[64];
    int len = snprintf(line, sizeof(line), "uringscope-inject %lu\n", i);
    ssize_t w = write(trace_inst.marker_fd, line, (size_t)len);
    if (w < 0) fail_errno("write trace_marker");
    if (w != len) fail("write trace_marker: wrote %zd of %d bytes", w, len);

    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res <= 0)
      fail("READ trace_pipe user_data=%llu returned %d", (unsigned long long)ud, q.res);
    buf[q.res] = '\0';
    line[len - 1] = '\0';  // the pipe shows the marker text, with a prefix
    if (strstr(buf, line) == NULL)
      fail("READ trace_pipe user_data=%llu: no '%s' in what it returned", (unsigned long long)ud,
           line);
  }

  // Success path: no signal may run the cleanup at the same time.
  sigset_t all, old;
  sigfillset(&all);
  if (sigprocmask(SIG_BLOCK, &all, &old) < 0) fail_errno("sigprocmask");
  bool removed = trace_instance_remove(false);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (size_t k = 0; k < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); k++)
    if (sigaction(cleanup_signals[k], &dfl, NULL) < 0) fail_errno("sigaction");
  if (sigprocmask(SIG_SETMASK, &old, NULL) < 0) fail_errno("sigprocmask");
  if (!removed) fail("tracefs instance %s not removed", trace_inst.dir);

  note(c, "GROUND-TRUTH poll armed=%lu regular=%lu\n", c->count, c->count);
}

/* --------------------------------------------------------- short-write */

// Each WRITE starts SHORT_WRITE_GOT bytes below RLIMIT_FSIZE and asks for
// twice that, so the file system writes exactly up to the limit.
#define SHORT_WRITE_LIMIT (1u << 20)
#define SHORT_WRITE_GOT 4096u
#define SHORT_WRITE_WANTED (2 * SHORT_WRITE_GOT)

/*
 * Buffered WRITEs cut short by RLIMIT_FSIZE. io_write() fires
 * io_uring_short_write for every write on a regular file that returns
 * 0 <= got < wanted, whether it ran inline (IOCB_NOWAIT) or in io-wq, and
 * then returns -EAGAIN with the bytes counted in bytes_done:
 * - ext4 and tmpfs have no FOP_BUFFER_WASYNC, so every buffered write is
 *   punted before writing anything; the blocking write in io-wq is the short
 *   one, io-wq does not retry a regular file on -EAGAIN, and the request ends
 *   with the bytes written (4096).
 * - XFS (and btrfs) try inline with IOCB_NOWAIT: that write is the short one
 *   (unless it could not start without blocking, then it is the io-wq one),
 *   and the io-wq retry of the rest fails with -EFBIG (SIGXFSZ, ignored
 *   here); the CQE is 4096 as well.
 * Either way exactly one event per request, all at fpos = limit - 4096.
 */
static void scenario_short_write(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_WRITE);
  struct rlimit old_lim, lim;
  if (getrlimit(RLIMIT_FSIZE, &old_lim) < 0) fail_errno("getrlimit");
  if (old_lim.rlim_max != RLIM_INFINITY && old_lim.rlim_max < SHORT_WRITE_LIMIT)
    fail("RLIMIT_FSIZE hard limit %llu is below %u", (unsigned long long)old_lim.rlim_max,
         SHORT_WRITE_LIMIT);
  struct sigaction ign, old_xfsz;
  memset(&ign, 0, sizeof(ign));
  ign.sa_handler = SIG_IGN;
  if (sigaction(SIGXFSZ, &ign, &old_xfsz) < 0) fail_errno("sigaction");
  lim.rlim_cur = SHORT_WRITE_LIMIT;
  lim.rlim_max = old_lim.rlim_max;
  if (setrlimit(RLIMIT_FSIZE, &lim) < 0) fail_errno("setrlimit");

  unsigned char *buf = alloc_blocks(SHORT_WRITE_WANTED / CHUNK);
  for (unsigned b = 0; b < SHORT_WRITE_WANTED / CHUNK; b++) fill_block(buf + b * CHUNK, b);
  const off_t off = SHORT_WRITE_LIMIT - SHORT_WRITE_GOT;
  bool seen[16];
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = batch_size(c, 16, remaining);
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_write(sqe, c->file_fd, buf, SHORT_WRITE_WANTED, (uint64_t)off);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
      seen[i] = false;
    }
    submit_queued(c, n);
    st->submitted += n;
    for (unsigned done = 0; done < n; done++) {
      struct cqe_copy q = reap(c);
      batch_index(q.ud, first, n, seen);
      count_cqe(st, q.res, q.flags);
      if (q.res != (int)SHORT_WRITE_GOT)
        fail("WRITE user_data=%llu returned %d, expected %u (cut at RLIMIT_FSIZE)",
             (unsigned long long)q.ud, q.res, SHORT_WRITE_GOT);
    }
    remaining -= n;
  }

  if (setrlimit(RLIMIT_FSIZE, &old_lim) < 0) fail_errno("setrlimit");
  if (sigaction(SIGXFSZ, &old_xfsz, NULL) < 0) fail_errno("sigaction");
  struct stat sb;
  if (fstat(c->file_fd, &sb) < 0) fail_errno("fstat");
  if (sb.st_size != SHORT_WRITE_LIMIT)
    fail("file size %lld after the writes, expected %u", (long long)sb.st_size,
         SHORT_WRITE_LIMIT);
  unsigned char *back = alloc_blocks(1);
  ssize_t r = pread(c->file_fd, back, CHUNK, off);
  if (r != (ssize_t)CHUNK || !block_matches(back, 0)) fail("written data did not read back");
  free(back);
  free(buf);
  note(c, "GROUND-TRUTH short_write events=%llu wanted=%u got=%u fsize_limit=%u\n", st->completed,
       SHORT_WRITE_WANTED, SHORT_WRITE_GOT, SHORT_WRITE_LIMIT);
}

// An empty temp file (unlinked at once); short-write fills its last 4 KiB.
static void prepare_empty_file(struct ctx *c) {
  const char *dir = getenv("TMPDIR");
  if (dir == NULL || dir[0] == '\0') dir = "/tmp";
  char path[4096];
  int n = snprintf(path, sizeof(path), "%s/uringscope-inject-XXXXXX", dir);
  if (n < 0 || (size_t)n >= sizeof(path)) fail("TMPDIR too long: %s", dir);
  int fd = mkostemp(path, O_CLOEXEC);
  if (fd < 0) fail("mkostemp %s: %s", path, strerror(errno));
  if (unlink(path) < 0) fail_errno("unlink");
  c->file_fd = fd;
}

/* ----------------------------------------------------------- defer-tw */

#define DEFER_WRITE_DELAY_MS 20u
#define DEFER_PEEK_MS 300u

struct delayed_write {
  int fd;
  unsigned char byte;
  uint64_t written_ns;  // read only after pthread_join
  int err;
};

static void *delayed_write_thread(void *arg) {
  struct delayed_write *dw = arg;
  sleep_ms(DEFER_WRITE_DELAY_MS);
  ssize_t w;
  do {
    w = write(dw->fd, &dw->byte, 1);
  } while (w < 0 && errno == EINTR);
  dw->err = w == 1 ? 0 : (w < 0 ? errno : EIO);
  dw->written_ns = now_ns();
  return NULL;
}

/*
 * SINGLE_ISSUER | DEFER_TASKRUN ring: a READ on an empty pipe arms poll; a
 * second thread writes a byte after 20 ms, which queues the retry as local
 * task work of the ring. Local work only runs inside io_uring_enter, so
 * while the app busy-polls the CQ ring for 300 ms (io_uring_peek_cqe enters
 * only when the SQ flags ask for a CQ flush, which they never do here) no
 * CQE can appear. io_uring_wait_cqe then enters, runs the work and gets it.
 * lag = CQE arrival - pipe write, min and max over the COUNT repetitions.
 */
static void scenario_defer_tw(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_READ);
  uint64_t lag_min = UINT64_MAX, lag_max = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t ud = c->next_user_data++;
    unsigned char in = 0;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_read(sqe, c->pipe_rd, &in, 1, 0);
    io_uring_sqe_set_data64(sqe, ud);
    const uint64_t submitted = now_ns();
    submit_queued(c, 1);
    st->submitted++;
    if (io_uring_cq_ready(&c->ring) != 0) fail("READ on an empty pipe completed at once");

    struct delayed_write dw = {c->pipe_wr, (unsigned char)(i & 0xff), 0, 0};
    pthread_t th;
    int err = pthread_create(&th, NULL, delayed_write_thread, &dw);
    if (err != 0) fail("pthread_create: %s", strerror(err));

    while (now_ns() - submitted < DEFER_PEEK_MS * 1000000ull) {
      struct io_uring_cqe *cqe = NULL;
      int ret = io_uring_peek_cqe(&c->ring, &cqe);
      if (ret == -EAGAIN) continue;  // no CQE: what must happen
      if (ret < 0) fail_uring("io_uring_peek_cqe", ret);
      if (cqe != NULL)
        fail("CQE user_data=%llu appeared without io_uring_enter: task work was not deferred",
             (unsigned long long)io_uring_cqe_get_data64(cqe));
    }
    err = pthread_join(th, NULL);
    if (err != 0) fail("pthread_join: %s", strerror(err));
    if (dw.err != 0) fail("write to pipe: %s", strerror(dw.err));

    struct cqe_copy q = reap(c);
    const uint64_t arrived = now_ns();
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != 1)
      fail("READ pipe user_data=%llu returned %d, expected 1", (unsigned long long)ud, q.res);
    if (in != dw.byte) fail("READ pipe returned 0x%02x, wrote 0x%02x", in, dw.byte);
    const uint64_t lag = arrived - dw.written_ns;
    if (lag < lag_min) lag_min = lag;
    if (lag > lag_max) lag_max = lag;
  }
  note(c, "GROUND-TRUTH defer_tw lag_ms=%llu lag_max_ms=%llu peek_ms=%u write_delay_ms=%u\n",
       (unsigned long long)(lag_min / 1000000u), (unsigned long long)(lag_max / 1000000u),
       DEFER_PEEK_MS, DEFER_WRITE_DELAY_MS);
}

/* -------------------------------------------------------- clean-socket */

/*
 * Echo over a socketpair, 16 messages per submit in four steps per batch:
 * SENDs on end 0, RECVs on end 1, SENDs of what arrived back from end 1,
 * RECVs on end 0. Each step is submitted only after the previous one was
 * reaped, so every RECV finds its data and completes inline. COUNT round
 * trips = 2 x COUNT SENDs and 2 x COUNT RECVs, all of exactly MSG_SIZE bytes.
 */
static void socket_step(struct ctx *c, enum op_kind op, int fd, unsigned char *bufs, unsigned n) {
  struct op_stats *st = use_op(c, op);
  const uint64_t first = c->next_user_data;
  bool seen[16];
  for (unsigned i = 0; i < n; i++) {
    struct io_uring_sqe *sqe = get_sqe(c);
    if (op == OP_SEND)
      io_uring_prep_send(sqe, fd, bufs + (size_t)i * MSG_SIZE, MSG_SIZE, MSG_NOSIGNAL);
    else
      io_uring_prep_recv(sqe, fd, bufs + (size_t)i * MSG_SIZE, MSG_SIZE, 0);
    io_uring_sqe_set_data64(sqe, c->next_user_data++);
    seen[i] = false;
  }
  submit_queued(c, n);
  st->submitted += n;
  for (unsigned done = 0; done < n; done++) {
    struct cqe_copy q = reap(c);
    batch_index(q.ud, first, n, seen);
    count_cqe(st, q.res, q.flags);
    if (q.res != (int)MSG_SIZE)
      fail("%s user_data=%llu returned %d, expected %u", op_names[op], (unsigned long long)q.ud,
           q.res, MSG_SIZE);
  }
}

static void scenario_clean_socket(struct ctx *c) {
  unsigned char out[16 * MSG_SIZE], mid[16 * MSG_SIZE], back[16 * MSG_SIZE];
  uint64_t seq = 0;
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = batch_size(c, 16, remaining);
    for (unsigned i = 0; i < n; i++) fill_msg(out + (size_t)i * MSG_SIZE, seq + i);
    socket_step(c, OP_SEND, c->sock[0], out, n);
    socket_step(c, OP_RECV, c->sock[1], mid, n);
    socket_step(c, OP_SEND, c->sock[1], mid, n);
    socket_step(c, OP_RECV, c->sock[0], back, n);
    for (unsigned i = 0; i < n; i++)
      if (!msg_matches(back + (size_t)i * MSG_SIZE, seq + i))
        fail("echoed message %llu came back wrong", (unsigned long long)(seq + i));
    seq += n;
    remaining -= n;
  }
}

// Expected tags that uringscope does not produce yet (OVERFLOW, ERRORS) are
// named anyway: they say what the scenario is, and a future rule is tested
// against them.
static const struct scenario scenarios[] = {
    {"clean", 1000, "none", 0, 0, NULL, scenario_clean, 0},
    {"clean-read", 1000, "none", 0, 0, prepare_cached_file, scenario_clean_read, 0},
    {"punt", 1000, "PUNT", 0, 0, prepare_cached_file, scenario_punt, 0},
    {"nobatch", 1000, "BATCH", 0, 0, NULL, scenario_nobatch, 0},
    {"multishot", 100, "none", 0, 0, prepare_pipe, scenario_multishot, 0},
    {"link", 100, "none", 0, 0, NULL, scenario_link, 0},
    // 8 entries: sq 8, cq 16, so the default 64 NOPs overflow 48 CQEs.
    {"overflow", 64, "OVERFLOW", 0, 8, NULL, scenario_overflow, 0},
    {"cqe-skip", 1000, "none", 0, 0, NULL, scenario_cqe_skip, 0},
    {"badop", 100, "ERRORS", 0, 0, NULL, scenario_badop, 0},
    {"sqpoll", 1000, "none", IORING_SETUP_SQPOLL, 0, NULL, scenario_sqpoll, 0},
    {"inflight", 100, "none", 0, 0, prepare_inflight, scenario_inflight, 0},
    {"errors", 100, "ERRORS", 0, 0, NULL, scenario_errors, 0},
    {"leak", 4, "LEAK", 0, 0, prepare_fifo, scenario_leak, 0},
    {"worker-storm", 64, "WORKERS", 0, 0, prepare_fifo, scenario_worker_storm, 0},
    {"sqpoll-stall", 50, "SQPOLL", IORING_SETUP_SQPOLL, 0, NULL, scenario_sqpoll_stall,
     SQPOLL_STALL_IDLE_MS},
    {"pollretry-socket", 100, "POLL-RETRY", 0, 0, prepare_socketpair, scenario_pollretry_socket,
     0},
    {"pollretry-file", 20, "POLL-RETRY", 0, 0, prepare_trace_instance, scenario_pollretry_file, 0},
    {"short-write", 100, "SHORT-WRITE", 0, 0, prepare_empty_file, scenario_short_write, 0},
    {"defer-tw", 5, "DEFER-TW", IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0,
     prepare_pipe, scenario_defer_tw, 0},
    {"clean-socket", 1000, "none", 0, 0, prepare_socketpair, scenario_clean_socket, 0},
};

static const struct scenario *find_scenario(const char *name) {
  for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
    if (strcmp(scenarios[i].name, name) == 0) return &scenarios[i];
  return NULL;
}

/* -------------------------------------------------------------- reporting */

static void report(const struct ctx *c, const struct scenario *s) {
  printf("GROUND-TRUTH scenario=%s pid=%ld expect=%s\n", s->name, (long)getpid(), s->expect);
  printf("GROUND-TRUTH ring fd=%d sq_entries=%u cq_entries=%u flags=%u\n", c->ring.ring_fd,
         c->params.sq_entries, c->params.cq_entries, c->params.flags);
  for (int op = 0; op < OP_KIND_COUNT; op++) {
    const struct op_stats *st = &c->ops[op];
    if (!st->used) continue;
    printf("GROUND-TRUTH op=%s submitted=%llu completed=%llu forced_async=%llu errors=%llu",
           op_names[op], st->submitted, st->completed, st->forced_async, st->errors);
    if (st->show_multishot) printf(" multishot_cqes=%llu", st->multishot_cqes);
    if (st->show_before_ready) printf(" submitted_before_ready=%llu", st->before_ready);
    putchar('\n');
  }
  fputs(c->notes, stdout);
  printf("GROUND-TRUTH submit_calls=%llu sqes=%llu\n", c->submit_calls, c->sqes);
  // A test reading a pipe must not see a partial report, and a failed write
  // must not pass as success.
  if (fflush(stdout) != 0 || ferror(stdout)) fail_errno("writing stdout");
}

/* --------------------------------------------------------- process control */

// Blocked before READY is printed, so a SIGUSR1 sent the instant the reader
// sees READY is held pending instead of killing us.
static void block_sigusr1(sigset_t *set) {
  if (sigemptyset(set) < 0 || sigaddset(set, SIGUSR1) < 0) fail_errno("sigaddset");
  if (sigprocmask(SIG_BLOCK, set, NULL) < 0) fail_errno("sigprocmask");
}

static void wait_for_go(const sigset_t *set) {
  printf("READY pid=%ld\n", (long)getpid());
  if (fflush(stdout) != 0 || ferror(stdout)) fail_errno("writing stdout");
  int sig = 0;
  int err = sigwait(set, &sig);  // returns the error, does not set errno
  if (err != 0) fail("sigwait: %s", strerror(err));
}

// Absolute deadline so an interrupted sleep does not restart from zero.
static void linger(double seconds) {
  if (seconds <= 0) return;
  struct timespec until;
  if (clock_gettime(CLOCK_MONOTONIC, &until) < 0) fail_errno("clock_gettime");
  time_t whole = (time_t)seconds;  // truncation == floor, seconds >= 0
  until.tv_sec += whole;
  until.tv_nsec += (long)((seconds - (double)whole) * 1e9);
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  int err;
  while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL)) == EINTR) {
  }
  if (err != 0) fail("clock_nanosleep: %s", strerror(err));
}

/* -------------------------------------------------------------- arguments */

struct options {
  bool wait_signal;
  double linger;
  unsigned entries;
  const struct scenario *scenario;
  unsigned long count;
};

static unsigned long parse_ulong(const char *what, const char *s, unsigned long min,
                                 unsigned long max) {
  // strtoul accepts leading '-' and whitespace; a count of "-1" must not
  // become ULONG_MAX.
  if (s[0] < '0' || s[0] > '9') bad_args("%s: not a positive integer: '%s'", what, s);
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno != 0 || *end != '\0') bad_args("%s: not a positive integer: '%s'", what, s);
  if (v < min || v > max) bad_args("%s: %s out of range %lu..%lu", what, s, min, max);
  return v;
}

static double parse_seconds(const char *what, const char *s) {
  // Requiring a digit or '.' first also rules out "inf", "nan" and hex.
  if ((s[0] < '0' || s[0] > '9') && s[0] != '.') bad_args("%s: not a number of seconds: '%s'", what, s);
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || v < 0 || v > MAX_LINGER)
    bad_args("%s: not a number of seconds in 0..%.0f: '%s'", what, MAX_LINGER, s);
  return v;
}

// Accepts "--opt VALUE" and "--opt=VALUE"; returns the value and advances *i
// past it.
static const char *option_value(int argc, char **argv, int *i, const char *name) {
  const char *arg = argv[*i];
  size_t len = strlen(name);
  if (arg[len] == '=') return arg + len + 1;
  if (*i + 1 >= argc) bad_args("%s needs a value", name);
  return argv[++*i];
}

static bool is_option(const char *arg, const char *name) {
  size_t len = strlen(name);
  return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static struct options parse_args(int argc, char **argv) {
  struct options o = {.wait_signal = false, .linger = 0, .entries = 0};
  const char *positional[2];
  int npos = 0;
  bool only_positional = false;

  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    // Only "--x" and "-h" are options, so a COUNT of "-1" gets a COUNT error.
    if (!only_positional && (strncmp(arg, "--", 2) == 0 || strcmp(arg, "-h") == 0)) {
      if (strcmp(arg, "--") == 0) {
        only_positional = true;
      } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        usage_line(stdout);
        fputs("scenarios:", stdout);
        for (size_t k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++)
          printf(" %s", scenarios[k].name);
        fputc('\n', stdout);
        exit(0);
      } else if (strcmp(arg, "--wait-signal") == 0) {
        o.wait_signal = true;
      } else if (is_option(arg, "--linger")) {
        o.linger = parse_seconds("--linger", option_value(argc, argv, &i, "--linger"));
      } else if (is_option(arg, "--entries")) {
        o.entries = (unsigned)parse_ulong("--entries", option_value(argc, argv, &i, "--entries"), 1,
                                          MAX_ENTRIES);
      } else {
        bad_args("unknown option '%s' (try --help)", arg);
      }
      continue;
    }
    if (npos == 2) bad_args("unexpected argument '%s'", arg);
    positional[npos++] = arg;
  }

  if (npos == 0) bad_args("missing SCENARIO (try --help)");
  o.scenario = find_scenario(positional[0]);
  if (o.scenario == NULL) bad_args("unknown scenario '%s' (try --help)", positional[0]);
  o.count = npos == 2 ? parse_ulong("COUNT", positional[1], 1, MAX_COUNT) : o.scenario->default_count;
  if (o.entries == 0)
    o.entries = o.scenario->default_entries != 0 ? o.scenario->default_entries : 64;
  return o;
}

/* ------------------------------------------------------------------- main */

int main(int argc, char **argv) {
  struct options o = parse_args(argc, argv);

  sigset_t usr1;
  if (o.wait_signal) block_sigusr1(&usr1);

  struct ctx c;
  memset(&c, 0, sizeof(c));
  c.file_fd = -1;
  c.pipe_rd = -1;
  c.pipe_wr = -1;
  c.count = o.count;
  c.next_user_data = 1;
  c.rng = 0x9e3779b97f4a7c15ull;

  c.sock[0] = -1;
  c.sock[1] = -1;
  c.fifo_path_fd = -1;

  setup_ring(&c, o.entries, o.scenario->ring_flags, o.scenario->sq_idle_ms);
  if (o.scenario->prepare != NULL) o.scenario->prepare(&c);

  if (o.wait_signal) wait_for_go(&usr1);

  o.scenario->run(&c);
  report(&c, o.scenario);

  // The ring stays open while lingering so a -p attach still finds it.
  linger(o.linger);

  io_uring_queue_exit(&c.ring);
  if (c.file_fd >= 0 && close(c.file_fd) < 0) fail_errno("close");
  if (c.pipe_rd >= 0 && close(c.pipe_rd) < 0) fail_errno("close");
  if (c.pipe_wr >= 0 && close(c.pipe_wr) < 0) fail_errno("close");
  for (int i = 0; i < 2; i++)
    if (c.sock[i] >= 0 && close(c.sock[i]) < 0) fail_errno("close");
  if (c.fifo_path_fd >= 0 && close(c.fifo_path_fd) < 0) fail_errno("close");
  return 0;
}
