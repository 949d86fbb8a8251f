// SPDX-License-Identifier: MIT
// The benchmark's load generator: one io_uring, one thread, a fixed number of requests
// in flight, one of four request shapes (see usage()). Its last line on stdout is
// machine-readable (RESULT key=value ...) so that bench/run.sh can pair runs; the
// human line before it is for people.
//
// It measures only its own timed loop: the file is created and warmed, the ring set
// up and (with --wait-signal) the tracer attached before the clock starts.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096u

enum mode { MODE_NOP, MODE_READ, MODE_READ_ASYNC, MODE_READ_DIRECT, MODE_CTXSW, MODE_SYSCALL };

static const char *const mode_names[] = {"nop",   "read",   "read-async", "read-direct",
                                         "ctxsw", "syscall"};

struct options {
  enum mode mode;
  unsigned depth;      // requests in flight
  unsigned batch;      // SQEs queued per io_uring_enter
  double seconds;      // timed-loop length (0 = use ops)
  uint64_t ops;        // stop after this many completions (0 = use seconds)
  const char *path;    // data file for the read modes
  uint64_t file_bytes; // its size
  int cpu;             // pin to this CPU (-1 = no pinning)
  bool wait_signal;    // wait for SIGUSR1 before the timed loop
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig) {
  (void)sig;
  stop_requested = 1;
}

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...) {
  va_list ap;
  fputs("loadgen: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static void usage(FILE *out) {
  fputs(
      "usage: loadgen [options] MODE\n"
      "  MODE: nop          IORING_OP_NOP storm (the tracer's per-request cost, nothing else)\n"
      "        read         4 KiB random reads from a file in the page cache (inline)\n"
      "        read-async   the same with IOSQE_ASYNC: every request punts to io-wq\n"
      "        read-direct  4 KiB random O_DIRECT reads (device-bound)\n"
      "        ctxsw        no io_uring: two processes ping-pong a byte over pipes, a\n"
      "                     sched_switch-heavy side load\n"
      "        syscall      no io_uring: getppid() in a loop, what a tracer costs every\n"
      "                     other syscall on the machine\n"
      "  -q, --depth N        requests in flight (default 32)\n"
      "  -b, --batch N        SQEs per io_uring_enter (default 8, at most depth)\n"
      "  -t, --seconds S      run the timed loop for S seconds (default 5)\n"
      "  -n, --ops N          stop after N completions instead\n"
      "  -f, --file PATH      data file (default /var/tmp/uringscope-bench.dat; must not be\n"
      "                       on tmpfs for read-direct)\n"
      "  -s, --size MIB       data file size in MiB (default 256)\n"
      "  -c, --cpu N          pin to CPU N (default: not pinned)\n"
      "  -w, --wait-signal    print 'READY pid=N' on stderr, then wait for SIGUSR1\n"
      "Last line on stdout: RESULT mode= depth= batch= ops= seconds= ops_per_sec= cpu_ns=\n",
      out);
}

static uint64_t parse_u64(const char *what, const char *text) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text || *end) die("bad %s: %s", what, text);
  return v;
}

static struct options parse(int argc, char **argv) {
  static const struct option longs[] = {
      {"depth", required_argument, NULL, 'q'}, {"batch", required_argument, NULL, 'b'},
      {"seconds", required_argument, NULL, 't'}, {"ops", required_argument, NULL, 'n'},
      {"file", required_argument, NULL, 'f'}, {"size", required_argument, NULL, 's'},
      {"cpu", required_argument, NULL, 'c'}, {"wait-signal", no_argument, NULL, 'w'},
      {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  struct options o = {.depth = 32, .batch = 8, .seconds = 5, .path = "/var/tmp/uringscope-bench.dat",
                      .file_bytes = 256ull << 20, .cpu = -1};
  int c;
  while ((c = getopt_long(argc, argv, "q:b:t:n:f:s:c:wh", longs, NULL)) != -1) {
    switch (c) {
      case 'q': o.depth = (unsigned)parse_u64("depth", optarg); break;
      case 'b': o.batch = (unsigned)parse_u64("batch", optarg); break;
      case 't': {
        char *end = NULL;
        o.seconds = strtod(optarg, &end);
        if (end == optarg || *end || o.seconds <= 0) die("bad seconds: %s", optarg);
        break;
      }
      case 'n': o.ops = parse_u64("ops", optarg); o.seconds = 0; break;
      case 'f': o.path = optarg; break;
      case 's': o.file_bytes = parse_u64("size", optarg) << 20; break;
      case 'c': o.cpu = (int)parse_u64("cpu", optarg); break;
      case 'w': o.wait_signal = true; break;
      case 'h': usage(stdout); exit(0);
      default: usage(stderr); exit(2);
    }
  }
  if (optind + 1 != argc) {
    usage(stderr);
    exit(2);
  }
  bool known = false;
  for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; ++i) {
    if (strcmp(argv[optind], mode_names[i]) == 0) {
      o.mode = (enum mode)i;
      known = true;
    }
  }
  if (!known) die("unknown mode %s", argv[optind]);
  if (o.depth == 0 || o.depth > 4096) die("depth must be 1..4096");
  if (o.batch == 0) die("batch must be at least 1");
  if (o.batch > o.depth) o.batch = o.depth;
  if (o.file_bytes < BLOCK * 16) die("file too small");
  return o;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// CPU time of the whole process: RUSAGE_SELF sums every thread of the thread group,
// and io-wq workers are threads of this process, so a tracer's BPF time spent in them
// (or in this thread) shows up here.
static uint64_t cpu_ns(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ((uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)) * 1000000000ull +
         ((uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) * 1000ull;
}

// xorshift64*: offsets must not be sequential (readahead would hide the per-request
// cost), and the generator must cost next to nothing.
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

// Creates the file with real data (a sparse file would let O_DIRECT reads of holes
// skip the device), or reuses it when it already has the size.
static void prepare_file(const struct options *o) {
  struct stat st;
  if (stat(o->path, &st) == 0 && (uint64_t)st.st_size == o->file_bytes && st.st_blocks * 512 >= (off_t)o->file_bytes)
    return;
  int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("create %s: %s", o->path, strerror(errno));
  static char chunk[1 << 20];
  for (size_t i = 0; i < sizeof chunk; ++i) chunk[i] = (char)(i * 131 + 7);
  for (uint64_t done = 0; done < o->file_bytes; done += sizeof chunk) {
    memcpy(chunk, &done, sizeof done);  // every MiB differs: no dedup anywhere below
    size_t n = o->file_bytes - done < sizeof chunk ? (size_t)(o->file_bytes - done) : sizeof chunk;
    if (write(fd, chunk, n) != (ssize_t)n) die("write %s: %s", o->path, strerror(errno));
  }
  if (fsync(fd) != 0) die("fsync %s: %s", o->path, strerror(errno));
  close(fd);
}

// Reads the whole file once so that `read` requests all hit the page cache.
static void warm_page_cache(const struct options *o, int fd) {
  static char chunk[1 << 20];
  for (uint64_t off = 0; off < o->file_bytes; off += sizeof chunk) {
    if (pread(fd, chunk, sizeof chunk, (off_t)off) < 0) die("pread: %s", strerror(errno));
  }
}

static void wait_for_go(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  fprintf(stderr, "READY pid=%d\n", (int)getpid());
  int sig = 0;
  if (sigwait(&set, &sig) != 0) die("sigwait failed");
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) die("pin to CPU %d: %s", cpu, strerror(errno));
}

static void prep_one(const struct options *o, struct io_uring *ring, int fd, char *bufs,
                     unsigned slot) {
  struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
  if (!sqe) die("submission queue full");  // depth <= SQ size, so this is a bug
  if (o->mode == MODE_NOP) {
    io_uring_prep_nop(sqe);
  } else {
    uint64_t off = (rng_next() % (o->file_bytes / BLOCK)) * BLOCK;
    io_uring_prep_read(sqe, fd, bufs + (size_t)slot * BLOCK, BLOCK, off);
    if (o->mode == MODE_READ_ASYNC) sqe->flags |= IOSQE_ASYNC;
  }
  io_uring_sqe_set_data64(sqe, slot);
}

struct result {
  uint64_t ops;
  uint64_t ns;
  uint64_t cpu;
};

static struct result run_uring(const struct options *o) {
  int fd = -1;
  if (o->mode != MODE_NOP) {
    prepare_file(o);
    fd = open(o->path, O_RDONLY | (o->mode == MODE_READ_DIRECT ? O_DIRECT : 0));
    if (fd < 0) die("open %s: %s", o->path, strerror(errno));
    if (o->mode != MODE_READ_DIRECT) warm_page_cache(o, fd);
  }
  // O_DIRECT needs the buffer, offset and length aligned to the logical block size;
  // page alignment covers every device.
  char *bufs = NULL;
  if (posix_memalign((void **)&bufs, BLOCK, (size_t)o->depth * BLOCK) != 0) die("out of memory");
  memset(bufs, 0, (size_t)o->depth * BLOCK);

  struct io_uring ring;
  int ret = io_uring_queue_init(o->depth, &ring, 0);
  if (ret < 0) die("io_uring_queue_init: %s", strerror(-ret));
  unsigned *free_slots = malloc(o->depth * sizeof *free_slots);
  if (!free_slots) die("out of memory");
  for (unsigned i = 0; i < o->depth; ++i) free_slots[i] = i;
  unsigned nfree = o->depth;

  if (o->wait_signal) wait_for_go();
  struct result r = {0};
  const uint64_t start = now_ns(), cpu_start = cpu_ns();
  const uint64_t deadline = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : UINT64_MAX;
  uint64_t submitted = 0;
  unsigned inflight = 0;
  bool draining = false;
  while (!draining || inflight) {
    if (!draining && (stop_requested || now_ns() >= deadline || (o->ops && submitted >= o->ops)))
      draining = true;
    unsigned queued = 0;
    while (!draining && nfree && queued < o->batch && (!o->ops || submitted + queued < o->ops)) {
      prep_one(o, &ring, fd, bufs, free_slots[--nfree]);
      ++queued;
    }
    // Wait for one completion only when the ring is full (or draining): with NOPs and
    // page-cache reads the CQEs are already there after submit.
    unsigned wait = (inflight + queued == o->depth || draining) && inflight + queued ? 1 : 0;
    ret = io_uring_submit_and_wait(&ring, wait);
    if (ret < 0 && ret != -EINTR) die("io_uring_submit_and_wait: %s", strerror(-ret));
    if (ret > 0) {
      submitted += (unsigned)ret;
      inflight += (unsigned)ret;
    }
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      if (cqe->res < 0) die("%s request failed: %s", mode_names[o->mode], strerror(-cqe->res));
      if (o->mode != MODE_NOP && cqe->res != (int)BLOCK) die("short read: %d", cqe->res);
      free_slots[nfree++] = (unsigned)io_uring_cqe_get_data64(cqe);
      ++seen;
    }
    io_uring_cq_advance(&ring, seen);
    inflight -= seen;
    r.ops += seen;
  }
  r.ns = now_ns() - start;
  r.cpu = cpu_ns() - cpu_start;
  io_uring_queue_exit(&ring);
  free(free_slots);
  free(bufs);
  if (fd >= 0) close(fd);
  return r;
}

// The side load: a byte bounces between two processes, so every hop is a blocking
// read and a wakeup, i.e. two context switches, on whichever CPUs the scheduler picks.
static struct result run_ctxsw(const struct options *o) {
  int ab[2], ba[2];
  if (pipe(ab) || pipe(ba)) die("pipe: %s", strerror(errno));
  pid_t child = fork();
  if (child < 0) die("fork: %s", strerror(errno));
  char byte = 0;
  if (child == 0) {
    // Ends with the parent however the parent ends: EOF once the parent's write end is
    // gone (so the child must not hold a copy of it), or the death signal.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    close(ab[1]);
    close(ba[0]);
    while (read(ab[0], &byte, 1) == 1) {
      if (write(ba[1], &byte, 1) != 1) break;
    }
    _exit(0);
  }
  close(ab[0]);
  close(ba[1]);
  if (o->wait_signal) wait_for_go();
  struct result r = {0};
  const uint64_t start = now_ns(), cpu_start = cpu_ns();
  const uint64_t deadline = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : UINT64_MAX;
  while (!stop_requested && (!o->ops || r.ops < o->ops)) {
    if ((r.ops & 255) == 0 && now_ns() >= deadline) break;
    if (write(ab[1], &byte, 1) != 1 || read(ba[0], &byte, 1) != 1) {
      if (errno == EINTR) continue;
      die("pipe ping-pong: %s", strerror(errno));
    }
    ++r.ops;
  }
  r.ns = now_ns() - start;
  r.cpu = cpu_ns() - cpu_start;
  close(ab[1]);
  waitpid(child, NULL, 0);
  return r;
}

// getppid() is about the cheapest real syscall: what it costs under a tracer is what
// the tracer adds to every syscall, e.g. by enabling a syscalls:* tracepoint (which
// sends every task's syscalls through the tracing slow path, not only io_uring_enter).
static struct result run_syscall(const struct options *o) {
  if (o->wait_signal) wait_for_go();
  struct result r = {0};
  const uint64_t start = now_ns(), cpu_start = cpu_ns();
  const uint64_t deadline = o->seconds > 0 ? start + (uint64_t)(o->seconds * 1e9) : UINT64_MAX;
  while (!stop_requested && (!o->ops || r.ops < o->ops)) {
    if ((r.ops & 1023) == 0 && now_ns() >= deadline) break;
    syscall(SYS_getppid);
    ++r.ops;
  }
  r.ns = now_ns() - start;
  r.cpu = cpu_ns() - cpu_start;
  return r;
}

int main(int argc, char **argv) {
  struct options o = parse(argc, argv);
  // SIGUSR1 is blocked before anything else, so a driver that sends it as soon as it
  // sees READY cannot lose it.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  if (o.cpu >= 0) pin(o.cpu);

  struct result r = o.mode == MODE_CTXSW     ? run_ctxsw(&o)
                    : o.mode == MODE_SYSCALL ? run_syscall(&o)
                                             : run_uring(&o);
  const double secs = (double)r.ns / 1e9;
  const double rate = secs > 0 ? (double)r.ops / secs : 0;
  printf("%s: %.0f ops/s (%llu ops in %.3f s, depth %u, batch %u, %.0f CPU ns/op)\n",
         mode_names[o.mode], rate, (unsigned long long)r.ops, secs, o.depth, o.batch,
         r.ops ? (double)r.cpu / (double)r.ops : 0.0);
  printf("RESULT mode=%s depth=%u batch=%u ops=%llu seconds=%.6f ops_per_sec=%.1f cpu_ns=%llu\n",
         mode_names[o.mode], o.depth, o.batch, (unsigned long long)r.ops, secs, rate,
         (unsigned long long)r.cpu);
  return 0;
}
