// SPDX-License-Identifier: MIT
// Memory that goes away under an in-flight request, the ground truth of --check's
// HAZARD-UAF and HAZARD-BUFREG: a page munmap()ed under a READ (hazard-unmap), the
// registered buffer unregistered under a READ_FIXED (hazard-bufreg); and the look-alike
// that must stay silent: a region unmapped only after its READs were reaped
// (check-clean-unmap). The helpers are in scenarios_hazards.c.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

// hazard-unmap: in flight this long before the munmap, and this long after it;
// hazard-bufreg: in flight this long before the unregister.
#define LIFETIME_HOLD_MS 20u
// hazard-bufreg: the pipe is fed this long after io_uring_unregister_buffers() starts;
// if the READ_FIXED has still not been reaped this long after that, the run fails.
#define BUFREG_WRITE_DELAY_MS 200u
#define BUFREG_WATCHDOG_MS 5000u
// check-clean-unmap maps COUNT pages.
#define CLEAN_UNMAP_MAX_PAGES 65536ul

/* -------------------------------------------------------- hazard-unmap */

static unsigned char *map_anon(size_t len) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail_errno("mmap");
  return p;
}

/*
 * A READ of CHUNK bytes from the empty pipe into a fresh anonymous page (faulted in
 * first), in flight for LIFETIME_HOLD_MS; then the page is munmap()ed, LIFETIME_HOLD_MS later
 * the pipe is fed, and the READ's CQE is reaped. Nothing maps memory in between, so
 * the address stays unmapped. Returns the READ's result; *left is what stayed in the
 * pipe (checked to be the rest of what was fed).
 */
static int unmap_under_read(struct ctx *c, int fds[2], unsigned *left) {
  unsigned char *page = map_anon(CHUNK);
  memset(page, 0, CHUNK);
  const uint64_t ud = c->next_user_data++;
  queue_read(c, fds[0], page, CHUNK, ud);
  submit_queued(c, 1);
  use_op(c, OP_READ)->submitted++;
  sleep_ms(LIFETIME_HOLD_MS);
  expect_pending(c, "READ on an empty pipe");
  if (munmap(page, CHUNK) < 0) fail_errno("munmap");
  sleep_ms(LIFETIME_HOLD_MS);
  pipe_feed(fds[1], ud, CHUNK);
  const int res = reap_expect(c, ud, OP_READ, ANY_RES).res;
  *left = pipe_drain(fds[0], ud);
  if (res > (int)CHUNK || (unsigned)(res > 0 ? res : 0) + *left != CHUNK)
    fail("READ into unmapped memory returned %d and left %u of %u bytes in the pipe", res, *left,
         CHUNK);
  return res;
}

void scenario_hazard_unmap(struct ctx *c) {
  int fds[2];
  open_pipe(fds);
  int first = 0;
  unsigned first_left = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    unsigned left = 0;
    const int res = unmap_under_read(c, fds, &left);
    if (i == 0) {
      first = res;
      first_left = left;
    } else if (res != first || left != first_left) {
      fail("unmap %lu: READ returned %d (left %u), the first returned %d (left %u)", i + 1, res,
           left, first, first_left);
    }
  }
  close_pipe(fds);
  note(c, "GROUND-TRUTH hazard unmaps=%lu res=%d len=%u left_in_pipe=%u\n", c->count, first,
       CHUNK, first_left);
}

/* ------------------------------------------------------- hazard-bufreg */

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
  static const char stuck[] = "inject: hazard-bufreg: READ_FIXED not reaped 5 s after the pipe "
                              "was fed (io_uring_unregister_buffers stuck?)\n";
  static const char failed[] = "inject: hazard-bufreg: write to pipe failed\n";
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

struct bufreg_result {
  int unregister_ret;
  int before_cqe;  // 1: io_uring_unregister_buffers() returned with the CQ still empty
  int res;
  int landed;  // 1: the READ_FIXED's bytes are in the (former) registered buffer
  uint64_t unregister_ns;
};

/*
 * One fixed buffer registered, a READ_FIXED from the empty pipe into it (it arms poll),
 * then io_uring_unregister_buffers() while it is in flight, with the feeder thread
 * started just before. Whatever the kernel does (return at once, or wait for the
 * request), the READ_FIXED completes once the pipe is fed.
 */
static struct bufreg_result unregister_under_read(struct ctx *c, int fds[2]) {
  struct bufreg_result r = {0, 0, 0, 0, 0};
  unsigned char *buf = alloc_blocks(1);
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
  sleep_ms(LIFETIME_HOLD_MS);
  expect_pending(c, "READ_FIXED on an empty pipe");

  struct bufreg_feeder f = {fds[1], ud, false};
  pthread_t th;
  int err = pthread_create(&th, NULL, bufreg_feeder_thread, &f);
  if (err != 0) fail("pthread_create: %s", strerror(err));
  const uint64_t t0 = now_ns();
  r.unregister_ret = io_uring_unregister_buffers(&c->ring);
  r.unregister_ns = now_ns() - t0;
  r.before_cqe = io_uring_cq_ready(&c->ring) == 0;
  r.res = reap_expect(c, ud, OP_READ_FIXED, ANY_RES).res;
  atomic_store(&f.reaped, true);
  err = pthread_join(th, NULL);
  if (err != 0) fail("pthread_join: %s", strerror(err));
  r.landed = r.res == (int)CHUNK && slice_matches(buf, CHUNK, ud);
  const unsigned left = pipe_drain(fds[0], ud);
  if ((unsigned)(r.res > 0 ? r.res : 0) + left != CHUNK)
    fail("READ_FIXED returned %d and left %u of %u bytes in the pipe", r.res, left, CHUNK);
  if (r.unregister_ret < 0 && (ret = io_uring_unregister_buffers(&c->ring)) < 0)
    fail_uring("io_uring_unregister_buffers (after the READ_FIXED)", ret);
  free(buf);
  return r;
}

void scenario_hazard_bufreg(struct ctx *c) {
  int fds[2];
  open_pipe(fds);
  struct bufreg_result first = {0, 0, 0, 0, 0};
  uint64_t max_ns = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    const struct bufreg_result r = unregister_under_read(c, fds);
    if (i == 0) first = r;
    if (r.unregister_ret != first.unregister_ret || r.before_cqe != first.before_cqe ||
        r.res != first.res || r.landed != first.landed)
      fail("bufreg %lu: unregister %d (before CQE %d), READ_FIXED %d (landed %d); the first: "
           "%d (%d), %d (%d)", i + 1, r.unregister_ret, r.before_cqe, r.res, r.landed,
           first.unregister_ret, first.before_cqe, first.res, first.landed);
    if (r.unregister_ns > max_ns) max_ns = r.unregister_ns;
  }
  close_pipe(fds);
  note(c, "GROUND-TRUTH hazard bufreg=%lu unregister_ret=%d unregister_before_cqe=%d "
       "unregister_us=%llu write_delay_ms=%u res=%d landed=%d\n", c->count, first.unregister_ret,
       first.before_cqe, (unsigned long long)(max_ns / 1000u), BUFREG_WRITE_DELAY_MS, first.res,
       first.landed);
}

/*
 * COUNT pages mapped at once, one READ of a random block of the cached file into each
 * (16 per submit), all reaped and checked; only then is the region munmap()ed.
 */
void scenario_check_clean_unmap(struct ctx *c) {
  if (c->count > CLEAN_UNMAP_MAX_PAGES)
    bad_args("check-clean-unmap: COUNT %lu, at most %lu", c->count, CLEAN_UNMAP_MAX_PAGES);
  const size_t len = c->count * CHUNK;
  unsigned char *region = map_anon(len);
  struct op_stats *st = use_op(c, OP_READ);
  uint64_t blocks[16];
  bool seen[16];
  for (unsigned long done = 0; done < c->count;) {
    const unsigned n = batch_size(c, 16, c->count - done);
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < n; i++) {
      blocks[i] = rng_next(&c->rng) % FILE_CHUNKS;
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_read(sqe, c->file_fd, region + (done + i) * CHUNK, CHUNK, blocks[i] * CHUNK);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
      seen[i] = false;
    }
    submit_queued(c, n);
    st->submitted += n;
    for (unsigned k = 0; k < n; k++) {
      struct cqe_copy q = reap(c);
      const unsigned i = batch_index(q.ud, first, n, seen);
      count_cqe(st, q.res, q.flags);
      if (q.res != (int)CHUNK || !block_matches(region + (done + i) * CHUNK, blocks[i]))
        fail("READ user_data=%llu: res=%d or wrong data", (unsigned long long)q.ud, q.res);
    }
    done += n;
  }
  if (io_uring_cq_ready(&c->ring) != 0) fail("a CQE is left after all READs were reaped");
  if (munmap(region, len) < 0) fail_errno("munmap");
  note_no_hazard(c);
  note(c, "GROUND-TRUTH clean_unmap reads=%lu munmaps=1 region_len=%zu addr=%#llx\n", c->count,
       len, (unsigned long long)(uintptr_t)region);
}
