// SPDX-License-Identifier: MIT
// Requests that come back with less than they asked for: an error at issue
// (errors) or a short count (short-write).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject.h"

/* -------------------------------------------------------------- errors */

/*
 * READs on an fd number that is not open: each fails in the issue path with
 * -EBADF (after the submit tracepoint, unlike `badop`). Batched 16 per submit.
 */
void scenario_errors(struct ctx *c) {
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
void scenario_short_write(struct ctx *c) {
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
void prepare_empty_file(struct ctx *c) {
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
