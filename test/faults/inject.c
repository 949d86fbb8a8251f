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
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

enum op_kind { OP_NOP, OP_READ, OP_KIND_COUNT };

static const char *const op_names[OP_KIND_COUNT] = {
    [OP_NOP] = "NOP",
    [OP_READ] = "READ",
};

struct op_stats {
  bool used;  // print a line even if a future scenario submits zero of it
  unsigned long long submitted;
  unsigned long long completed;
  unsigned long long forced_async;
  unsigned long long errors;
};

struct ctx {
  struct io_uring ring;
  struct io_uring_params params;
  int file_fd;  // -1 until a scenario's prepare step creates the cached file
  unsigned long count;
  uint64_t next_user_data;  // 1-based request index across the whole run
  uint64_t rng;
  unsigned long long submit_calls;  // io_uring_submit() calls that returned > 0
  unsigned long long sqes;
  struct op_stats ops[OP_KIND_COUNT];
};

struct scenario {
  const char *name;
  unsigned long default_count;
  const char *expect;  // finding tag uringscope must raise, "none" if healthy
  unsigned ring_flags;  // IORING_SETUP_* (sqpoll, defer taskrun, ... later)
  void (*prepare)(struct ctx *);  // optional; runs before READY
  void (*run)(struct ctx *);
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

/* ------------------------------------------------------------------ setup */

static void setup_ring(struct ctx *c, unsigned entries, unsigned flags) {
  memset(&c->params, 0, sizeof(c->params));
  c->params.flags = flags;
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

static const struct scenario scenarios[] = {
    {"clean", 1000, "none", 0, NULL, scenario_clean},
    {"clean-read", 1000, "none", 0, prepare_cached_file, scenario_clean_read},
    {"punt", 1000, "PUNT", 0, prepare_cached_file, scenario_punt},
    {"nobatch", 1000, "BATCH", 0, NULL, scenario_nobatch},
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
    printf("GROUND-TRUTH op=%s submitted=%llu completed=%llu forced_async=%llu errors=%llu\n",
           op_names[op], st->submitted, st->completed, st->forced_async, st->errors);
  }
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
  struct options o = {.wait_signal = false, .linger = 0, .entries = 64};
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
  c.count = o.count;
  c.next_user_data = 1;
  c.rng = 0x9e3779b97f4a7c15ull;

  setup_ring(&c, o.entries, o.scenario->ring_flags);
  if (o.scenario->prepare != NULL) o.scenario->prepare(&c);

  if (o.wait_signal) wait_for_go(&usr1);

  o.scenario->run(&c);
  report(&c, o.scenario);

  // The ring stays open while lingering so a -p attach still finds it.
  linger(o.linger);

  io_uring_queue_exit(&c.ring);
  if (c.file_fd >= 0 && close(c.file_fd) < 0) fail_errno("close");
  return 0;
}
