// SPDX-License-Identifier: MIT
// Requests whose target memory is another in-flight request's too, the ground truth of
// --check's HAZARD: two reads into the same bytes at once (hazard-overlap,
// hazard-vec-overlap), a write from bytes a read is still filling (hazard-write-read),
// and the look-alikes that must stay silent: halves that only touch
// (check-clean-split), one buffer used by one request after another (check-clean-reuse).
// Also the helpers the hazard scenarios share (scenarios_hazards_lifetime.c uses them).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

// How long the requests of a hazard pair stay in flight together before data arrives.
#define HAZARD_HOLD_MS 100u
// hazard-overlap: the second READ starts this far into the first one's 4096 bytes.
#define OVERLAP_SHIFT 2048u
// hazard-vec-overlap: the READV's second iovec covers these bytes of the READ's buffer.
#define VEC_OFF 1024u
#define VEC_LEN 1024u
// hazard-write-read: the WRITE sends these bytes of the READ's buffer.
#define WRITE_OFF 1024u
#define WRITE_LEN 1024u
// One `pair` line each must fit the notes (about 56 bytes a line).
#define MAX_PAIRS 256ul

/* ------------------------------------------------------------ helpers */

// A pipe that nothing writes to until the scenario says: a READ on it arms poll and
// stays in flight.
void open_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) < 0) fail_errno("pipe2");
}

void close_pipe(int fds[2]) {
  if (close(fds[0]) < 0 || close(fds[1]) < 0) fail_errno("close");
}

// Every 8-byte word of a block's pattern is the same, so any 8-aligned slice of the
// data written for `block` matches the start of the pattern.
bool slice_matches(const unsigned char *p, size_t len, uint64_t block) {
  unsigned char pattern[CHUNK];
  fill_block(pattern, block);
  return memcmp(p, pattern, len) == 0;
}

// One write(2) of the first `len` (<= PIPE_BUF, so atomic) bytes of `block`'s pattern.
void pipe_feed(int wr, uint64_t block, size_t len) {
  unsigned char pattern[CHUNK];
  fill_block(pattern, block);
  ssize_t w;
  do {
    w = write(wr, pattern, len);
  } while (w < 0 && errno == EINTR);
  if (w < 0) fail_errno("write to pipe");
  if ((size_t)w != len) fail("write to pipe: wrote %zd of %zu bytes", w, len);
}

// Reads whatever the pipe holds (at most CHUNK bytes), checks it is `block`'s pattern
// and returns how much it was.
unsigned pipe_drain(int rd, uint64_t block) {
  int avail = 0;
  if (ioctl(rd, FIONREAD, &avail) < 0) fail_errno("ioctl FIONREAD");
  if (avail < 0 || avail > (int)CHUNK)
    fail("pipe holds %d bytes, at most %u expected", avail, CHUNK);
  if (avail == 0) return 0;
  unsigned char got[CHUNK];
  ssize_t r;
  do {
    r = read(rd, got, (size_t)avail);
  } while (r < 0 && errno == EINTR);
  if (r != avail) fail("read from pipe: got %zd of %d bytes", r, avail);
  if (!slice_matches(got, (size_t)avail, block)) fail("the pipe held other data than was fed");
  return (unsigned)avail;
}

void queue_read(struct ctx *c, int fd, void *buf, unsigned len, uint64_t ud) {
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_read(sqe, fd, buf, len, 0);
  io_uring_sqe_set_data64(sqe, ud);
}

// Fails if any CQE was posted: the requests must still be in flight.
void expect_pending(struct ctx *c, const char *what) {
  if (io_uring_cq_ready(&c->ring) == 0) return;
  struct cqe_copy q = reap(c);
  fail("%s completed too early: user_data=%llu res=%d", what, (unsigned long long)q.ud, q.res);
}

// The next CQE, which must be request `ud`'s, counted for `op`; its result must be
// exactly `want`, unless that is ANY_RES.
struct cqe_copy reap_expect(struct ctx *c, uint64_t ud, enum op_kind op, int want) {
  struct cqe_copy q = reap(c);
  if (q.ud != ud)
    fail("unexpected completion user_data=%llu (waiting for %llu)", (unsigned long long)q.ud,
         (unsigned long long)ud);
  count_cqe(use_op(c, op), q.res, q.flags);
  if (want != ANY_RES && q.res != want)
    fail("%s user_data=%llu returned %d, expected %d", op_names[op], (unsigned long long)ud, q.res,
         want);
  return q;
}

void note_no_hazard(struct ctx *c) {
  note(c, "GROUND-TRUTH hazard overlaps=0 unmaps=0 bufreg=0\n");
}

/* ------------------------------------------------ hazard-overlap, split */

// The two pipes of a pair scenario, after checking the SQ holds a pair (one submit) and,
// if each pair gets a `pair` line, that COUNT is at most MAX_PAIRS.
static void open_pair_pipes(struct ctx *c, int pipes[2][2], bool pair_lines) {
  if (pair_lines && c->count > MAX_PAIRS)
    bad_args("COUNT %lu: at most %lu pairs (one pair line each)", c->count, MAX_PAIRS);
  if (c->params.sq_entries < 2)
    fail("a pair needs --entries >= 2 (sq_entries is %u)", c->params.sq_entries);
  open_pipe(pipes[0]);
  open_pipe(pipes[1]);
}

/*
 * Two READs of CHUNK bytes from two empty pipes, into a and b (a <= b <= a + CHUNK), in
 * one submit: both arm poll and are in flight together for hold_ms. Then pipe 0 is fed
 * and its READ reaped, then pipe 1's. The second READ's bytes land last, so the memory
 * must hold the first one's data up to b and the second one's from b on. Returns the
 * first READ's user_data (the second's is one more); each READ's data is the pattern
 * of its user_data.
 */
static uint64_t read_pair(struct ctx *c, int pipes[2][2], unsigned char *a, unsigned char *b,
                          unsigned hold_ms) {
  struct op_stats *st = use_op(c, OP_READ);
  const uint64_t ud = c->next_user_data;
  c->next_user_data += 2;
  queue_read(c, pipes[0][0], a, CHUNK, ud);
  queue_read(c, pipes[1][0], b, CHUNK, ud + 1);
  submit_queued(c, 2);
  st->submitted += 2;
  expect_pending(c, "READ on an empty pipe");
  if (hold_ms > 0) {
    sleep_ms(hold_ms);
    expect_pending(c, "READ on an empty pipe");
  }
  for (unsigned k = 0; k < 2; k++) {
    pipe_feed(pipes[k][1], ud + k, CHUNK);
    reap_expect(c, ud + k, OP_READ, (int)CHUNK);
  }
  if (!slice_matches(a, (size_t)(b - a), ud) || !slice_matches(b, CHUNK, ud + 1))
    fail("READs user_data=%llu,%llu left other data than was fed", (unsigned long long)ud,
         (unsigned long long)ud + 1);
  return ud;
}

/* COUNT pairs, each into its own 8 KiB: the second READ starts OVERLAP_SHIFT into the
 * first one's bytes, so 2048 bytes are the target of both. */
void scenario_hazard_overlap(struct ctx *c) {
  int pipes[2][2];
  open_pair_pipes(c, pipes, true);
  unsigned char *bufs = alloc_blocks(2 * (unsigned)c->count);
  note(c, "GROUND-TRUTH hazard overlaps=%lu len=%u overlap_len=%u\n", c->count, CHUNK,
       CHUNK - OVERLAP_SHIFT);
  // What uringscope --check --files must name each pair's READs by: READ a reads pipe 0.
  note(c, "GROUND-TRUTH hazard_files first=pipe:[%llu] second=pipe:[%llu]\n",
       fd_ino(pipes[0][0]), fd_ino(pipes[1][0]));
  for (unsigned long i = 0; i < c->count; i++) {
    unsigned char *a = bufs + 2 * i * CHUNK;
    const uint64_t ud = read_pair(c, pipes, a, a + OVERLAP_SHIFT, HAZARD_HOLD_MS);
    note(c, "GROUND-TRUTH pair user_data=%llu,%llu addr=%#llx\n", (unsigned long long)ud,
         (unsigned long long)ud + 1, (unsigned long long)(uintptr_t)a);
  }
  free(bufs);
  close_pipe(pipes[0]);
  close_pipe(pipes[1]);
}

/* COUNT pairs into one 8 KiB buffer: the halves touch at buf + 4096 and share no byte. */
void scenario_check_clean_split(struct ctx *c) {
  int pipes[2][2];
  open_pair_pipes(c, pipes, false);
  unsigned char *buf = alloc_blocks(2);
  for (unsigned long i = 0; i < c->count; i++) read_pair(c, pipes, buf, buf + CHUNK, 0);
  note_no_hazard(c);
  note(c, "GROUND-TRUTH split pairs=%lu len=%u gap=0 addr=%#llx\n", c->count, CHUNK,
       (unsigned long long)(uintptr_t)buf);
  free(buf);
  close_pipe(pipes[0]);
  close_pipe(pipes[1]);
}

/* ------------------------------------------------- hazard-vec-overlap */

/*
 * A READ of CHUNK bytes into buf (pipe 0) and a READV of two VEC_LEN iovecs (pipe 1),
 * the first into `side`, the second at buf + VEC_OFF, in one submit and in flight
 * together for HAZARD_HOLD_MS. The READ is fed and reaped first, then the READV, whose
 * bytes land last. Returns the READ's user_data (the READV's is one more).
 */
static uint64_t vec_pair(struct ctx *c, int pipes[2][2], unsigned char *buf, unsigned char *side) {
  struct iovec iov[2] = {{side, VEC_LEN}, {buf + VEC_OFF, VEC_LEN}};
  const uint64_t ud = c->next_user_data;
  c->next_user_data += 2;
  queue_read(c, pipes[0][0], buf, CHUNK, ud);
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_readv(sqe, pipes[1][0], iov, 2, 0);
  io_uring_sqe_set_data64(sqe, ud + 1);
  submit_queued(c, 2);
  use_op(c, OP_READ)->submitted++;
  use_op(c, OP_READV)->submitted++;
  expect_pending(c, "READ/READV on an empty pipe");
  sleep_ms(HAZARD_HOLD_MS);
  expect_pending(c, "READ/READV on an empty pipe");
  pipe_feed(pipes[0][1], ud, CHUNK);
  reap_expect(c, ud, OP_READ, (int)CHUNK);
  pipe_feed(pipes[1][1], ud + 1, 2 * VEC_LEN);
  reap_expect(c, ud + 1, OP_READV, (int)(2 * VEC_LEN));
  if (!slice_matches(buf, VEC_OFF, ud) || !slice_matches(buf + VEC_OFF, VEC_LEN, ud + 1) ||
      !slice_matches(buf + VEC_OFF + VEC_LEN, CHUNK - VEC_OFF - VEC_LEN, ud) ||
      !slice_matches(side, VEC_LEN, ud + 1))
    fail("READ/READV user_data=%llu,%llu left other data than was fed", (unsigned long long)ud,
         (unsigned long long)ud + 1);
  return ud;
}

/* COUNT such pairs, each into its own 8 KiB (the READ's buffer, then the first iovec). */
void scenario_hazard_vec_overlap(struct ctx *c) {
  int pipes[2][2];
  open_pair_pipes(c, pipes, true);
  unsigned char *bufs = alloc_blocks(2 * (unsigned)c->count);
  note(c, "GROUND-TRUTH hazard overlaps=%lu iovec=1 overlap_len=%u\n", c->count, VEC_LEN);
  for (unsigned long i = 0; i < c->count; i++) {
    unsigned char *buf = bufs + 2 * i * CHUNK;
    const uint64_t ud = vec_pair(c, pipes, buf, buf + CHUNK);
    note(c, "GROUND-TRUTH pair user_data=%llu,%llu addr=%#llx\n", (unsigned long long)ud,
         (unsigned long long)ud + 1, (unsigned long long)(uintptr_t)buf);
  }
  free(bufs);
  close_pipe(pipes[0]);
  close_pipe(pipes[1]);
}

/* -------------------------------------------------- hazard-write-read */

/*
 * A READ of CHUNK bytes from empty pipe 0 into buf, and a WRITE of WRITE_LEN bytes from
 * buf + WRITE_OFF to pipe 1, in one submit. The pipe has room, so the WRITE completes at
 * once and sends what buf held before (the pattern of ud + 1, checked on arrival), while
 * the READ is still in flight; the READ is fed and reaped after HAZARD_HOLD_MS.
 */
static uint64_t write_read_pair(struct ctx *c, int pipes[2][2], unsigned char *buf) {
  const uint64_t ud = c->next_user_data;
  c->next_user_data += 2;
  fill_block(buf, ud + 1);
  queue_read(c, pipes[0][0], buf, CHUNK, ud);
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_write(sqe, pipes[1][1], buf + WRITE_OFF, WRITE_LEN, 0);
  io_uring_sqe_set_data64(sqe, ud + 1);
  submit_queued(c, 2);
  use_op(c, OP_READ)->submitted++;
  use_op(c, OP_WRITE)->submitted++;
  reap_expect(c, ud + 1, OP_WRITE, (int)WRITE_LEN);
  if (pipe_drain(pipes[1][0], ud + 1) != WRITE_LEN) fail("WRITE to the pipe: not all of it arrived");
  sleep_ms(HAZARD_HOLD_MS);
  expect_pending(c, "READ on an empty pipe");
  pipe_feed(pipes[0][1], ud, CHUNK);
  reap_expect(c, ud, OP_READ, (int)CHUNK);
  if (!slice_matches(buf, CHUNK, ud))
    fail("READ user_data=%llu left other data than was fed", (unsigned long long)ud);
  return ud;
}

/* COUNT pairs, each in its own 4 KiB. */
void scenario_hazard_write_read(struct ctx *c) {
  int pipes[2][2];
  open_pair_pipes(c, pipes, true);
  unsigned char *bufs = alloc_blocks((unsigned)c->count);
  note(c, "GROUND-TRUTH hazard overlaps=%lu overlap_len=%u\n", c->count, WRITE_LEN);
  for (unsigned long i = 0; i < c->count; i++) {
    unsigned char *buf = bufs + i * CHUNK;
    const uint64_t ud = write_read_pair(c, pipes, buf);
    note(c, "GROUND-TRUTH pair user_data=%llu,%llu addr=%#llx\n", (unsigned long long)ud,
         (unsigned long long)ud + 1, (unsigned long long)(uintptr_t)(buf + WRITE_OFF));
  }
  free(bufs);
  close_pipe(pipes[0]);
  close_pipe(pipes[1]);
}

/* --------------------------------------------------- the clean controls */

/*
 * One buffer, COUNT times: a READ of a random block of the cached file into it, then a
 * WRITE of it to a pipe (which has room, so it completes inline), each submitted alone
 * after the one before was reaped. What the WRITE sent is read back and checked.
 */
void scenario_check_clean_reuse(struct ctx *c) {
  int fds[2];
  open_pipe(fds);
  unsigned char *buf = alloc_blocks(1);
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t block = rng_next(&c->rng) % FILE_CHUNKS;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_read(sqe, c->file_fd, buf, CHUNK, block * CHUNK);
    io_uring_sqe_set_data64(sqe, c->next_user_data);
    submit_queued(c, 1);
    use_op(c, OP_READ)->submitted++;
    reap_expect(c, c->next_user_data++, OP_READ, (int)CHUNK);
    if (!block_matches(buf, block))
      fail("READ returned wrong data for block %llu", (unsigned long long)block);

    sqe = get_sqe(c);
    io_uring_prep_write(sqe, fds[1], buf, CHUNK, 0);
    io_uring_sqe_set_data64(sqe, c->next_user_data);
    submit_queued(c, 1);
    use_op(c, OP_WRITE)->submitted++;
    reap_expect(c, c->next_user_data++, OP_WRITE, (int)CHUNK);
    if (pipe_drain(fds[0], block) != CHUNK) fail("WRITE to the pipe: not all of it arrived");
  }
  note_no_hazard(c);
  note(c, "GROUND-TRUTH reuse reads=%lu writes=%lu len=%u in_flight_max=1 addr=%#llx\n", c->count,
       c->count, CHUNK, (unsigned long long)(uintptr_t)buf);
  free(buf);
  close_pipe(fds);
}

