// SPDX-License-Identifier: MIT
// FIFO opens parked in io-wq workers: leak (never reaped) and worker-storm (one
// worker per request, then all completed).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject.h"

/* -------------------------------------------- FIFO opens stuck in io-wq */

// Scenarios that park one io-wq thread per request refuse absurd counts.
static void check_thread_count(const struct ctx *c, const char *scenario) {
  if (c->count > MAX_THREAD_COUNT)
    bad_args("%s: COUNT %lu is above %lu (one io-wq thread per request)", scenario, c->count,
             MAX_THREAD_COUNT);
}

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
void prepare_fifo(struct ctx *c) {
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
void scenario_leak(struct ctx *c) {
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
void scenario_worker_storm(struct ctx *c) {
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
