// SPDX-License-Identifier: MIT
// The benchmark's load generator: io_uring rings kept at a fixed number of requests in
// flight, in one of several request shapes (options.c's usage()). Its last line on
// stdout is machine-readable (RESULT key=value ...) so that bench/run.sh and
// bench/scaling.sh can pair runs; the human line before it is for people.
//
// It measures only its own timed loop: the file is created and warmed, the rings set up
// and (with --wait-signal) the tracer attached before the clock starts.
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "loadgen.h"

volatile sig_atomic_t stop_requested;

static void on_stop(int sig) {
  (void)sig;
  stop_requested = 1;
}

void die(const char *fmt, ...) {
  va_list ap;
  fputs("loadgen: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// CPU time of the whole process: RUSAGE_SELF sums every thread of the thread group
// (ended ones included), and io-wq workers are threads of this process, so a tracer's
// BPF time spent in them (or in this thread) shows up here.
uint64_t cpu_ns(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ((uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)) * 1000000000ull +
         ((uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) * 1000ull;
}

void wait_for_go(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  fprintf(stderr, "READY pid=%d\n", (int)getpid());
  int sig = 0;
  if (sigwait(&set, &sig) != 0) die("sigwait failed");
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) die("pin to CPU %d: %s", cpu, strerror(errno));
}

// A ring is a file: a thousand rings need more descriptors than the usual soft limit.
static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static void print_result(const struct options *o, const struct result *r) {
  const double secs = (double)r->ns / 1e9;
  const double rate = secs > 0 ? (double)r->ops / secs : 0;
  printf("%s: %.0f ops/s (%llu ops in %.3f s, depth %u, batch %u, %u ring(s) x %u thread(s), "
         "%u kind(s), %.0f CPU ns/op)\n",
         mode_names[o->mode], rate, (unsigned long long)r->ops, secs, o->depth, o->batch,
         o->rings, o->threads, o->kinds, r->ops ? (double)r->cpu / (double)r->ops : 0.0);
  // New keys go at the end: drivers read the old ones by name, older ones by position.
  printf("RESULT mode=%s depth=%u batch=%u ops=%llu seconds=%.6f ops_per_sec=%.1f cpu_ns=%llu "
         "rings=%u threads=%u kinds=%u iowq_cpu=%d\n",
         mode_names[o->mode], o->depth, o->batch, (unsigned long long)r->ops, secs, rate,
         (unsigned long long)r->cpu, o->rings, o->threads, o->kinds, o->iowq_cpu);
}

int main(int argc, char **argv) {
  struct options o = parse_options(argc, argv);
  // SIGUSR1 is blocked before anything else (and so in every thread), so a driver that
  // sends it as soon as it sees READY cannot lose it.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  raise_fd_limit();
  if (o.cpu >= 0) pin(o.cpu);

  struct result r;
  switch (o.mode) {
    case MODE_CTXSW: r = run_ctxsw(&o); break;
    case MODE_SYSCALL: r = run_syscall(&o); break;
    case MODE_HOLD: r = run_hold(&o); break;
    case MODE_CHURN: r = run_churn(&o); break;
    default: r = run_uring(&o); break;
  }
  print_result(&o, &r);
  return 0;
}
