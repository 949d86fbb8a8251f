// SPDX-License-Identifier: MIT
// Resources that more than one scenario family prepares: the page-cached temp file
// (the READ scenarios) and the pipe whose readiness the scenario controls; and
// send_all(), which the socket families feed their receives with.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inject.h"

// A 1 MiB file that is entirely in the page cache, so buffered reads can be
// served inline: any io-wq punt seen for it is then caused by the scenario
// (IOSQE_ASYNC), not by a cache miss. Unlinked at once so nothing leaks even
// if the process is killed while lingering.
void prepare_cached_file(struct ctx *c) {
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

// A pipe gives a pollable fd whose readiness the scenario controls exactly:
// it is readable only between our write of one byte and our read of it.
void prepare_pipe(struct ctx *c) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) fail_errno("pipe2");
  c->pipe_rd = fds[0];
  c->pipe_wr = fds[1];
}

void pipe_put(struct ctx *c, unsigned char byte) {
  for (;;) {
    ssize_t w = write(c->pipe_wr, &byte, 1);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail_errno("write to pipe");
    if (w != 1) fail("write to pipe: wrote %zd of 1 byte", w);
    return;
  }
}

void pipe_take(struct ctx *c, unsigned char want) {
  for (;;) {
    unsigned char byte = 0;
    ssize_t r = read(c->pipe_rd, &byte, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_errno("read from pipe");
    if (r != 1) fail("read from pipe: got %zd of 1 byte", r);
    if (byte != want) fail("read from pipe: got 0x%02x, wrote 0x%02x", byte, want);
    return;
  }
}

// One send(2) of the whole message; a stream socketpair with room never sends less.
void send_all(int fd, const void *buf, size_t len) {
  for (;;) {
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail_errno("send");
    if ((size_t)w != len) fail("send: sent %zd of %zu bytes", w, len);
    return;
  }
}
