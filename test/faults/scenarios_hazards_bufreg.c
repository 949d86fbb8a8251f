// SPDX-License-Identifier: MIT
// Registered buffers changed under an in-flight READ_FIXED, the ground truth of --check's
// HAZARD-BUFREG: all of them unregistered (hazard-bufreg), or the one in use replaced by
// a buffer update (hazard-bufupdate). The helpers are in scenarios_hazards.c.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

// In flight this long before the change.
#define BUFREG_HOLD_MS 20u
// The pipe is fed this long after the register call starts; if the READ_FIXED has still
// not been reaped this long after that, the run fails.
#define BUFREG_WRITE_DELAY_MS 200u
#define BUFREG_WATCHDOG_MS 5000u

struct bufreg_feeder {
  int fd;
  uint64_t block;
  atomic_bool reaped;  // set by the main thread once the READ_FIXED's CQE is in
};

// Feeds the pipe BUFREG_WRITE_DELAY_MS after it starts, so an unregister that waits for
// the READ_FIXED cannot wait forever; then watches that the main thread gets its CQE.
static void *bufreg_feeder_thread(void *arg) {
  struct bufreg_feeder *f = arg;
  sleep_ms(BUFREG_WRITE_DELAY_MS);
  unsigned char pattern[CHUNK];
  fill_block(pattern, f->block);
  ssize_t w;
  do {
    w = write(f->fd, pattern, CHUNK);
  } while (w < 0 && errno == EINTR);
  static const char stuck[] = "inject: READ_FIXED not reaped 5 s after the pipe was fed "
                              "(a register call stuck?)\n";
  static const char failed[] = "inject: write to pipe failed\n";
  if (w != (ssize_t)CHUNK) {
    (void)!write(STDERR_FILENO, failed, sizeof(failed) - 1);
    _exit(1);
  }
  for (unsigned ms = 0; !atomic_load(&f->reaped); ms += 5) {
    if (ms >= BUFREG_WATCHDOG_MS) {
      (void)!write(STDERR_FILENO, stuck, sizeof(stuck) - 1);
      _exit(1);
    }
    sleep_ms(5);
  }
  return NULL;
}

// What happens to buffer 0 while the READ_FIXED that uses it is in flight.
enum buffer_change { UNREGISTER_ALL, REPLACE_BUFFER_0 };

struct bufreg_result {
  int change_ret;
  int before_cqe;  // 1: the register call returned with the CQ still empty
  int res;
  int landed;  // 1: the READ_FIXED's bytes are in the buffer it was submitted with
  uint64_t change_ns;
};

// io_uring_unregister_buffers(), or buffer 0 replaced by `spare` through
// IORING_REGISTER_BUFFERS_UPDATE.
static int change_buffers(struct ctx *c, enum buffer_change how, unsigned char *spare) {
  if (how == UNREGISTER_ALL) return io_uring_unregister_buffers(&c->ring);
  struct iovec iov = {spare, CHUNK};
  __u64 tag = 0;
  const int ret = io_uring_register_buffers_update_tag(&c->ring, 0, &iov, &tag, 1);
  return ret == 1 ? 0 : (ret < 0 ? ret : -EIO);
}

/*
 * One fixed buffer registered, a READ_FIXED from the empty pipe into it (it arms poll),
 * then the change while it is in flight, with the feeder thread started just before.
 * Whatever the kernel does (return at once, or wait for the request), the READ_FIXED
 * completes once the pipe is fed.
 */
static struct bufreg_result change_under_read(struct ctx *c, int fds[2], enum buffer_change how) {
  struct bufreg_result r = {0, 0, 0, 0, 0};
  unsigned char *buf = alloc_blocks(1);
  unsigned char *spare = alloc_blocks(1);
  memset(buf, 0, CHUNK);
  struct iovec iov = {buf, CHUNK};
  int ret = io_uring_register_buffers(&c->ring, &iov, 1);
  if (ret < 0) fail_uring("io_uring_register_buffers", ret);
  const uint64_t ud = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_read_fixed(sqe, fds[0], buf, CHUNK, 0, 0);
  io_uring_sqe_set_data64(sqe, ud);
  submit_queued(c, 1);
  use_op(c, OP_READ_FIXED)->submitted++;
  sleep_ms(BUFREG_HOLD_MS);
  expect_pending(c, "READ_FIXED on an empty pipe");

  struct bufreg_feeder f = {fds[1], ud, false};
  pthread_t th;
  int err = pthread_create(&th, NULL, bufreg_feeder_thread, &f);
  if (err != 0) fail("pthread_create: %s", strerror(err));
  const uint64_t t0 = now_ns();
  r.change_ret = change_buffers(c, how, spare);
  r.change_ns = now_ns() - t0;
  r.before_cqe = io_uring_cq_ready(&c->ring) == 0;
  r.res = reap_expect(c, ud, OP_READ_FIXED, ANY_RES).res;
  atomic_store(&f.reaped, true);
  err = pthread_join(th, NULL);
  if (err != 0) fail("pthread_join: %s", strerror(err));
  r.landed = r.res == (int)CHUNK && slice_matches(buf, CHUNK, ud);
  const unsigned left = pipe_drain(fds[0], ud);
  if ((unsigned)(r.res > 0 ? r.res : 0) + left != CHUNK)
    fail("READ_FIXED returned %d and left %u of %u bytes in the pipe", r.res, left, CHUNK);
  if ((how == REPLACE_BUFFER_0 || r.change_ret < 0) &&
      (ret = io_uring_unregister_buffers(&c->ring)) < 0)
    fail_uring("io_uring_unregister_buffers (after the READ_FIXED)", ret);
  free(spare);
  free(buf);
  return r;
}

// COUNT changes of one kind, each under its own READ_FIXED; every one must behave as the
// first did, which the GROUND-TRUTH line records.
static void changes_under_reads(struct ctx *c, enum buffer_change how) {
  int fds[2];
  open_pipe(fds);
  struct bufreg_result first = {0, 0, 0, 0, 0};
  uint64_t max_ns = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    const struct bufreg_result r = change_under_read(c, fds, how);
    if (i == 0) first = r;
    if (r.change_ret != first.change_ret || r.before_cqe != first.before_cqe ||
        r.res != first.res || r.landed != first.landed)
      fail("change %lu: register call %d (before CQE %d), READ_FIXED %d (landed %d); the "
           "first: %d (%d), %d (%d)", i + 1, r.change_ret, r.before_cqe, r.res, r.landed,
           first.change_ret, first.before_cqe, first.res, first.landed);
    if (r.change_ns > max_ns) max_ns = r.change_ns;
  }
  close_pipe(fds);
  note(c, "GROUND-TRUTH hazard bufreg=%lu call=%s ret=%d before_cqe=%d call_us=%llu "
       "write_delay_ms=%u res=%d landed=%d\n", c->count,
       how == UNREGISTER_ALL ? "unregister" : "update", first.change_ret, first.before_cqe,
       (unsigned long long)(max_ns / 1000u), BUFREG_WRITE_DELAY_MS, first.res, first.landed);
}

void scenario_hazard_bufreg(struct ctx *c) { changes_under_reads(c, UNREGISTER_ALL); }

// The replaced buffer stays the request's until it completes (the kernel keeps it pinned),
// but the program has said it is done with it: the same hazard, by another call.
void scenario_hazard_bufupdate(struct ctx *c) { changes_under_reads(c, REPLACE_BUFFER_0); }
