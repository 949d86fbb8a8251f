// SPDX-License-Identifier: MIT
// What each request is: a NOP or one of the other cheap kinds (-o), or a read of the
// data file; and what its CQE must say. Every kind completes inline, in the submitting
// io_uring_enter(), as a NOP does: /dev/zero, /dev/null and an eventfd with a count
// never need to wait, so nothing is punted to io-wq or armed for poll (bench/README.md
// says how that was checked).
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "loadgen.h"

enum kind { K_NOP, K_READ, K_WRITE, K_READV, K_WRITEV, K_READ_FIXED, K_WRITE_FIXED, K_POLL };

static const char *const names[MAX_KINDS] = {"nop",    "read",       "write",       "readv",
                                             "writev", "read_fixed", "write_fixed", "poll_add"};

// A kind's slot: the iovec its vectored request points at, then its data.
struct kind_slot {
  struct iovec iov;
  char pad[64 - sizeof(struct iovec)];
  char data[KIND_BYTES];
};

const char *kind_names(unsigned kinds) {
  static char out[128];
  out[0] = 0;
  for (unsigned i = 0; i < kinds && i < MAX_KINDS; ++i) {
    if (i) strcat(out, ",");
    strcat(out, names[i]);
  }
  return out;
}

static bool reads_file(const struct options *o) {
  return o->mode == MODE_READ || o->mode == MODE_READ_ASYNC || o->mode == MODE_READ_DIRECT;
}

size_t slot_bytes(const struct options *o) {
  if (reads_file(o)) return BLOCK;
  return o->kinds > 1 ? sizeof(struct kind_slot) : 0;
}

void kinds_open(const struct options *o, struct kind_files *f) {
  *f = (struct kind_files){.data = -1, .zero = -1, .null = -1, .event = -1};
  if (reads_file(o)) {
    prepare_file(o);
    f->data = open(o->path, O_RDONLY | (o->mode == MODE_READ_DIRECT ? O_DIRECT : 0));
    if (f->data < 0) die("open %s: %s", o->path, strerror(errno));
    if (o->mode != MODE_READ_DIRECT) warm_page_cache(o, f->data);
  }
  if (o->kinds < 2) return;
  f->zero = open("/dev/zero", O_RDONLY);
  f->null = open("/dev/null", O_WRONLY);
  // Nobody reads it, so its count stays 1 and it is readable for good.
  f->event = eventfd(1, EFD_NONBLOCK);
  if (f->zero < 0 || f->null < 0 || f->event < 0) die("open the kinds' files: %s", strerror(errno));
}

void kinds_close(struct kind_files *f) {
  int *fds[] = {&f->data, &f->zero, &f->null, &f->event};
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; ++i) {
    if (*fds[i] >= 0) close(*fds[i]);
    *fds[i] = -1;
  }
}

// The fixed kinds read and write inside one registered buffer: all of the ring's slots.
void kinds_register(const struct options *o, struct io_uring *ring, char *bufs, size_t bytes) {
  if (o->kinds <= K_READ_FIXED) return;
  struct iovec iov = {.iov_base = bufs, .iov_len = bytes};
  int ret = io_uring_register_buffers(ring, &iov, 1);
  if (ret < 0) die("io_uring_register_buffers: %s", strerror(-ret));
}

static void prep_kind(const struct kind_files *f, struct io_uring_sqe *sqe, char *buf,
                      enum kind k) {
  struct kind_slot *s = (struct kind_slot *)buf;
  s->iov = (struct iovec){.iov_base = s->data, .iov_len = KIND_BYTES};
  switch (k) {
    case K_NOP: io_uring_prep_nop(sqe); break;
    case K_READ: io_uring_prep_read(sqe, f->zero, s->data, KIND_BYTES, 0); break;
    case K_WRITE: io_uring_prep_write(sqe, f->null, s->data, KIND_BYTES, 0); break;
    case K_READV: io_uring_prep_readv(sqe, f->zero, &s->iov, 1, 0); break;
    case K_WRITEV: io_uring_prep_writev(sqe, f->null, &s->iov, 1, 0); break;
    case K_READ_FIXED: io_uring_prep_read_fixed(sqe, f->zero, s->data, KIND_BYTES, 0, 0); break;
    case K_WRITE_FIXED: io_uring_prep_write_fixed(sqe, f->null, s->data, KIND_BYTES, 0, 0); break;
    case K_POLL: io_uring_prep_poll_add(sqe, f->event, POLLIN); break;
  }
}

void prep_request(const struct options *o, const struct kind_files *f, struct io_uring_sqe *sqe,
                  char *buf, unsigned slot, uint64_t seq) {
  uint64_t kind = 0;
  if (reads_file(o)) {
    uint64_t off = (rng_next() % (o->file_bytes / BLOCK)) * BLOCK;
    io_uring_prep_read(sqe, f->data, buf, BLOCK, off);
    if (o->mode == MODE_READ_ASYNC) sqe->flags |= IOSQE_ASYNC;
  } else if (o->kinds > 1) {
    kind = seq % o->kinds;
    prep_kind(f, sqe, buf, (enum kind)kind);
  } else {
    io_uring_prep_nop(sqe);
  }
  io_uring_sqe_set_data64(sqe, kind << 32 | slot);
}

unsigned cqe_slot(const struct io_uring_cqe *cqe) {
  return (unsigned)io_uring_cqe_get_data64(cqe);
}

void check_cqe(const struct options *o, const struct io_uring_cqe *cqe) {
  enum kind k = (enum kind)(io_uring_cqe_get_data64(cqe) >> 32);
  if (cqe->res < 0)
    die("%s request failed: %s", reads_file(o) ? mode_names[o->mode] : names[k], strerror(-cqe->res));
  if (reads_file(o)) {
    if (cqe->res != (int)BLOCK) die("short read: %d", cqe->res);
  } else if (k == K_POLL) {
    if (!(cqe->res & POLLIN)) die("poll_add: not readable (%d)", cqe->res);
  } else if (k != K_NOP && cqe->res != (int)KIND_BYTES) {
    die("%s: %d bytes, not %u", names[k], cqe->res, KIND_BYTES);
  }
}
