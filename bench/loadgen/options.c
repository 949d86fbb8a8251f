// SPDX-License-Identifier: MIT
// The command line: what each option means, and the limits that keep a run meaningful.
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen.h"

const char *const mode_names[MODE__COUNT] = {"nop",   "read",    "read-async", "read-direct",
                                             "ctxsw", "syscall", "hold",       "churn"};

static void usage(FILE *out) {
  fputs(
      "usage: loadgen [options] MODE\n"
      "  MODE: nop          IORING_OP_NOP storm (the tracer's per-request cost, nothing else);\n"
      "                     with -o, other cheap opcodes cycled with it\n"
      "        read         4 KiB random reads from a file in the page cache (inline)\n"
      "        read-async   the same with IOSQE_ASYNC: every request punts to io-wq\n"
      "        read-direct  4 KiB random O_DIRECT reads (device-bound)\n"
      "        ctxsw        no io_uring: two processes ping-pong a byte over pipes, a\n"
      "                     sched_switch-heavy side load\n"
      "        syscall      no io_uring: getppid() in a loop, what a tracer costs every\n"
      "                     other syscall on the machine\n"
      "        hold         -P processes each holding -r idle rings, until SIGINT/SIGTERM\n"
      "                     (READY on stderr once they all hold them): a busy box to attach to\n"
      "        churn        rings set up, given -b NOPs in one submit, reaped and torn down\n"
      "                     one after another; ops counts rings (what destroyed rings cost)\n"
      "  -q, --depth N        requests in flight per ring, and its SQ size (default 32, 1..4096)\n"
      "  -b, --batch N        SQEs per io_uring_enter (default 8, at most depth)\n"
      "  -r, --rings N        rings per thread, each with its own depth, visited in turn:\n"
      "                       a batch on one, then the next (default 1)\n"
      "  -j, --threads N      threads, each with its own rings (default 1)\n"
      "  -o, --kinds N        nop mode: cycle through N distinct opcodes, all completing\n"
      "                       inline (default 1; up to 8): NOP, READ of /dev/zero, WRITE to\n"
      "                       /dev/null, READV, WRITEV, READ_FIXED, WRITE_FIXED (64 bytes\n"
      "                       each), POLL_ADD on an eventfd that is always readable\n"
      "  -t, --seconds S      run the timed loop for S seconds (default 5)\n"
      "  -n, --ops N          stop after N completions (per thread) instead\n"
      "  -f, --file PATH      data file (default /var/tmp/uringscope-bench.dat; must not be\n"
      "                       on tmpfs for read-direct)\n"
      "  -s, --size MIB       data file size in MiB (default 256)\n"
      "  -c, --cpu N          pin to CPU N; thread i to CPU N+i (default: not pinned)\n"
      "      --pin-threads    pin thread i to CPU i (without -c)\n"
      "      --iowq-cpu N     run each thread's io-wq workers on CPU N only\n"
      "  -P, --processes N    hold mode: processes holding rings (default 1)\n"
      "  -w, --wait-signal    print 'READY pid=N' on stderr, then wait for SIGUSR1\n"
      "Last line on stdout: RESULT mode= depth= batch= ops= seconds= ops_per_sec= cpu_ns=\n"
      "rings= threads= kinds= iowq_cpu= (ops and rates over all threads)\n",
      out);
}

static uint64_t parse_u64(const char *what, const char *text) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text || *end) die("bad %s: %s", what, text);
  return v;
}

enum { OPT_PIN_THREADS = 256, OPT_IOWQ_CPU };

static void apply(struct options *o, int c, const char *arg) {
  switch (c) {
    case 'q': o->depth = (unsigned)parse_u64("depth", arg); break;
    case 'b': o->batch = (unsigned)parse_u64("batch", arg); break;
    case 'r': o->rings = (unsigned)parse_u64("rings", arg); break;
    case 'j': o->threads = (unsigned)parse_u64("threads", arg); break;
    case 'o': o->kinds = (unsigned)parse_u64("kinds", arg); break;
    case 'P': o->processes = (unsigned)parse_u64("processes", arg); break;
    case 't': {
      char *end = NULL;
      o->seconds = strtod(arg, &end);
      if (end == arg || *end || o->seconds <= 0) die("bad seconds: %s", arg);
      break;
    }
    case 'n': o->ops = parse_u64("ops", arg); o->seconds = 0; break;
    case 'f': o->path = arg; break;
    case 's': o->file_bytes = parse_u64("size", arg) << 20; break;
    case 'c': o->cpu = (int)parse_u64("cpu", arg); break;
    case 'w': o->wait_signal = true; break;
    case OPT_PIN_THREADS: o->pin_threads = true; break;
    case OPT_IOWQ_CPU: o->iowq_cpu = (int)parse_u64("io-wq CPU", arg); break;
    case 'h': usage(stdout); exit(0);
    default: usage(stderr); exit(2);
  }
}

static void check(struct options *o) {
  if (o->depth == 0 || o->depth > 4096) die("depth must be 1..4096");
  if (o->batch == 0) die("batch must be at least 1");
  if (o->batch > o->depth) o->batch = o->depth;
  if (o->rings == 0 || o->rings > 16384) die("rings must be 1..16384");
  if (o->threads == 0 || o->threads > 1024) die("threads must be 1..1024");
  if (o->processes == 0 || o->processes > 4096) die("processes must be 1..4096");
  if (o->kinds == 0 || o->kinds > MAX_KINDS) die("kinds must be 1..%u", MAX_KINDS);
  if (o->kinds > 1 && o->mode != MODE_NOP) die("-o is for the nop mode");
  if (o->processes > 1 && o->mode != MODE_HOLD) die("-P is for the hold mode");
  if (o->file_bytes < BLOCK * 16) die("file too small");
}

struct options parse_options(int argc, char **argv) {
  static const struct option longs[] = {
      {"depth", required_argument, NULL, 'q'},     {"batch", required_argument, NULL, 'b'},
      {"rings", required_argument, NULL, 'r'},     {"threads", required_argument, NULL, 'j'},
      {"kinds", required_argument, NULL, 'o'},     {"processes", required_argument, NULL, 'P'},
      {"seconds", required_argument, NULL, 't'},   {"ops", required_argument, NULL, 'n'},
      {"file", required_argument, NULL, 'f'},      {"size", required_argument, NULL, 's'},
      {"cpu", required_argument, NULL, 'c'},       {"wait-signal", no_argument, NULL, 'w'},
      {"pin-threads", no_argument, NULL, OPT_PIN_THREADS},
      {"iowq-cpu", required_argument, NULL, OPT_IOWQ_CPU},
      {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
  struct options o = {.depth = 32, .batch = 8, .seconds = 5, .path = "/var/tmp/uringscope-bench.dat",
                      .file_bytes = 256ull << 20, .cpu = -1, .rings = 1, .threads = 1, .kinds = 1,
                      .iowq_cpu = -1, .processes = 1};
  int c;
  while ((c = getopt_long(argc, argv, "q:b:r:j:o:P:t:n:f:s:c:wh", longs, NULL)) != -1)
    apply(&o, c, optarg);
  if (optind + 1 != argc) {
    usage(stderr);
    exit(2);
  }
  bool known = false;
  for (int i = 0; i < MODE__COUNT; ++i) {
    if (strcmp(argv[optind], mode_names[i]) == 0) {
      o.mode = (enum mode)i;
      known = true;
    }
  }
  if (!known) die("unknown mode %s", argv[optind]);
  check(&o);
  return o;
}
