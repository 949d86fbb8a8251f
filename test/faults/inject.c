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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

// Upper bounds keep every counter and user_data far from overflow and stop a
// typo from turning a test into an hour-long run.
#define MAX_COUNT 100000000ul
#define MAX_ENTRIES 32768u  // IORING_MAX_ENTRIES; larger fails with EINVAL
#define MAX_LINGER 86400.0

/* -------------------------------------------------------------- scenarios */

// Expected tags that uringscope does not produce yet (OVERFLOW, ERRORS) are
// named anyway: they say what the scenario is, and a future rule is tested
// against them.
static const struct scenario scenarios[] = {
    {"clean", 1000, "none", 0, 0, NULL, scenario_clean, 0, NULL},
    {"clean-read", 1000, "none", 0, 0, prepare_cached_file, scenario_clean_read, 0, NULL},
    {"punt", 1000, "PUNT", 0, 0, prepare_cached_file, scenario_punt, 0, NULL},
    {"nobatch", 1000, "BATCH", 0, 0, NULL, scenario_nobatch, 0, NULL},
    {"multishot", 100, "none", 0, 0, prepare_pipe, scenario_multishot, 0, NULL},
    {"link", 100, "none", 0, 0, NULL, scenario_link, 0, NULL},
    // 8 entries: sq 8, cq 16, so the default 64 NOPs overflow 48 CQEs.
    {"overflow", 64, "OVERFLOW", 0, 8, NULL, scenario_overflow, 0, NULL},
    {"cqe-skip", 1000, "none", 0, 0, NULL, scenario_cqe_skip, 0, NULL},
    {"badop", 100, "ERRORS", 0, 0, NULL, scenario_badop, 0, NULL},
    {"sqpoll", 1000, "none", IORING_SETUP_SQPOLL, 0, NULL, scenario_sqpoll, 0, NULL},
    {"inflight", 100, "none", 0, 0, prepare_inflight, scenario_inflight, 0, NULL},
    {"errors", 100, "ERRORS", 0, 0, NULL, scenario_errors, 0, NULL},
    {"leak", 4, "LEAK", 0, 0, prepare_fifo, scenario_leak, 0, NULL},
    {"worker-storm", 64, "WORKERS", 0, 0, prepare_fifo, scenario_worker_storm, 0, NULL},
    {"sqpoll-stall", 50, "SQPOLL", IORING_SETUP_SQPOLL, 0, NULL, scenario_sqpoll_stall,
     SQPOLL_STALL_IDLE_MS, NULL},
    {"sqpoll-sparse", 12, "SQPOLL", IORING_SETUP_SQPOLL, 0, NULL, scenario_sqpoll_sparse,
     SQPOLL_SPARSE_IDLE_MS, NULL},
    {"pollretry-socket", 100, "POLL-RETRY", 0, 0, prepare_socketpair, scenario_pollretry_socket,
     0, NULL},
    {"pollretry-file", 20, "POLL-RETRY", 0, 0, prepare_trace_instance, scenario_pollretry_file, 0, NULL},
    {"short-write", 100, "SHORT-WRITE", 0, 0, prepare_empty_file, scenario_short_write, 0, NULL},
    {"defer-tw", 5, "DEFER-TW", IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0,
     prepare_pipe, scenario_defer_tw, 0, NULL},
    {"clean-socket", 1000, "none", 0, 0, prepare_socketpair, scenario_clean_socket, 0, NULL},
    {"fork", 200, "none", 0, 0, NULL, scenario_fork, 0, NULL},
    {"zc-send", 1000, "none", 0, 0, prepare_tcp_loopback, scenario_zc_send, 0, NULL},
    {"shared-udata", 50, "none", 0, 0, prepare_pipe, scenario_shared_udata, 0, NULL},
    {"multishot-storm", 100, "none", 0, 0, prepare_pipe, scenario_multishot_storm, 0, NULL},
    // CQSIZE: the CQ is SMALL_CQ_ENTRIES (16) whatever --entries says; sq 16 by default.
    {"timeout-flood", 10000, "OVERFLOW", IORING_SETUP_CQSIZE, SMALL_CQ_ENTRIES, NULL,
     scenario_timeout_flood, 0, NULL},
    {"leak-growing", 200, "LEAK", 0, 0, NULL, scenario_leak_growing, 0, NULL},
    // The same set growing through a 2 s window, one READ every 2000 / COUNT ms.
    {"leak-growing-slow", 15, "LEAK", 0, 0, NULL, scenario_leak_growing_slow, 0, NULL},
    {"steady-recv", 100, "none", 0, 0, prepare_steady_sockets, scenario_steady_recv, 0, NULL},
    {"ring-churn", 50, "none", 0, 0, NULL, scenario_ring_churn, 0, NULL},
    {"reap-lag", 30, "REAP-LAG", 0, 0, NULL, scenario_reap_lag, 0, NULL},
    {"reap-lag-raw", 30, "REAP-LAG", 0, 0, NULL, scenario_reap_lag_raw, 0, NULL},
    // COUNT is the hold in ms here: one CQE held that long, REAP-LAG on its own.
    {"reap-hold", 2000, "REAP-LAG", 0, 0, NULL, scenario_reap_hold, 0, NULL},
    {"reap-lag-wait", 30, "REAP-LAG", 0, 0, NULL, scenario_reap_lag_wait, 0, NULL},
    // COUNT batches of 8 NOPs, reaped one by one 50 ms apart with inline peeks.
    {"reap-batch", 5, "REAP-LAG", 0, 0, NULL, scenario_reap_batch, 0, NULL},
    // COUNT is the hold in ms: one CQE left unreaped that long, then the program exits.
    {"reap-exit", 800, "REAP-LAG", 0, 0, NULL, scenario_reap_exit, 0, NULL},
    // An SQPOLL thread asleep while SQEs wait; its 2 ms idle as in sqpoll-stall.
    {"sq-wait", 30, "SQ-WAIT", IORING_SETUP_SQPOLL, 0, NULL, scenario_sq_wait,
     SQPOLL_STALL_IDLE_MS, NULL},
    // --check: in-flight requests whose memory is not theirs alone, and safe look-alikes.
    {"hazard-overlap", 4, "HAZARD", 0, 0, NULL, scenario_hazard_overlap, 0, NULL},
    {"hazard-vec-overlap", 1, "HAZARD", 0, 0, NULL, scenario_hazard_vec_overlap, 0, NULL},
    {"hazard-unmap", 1, "HAZARD-UAF", 0, 0, NULL, scenario_hazard_unmap, 0, NULL},
    {"hazard-write-read", 2, "HAZARD", 0, 0, NULL, scenario_hazard_write_read, 0, NULL},
    {"hazard-recvmsg", 2, "HAZARD", 0, 0, NULL, scenario_hazard_recvmsg, 0, NULL},
    {"hazard-mremap", 1, "HAZARD-UAF", 0, 0, NULL, scenario_hazard_mremap, 0, NULL},
    {"hazard-bufreg", 1, "HAZARD-BUFREG", 0, 0, NULL, scenario_hazard_bufreg, 0, NULL},
    {"hazard-bufupdate", 1, "HAZARD-BUFREG", 0, 0, NULL, scenario_hazard_bufupdate, 0, NULL},
    {"check-clean-reuse", 100, "none", 0, 0, prepare_cached_file, scenario_check_clean_reuse, 0, NULL},
    {"check-clean-unmap", 20, "none", 0, 0, prepare_cached_file, scenario_check_clean_unmap, 0, NULL},
    {"check-clean-split", 100, "none", 0, 0, NULL, scenario_check_clean_split, 0, NULL},
    // Per-file attribution: named files, a fixed file, sockets and a pipe, each counted.
    {"files", 20, "none", 0, 0, prepare_files, scenario_files, 0, NULL},
    {"hostile-names", 4, "PUNT", 0, 0, prepare_hostile_files, scenario_hostile_names, 0,
     hostile_rename},
};

static const struct scenario *find_scenario(const char *name) {
  for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
    if (strcmp(scenarios[i].name, name) == 0) return &scenarios[i];
  return NULL;
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

static void usage_line(FILE *out) {
  fprintf(out,
          "usage: %s [--wait-signal] [--linger SECONDS] [--entries N] "
          "SCENARIO [COUNT]\n",
          progname);
}

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

  if (o.scenario->before_ring != NULL) o.scenario->before_ring();
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
