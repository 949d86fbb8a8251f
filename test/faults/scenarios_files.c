// SPDX-License-Identifier: MIT
// files: READs and WRITEs on named regular files, a registered (fixed) file, files
// opened and closed between requests, a socketpair and a pipe, each counted per file,
// so uringscope's per-file attribution can be scored exactly.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inject.h"

#define FILES_DIR_TEMPLATE "/tmp/inject-files-XXXXXX"
#define FILES_BATCH 16u
// One line per e*.dat: this many of them (and the other lines) fit in NOTES_SIZE.
#define FILES_MAX_COUNT 100ul
#define SOCK_MSG 256u
#define PIPE_MSG 128u

// The regular files opened for the whole run, in the order of their lines.
enum { LINE_A, LINE_B, LINE_C, LINE_FIXED, LINE_OUT, LINE_E0 };
// After the e*.dat lines: the socketpair's two ends, then the pipe's two ops.
enum { STREAM_SEND, STREAM_RECV, STREAM_PIPE_WRITE, STREAM_PIPE_READ, STREAM_LINES };

// Each request is `len` bytes; a file gets `per_count` x COUNT of them.
static const struct {
  const char *name;
  unsigned len;
  unsigned per_count;
  enum op_kind op;
} named_files[LINE_E0] = {
    {"a.dat", CHUNK, 1, OP_READ},     {"b.dat", 1024, 2, OP_READ}, {"c.dat", 512, 3, OP_READ},
    {"fixed.dat", CHUNK, 1, OP_READ}, {"out.dat", 2048, 1, OP_WRITE},
};

// One GROUND-TRUTH file line: what one (file, op) was asked and gave.
struct file_line {
  char path[64];     // a regular file's path, "" for a socket or a pipe
  const char *kind;  // printed after "kind=" when there is no path
  enum op_kind op;
  unsigned id;  // seeds the file's data pattern: its index in `lines`
  unsigned long long ino;
  unsigned long long requests;
  unsigned long long bytes;
  unsigned long long errors;
};

// Static so the exit handler can remove the directory after a fail().
static struct {
  char dir[sizeof(FILES_DIR_TEMPLATE)];  // "" when there is none
  int fd[LINE_E0];
  struct file_line *lines;
  unsigned long count;  // COUNT: the number of e*.dat files
} files = {"", {-1, -1, -1, -1, -1}, NULL, 0};

static struct file_line *stream_line(unsigned k) {
  return &files.lines[LINE_E0 + files.count + k];
}

/* ------------------------------------------------------------ data pattern */

// Every file and every 8-byte offset has its own word, so a read that returned
// another file's bytes, or bytes from another offset, fails the check.
static uint64_t file_word(unsigned id, uint64_t off) {
  return (off / 8 + 1) * PATTERN_MAGIC + ((uint64_t)id + 1) * 0x9e3779b97f4a7c15ull;
}

static void fill_pattern(unsigned char *dst, unsigned id, uint64_t off, size_t len) {
  for (size_t i = 0; i < len; i += 8) {
    uint64_t w = file_word(id, off + i);
    memcpy(dst + i, &w, sizeof(w));
  }
}

static bool pattern_matches(const unsigned char *src, unsigned id, uint64_t off, size_t len) {
  for (size_t i = 0; i < len; i += 8) {
    uint64_t w = file_word(id, off + i);
    if (memcmp(src + i, &w, sizeof(w)) != 0) return false;
  }
  return true;
}

/* ------------------------------------------------------ files and the dir */

// Removes every file in the directory, then the directory itself; returns the first
// errno, or 0. Also the exit handler, so a run that fails leaves nothing in /tmp.
static int remove_dir(void) {
  if (files.dir[0] == '\0') return 0;
  int err = 0;
  DIR *d = opendir(files.dir);
  if (d == NULL) {
    err = errno;
  } else {
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      if (unlinkat(dirfd(d), e->d_name, 0) < 0 && err == 0) err = errno;
    }
    closedir(d);
  }
  if (rmdir(files.dir) < 0 && err == 0) err = errno;
  files.dir[0] = '\0';
  return err;
}

static void files_atexit(void) {
  char dir[sizeof(files.dir)];
  memcpy(dir, files.dir, sizeof(dir));
  int err = remove_dir();
  if (err != 0) fprintf(stderr, "%s: could not remove %s: %s\n", progname, dir, strerror(err));
}

static struct file_line *line_init(unsigned i, const char *name, enum op_kind op) {
  struct file_line *fl = &files.lines[i];
  int n = snprintf(fl->path, sizeof(fl->path), "%s/%s", files.dir, name);
  if (n < 0 || (size_t)n >= sizeof(fl->path)) fail("internal: path of %s too long", name);
  fl->kind = "file";
  fl->op = op;
  fl->id = i;
  return fl;
}

// Creates the line's file with `size` bytes of its pattern, written with plain
// pwrite(2) so that no io_uring request touches it before the workload.
static int create_filled(struct file_line *fl, size_t size) {
  int fd = open(fl->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail("open %s: %s", fl->path, strerror(errno));
  unsigned char *buf = malloc(size > 0 ? size : 1);
  if (buf == NULL) fail("malloc: %s", strerror(errno));
  fill_pattern(buf, fl->id, 0, size);
  for (size_t done = 0; done < size;) {
    ssize_t w = pwrite(fd, buf + done, size - done, (off_t)done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail("pwrite %s: %s", fl->path, strerror(errno));
    if (w == 0) fail("pwrite %s: wrote 0 bytes", fl->path);
    done += (size_t)w;
  }
  free(buf);
  fl->ino = fd_ino(fd);
  return fd;
}

static void stream_init(unsigned k, const char *kind, enum op_kind op, int fd) {
  struct file_line *fl = stream_line(k);
  fl->kind = kind;
  fl->op = op;
  fl->id = (unsigned)(LINE_E0 + files.count + k);
  fl->ino = fd_ino(fd);
}

// Every file is made and filled here, before any request, and the socketpair and pipe
// are made; only the e*.dat files are opened again during the run.
void prepare_files(struct ctx *c) {
  if (c->count > FILES_MAX_COUNT)
    bad_args("files: COUNT %lu is more than %lu (one line per file must fit)", c->count,
             FILES_MAX_COUNT);
  files.count = c->count;
  files.lines = calloc(LINE_E0 + files.count + STREAM_LINES, sizeof(*files.lines));
  if (files.lines == NULL) fail("calloc: %s", strerror(errno));
  if (atexit(files_atexit) != 0) fail("atexit failed");
  char dir[sizeof(files.dir)] = FILES_DIR_TEMPLATE;
  if (mkdtemp(dir) == NULL) fail("mkdtemp %s: %s", dir, strerror(errno));
  memcpy(files.dir, dir, sizeof(dir));

  for (unsigned i = 0; i < LINE_E0; i++) {
    struct file_line *fl = line_init(i, named_files[i].name, named_files[i].op);
    size_t size = named_files[i].op == OP_READ
                      ? (size_t)named_files[i].len * named_files[i].per_count * files.count
                      : 0;
    files.fd[i] = create_filled(fl, size);
  }
  for (unsigned long i = 0; i < files.count; i++) {
    char name[32];
    snprintf(name, sizeof(name), "e%lu.dat", i);
    if (close(create_filled(line_init((unsigned)(LINE_E0 + i), name, OP_READ), CHUNK)) < 0)
      fail_errno("close");
  }

  prepare_socketpair(c);
  prepare_pipe(c);
  stream_init(STREAM_SEND, "socket family=unix", OP_SEND, c->sock[0]);
  stream_init(STREAM_RECV, "socket family=unix", OP_RECV, c->sock[1]);
  stream_init(STREAM_PIPE_WRITE, "pipe", OP_WRITE, c->pipe_wr);
  stream_init(STREAM_PIPE_READ, "pipe", OP_READ, c->pipe_rd);
}

/* ---------------------------------------------------------------- requests */

// Counts one CQE for its op line and its file line; anything but exactly `len`
// bytes makes the counts something other than what the scenario describes.
static void count_file_cqe(struct ctx *c, struct file_line *fl, struct cqe_copy q, unsigned len) {
  count_cqe(&c->ops[fl->op], q.res, q.flags);
  if (q.res > 0) fl->bytes += (unsigned)q.res;
  if (q.res < 0) fl->errors++;
  if (q.res != (int)len)
    fail("%s on %s user_data=%llu returned %d, expected %u", op_names[fl->op],
         fl->path[0] != '\0' ? fl->path : fl->kind, (unsigned long long)q.ud, q.res, len);
}

/*
 * `count` requests of the line's op, `len` bytes each at offsets 0, len, 2 len, ...,
 * so each lies inside the file (a READ) and none overlaps another. FILES_BATCH per
 * submit, each batch reaped before the next. READs are checked against the pattern;
 * WRITEs carry it, for check_written().
 */
static void file_io(struct ctx *c, struct file_line *fl, int fd, unsigned sqe_flags,
                    unsigned len, unsigned long count) {
  struct op_stats *st = use_op(c, fl->op);
  unsigned char *bufs = alloc_blocks((FILES_BATCH * len + CHUNK - 1) / CHUNK);
  bool seen[FILES_BATCH];
  for (unsigned long done = 0; done < count;) {
    const unsigned n = batch_size(c, FILES_BATCH, count - done);
    const uint64_t first = c->next_user_data;
    for (unsigned i = 0; i < n; i++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      unsigned char *buf = bufs + (size_t)i * len;
      const uint64_t off = (done + i) * len;
      if (fl->op == OP_WRITE) {
        fill_pattern(buf, fl->id, off, len);
        io_uring_prep_write(sqe, fd, buf, len, off);
      } else {
        io_uring_prep_read(sqe, fd, buf, len, off);
      }
      io_uring_sqe_set_flags(sqe, sqe_flags);
      io_uring_sqe_set_data64(sqe, c->next_user_data++);
      seen[i] = false;
    }
    submit_queued(c, n);
    st->submitted += n;
    fl->requests += n;
    for (unsigned k = 0; k < n; k++) {
      struct cqe_copy q = reap(c);
      const unsigned i = batch_index(q.ud, first, n, seen);
      count_file_cqe(c, fl, q, len);
      const unsigned char *got = bufs + (size_t)i * len;
      if (fl->op == OP_READ && !pattern_matches(got, fl->id, (done + i) * len, len))
        fail("READ of %s user_data=%llu returned wrong data", fl->path, (unsigned long long)q.ud);
    }
    done += n;
  }
  free(bufs);
}

// The WRITEs' bytes really are in the file, all of them and nothing more.
static void check_written(const struct file_line *fl, int fd, size_t size) {
  struct stat st;
  if (fstat(fd, &st) < 0) fail_errno("fstat");
  if ((size_t)st.st_size != size)
    fail("%s has %lld bytes, wrote %zu", fl->path, (long long)st.st_size, size);
  unsigned char *buf = malloc(size > 0 ? size : 1);
  if (buf == NULL) fail("malloc: %s", strerror(errno));
  for (size_t done = 0; done < size;) {
    ssize_t r = pread(fd, buf + done, size - done, (off_t)done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) fail("pread %s: %s", fl->path, r < 0 ? strerror(errno) : "unexpected end of file");
    done += (size_t)r;
  }
  if (!pattern_matches(buf, fl->id, 0, size)) fail("%s read back wrong", fl->path);
  free(buf);
}

// open(2), one READ, close(2): the fd number is reused by the next file, so only
// the file itself (not the number) tells the requests apart.
static void open_read_close(struct ctx *c, struct file_line *fl) {
  int fd = open(fl->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open %s: %s", fl->path, strerror(errno));
  if (fd_ino(fd) != fl->ino) fail("%s has another inode than the file made for it", fl->path);
  file_io(c, fl, fd, 0, CHUNK, 1);
  if (close(fd) < 0) fail_errno("close");
}

/*
 * COUNT rounds of a WRITE/SEND of `len` bytes on `wr`, then a READ/RECV of `len` on
 * `rd`, queued in that order and submitted together (the kernel issues them in SQ
 * order, so the data is there when the read is issued), then both reaped: each read
 * gets exactly the one message in the stream.
 */
static void stream_io(struct ctx *c, struct file_line *out, int wr, struct file_line *in, int rd,
                      unsigned len) {
  struct op_stats *ost = use_op(c, out->op);
  struct op_stats *ist = use_op(c, in->op);
  unsigned char obuf[SOCK_MSG], ibuf[SOCK_MSG];
  if (len > SOCK_MSG) fail("internal: stream message of %u bytes", len);
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t first = c->next_user_data;
    c->next_user_data += 2;
    fill_pattern(obuf, out->id, i * len, len);
    struct io_uring_sqe *sqe = get_sqe(c);
    if (out->op == OP_SEND)
      io_uring_prep_send(sqe, wr, obuf, len, MSG_NOSIGNAL);
    else
      io_uring_prep_write(sqe, wr, obuf, len, 0);
    io_uring_sqe_set_data64(sqe, first);
    unsigned queued = 1;
    // A one-entry SQ holds one SQE: the write then goes in alone, first.
    if (c->params.sq_entries < 2) {
      submit_queued(c, 1);
      queued = 0;
    }
    sqe = get_sqe(c);
    if (in->op == OP_RECV)
      io_uring_prep_recv(sqe, rd, ibuf, len, 0);
    else
      io_uring_prep_read(sqe, rd, ibuf, len, 0);
    io_uring_sqe_set_data64(sqe, first + 1);
    submit_queued(c, queued + 1);
    ost->submitted++;
    ist->submitted++;
    out->requests++;
    in->requests++;
    bool seen[2] = {false, false};
    for (int k = 0; k < 2; k++) {
      struct cqe_copy q = reap(c);
      count_file_cqe(c, batch_index(q.ud, first, 2, seen) == 0 ? out : in, q, len);
    }
    if (!pattern_matches(ibuf, out->id, i * len, len))
      fail("%s on %s returned wrong data", op_names[in->op], in->kind);
  }
}

/* ---------------------------------------------------------------- scenario */

static void note_files(struct ctx *c) {
  note(c, "GROUND-TRUTH files dir=%s named=%lu\n", files.dir, LINE_E0 + files.count);
  for (unsigned long i = 0; i < LINE_E0 + files.count + STREAM_LINES; i++) {
    const struct file_line *fl = &files.lines[i];
    if (fl->path[0] != '\0')
      note(c, "GROUND-TRUTH file kind=file path=%s", fl->path);
    else
      note(c, "GROUND-TRUTH file kind=%s", fl->kind);
    note(c, " op=%s ino=%llu requests=%llu bytes=%llu errors=%llu\n", op_names[fl->op], fl->ino,
         fl->requests, fl->bytes, fl->errors);
  }
}

// After all io_uring work: the registered file, the open files, then the files and
// the directory. The socketpair and the pipe are closed by main(), after the report.
static void cleanup_files(struct ctx *c) {
  int ret = io_uring_unregister_files(&c->ring);
  if (ret < 0) fail_uring("io_uring_unregister_files", ret);
  for (unsigned i = 0; i < LINE_E0; i++) {
    if (close(files.fd[i]) < 0) fail_errno("close");
    files.fd[i] = -1;
  }
  char dir[sizeof(files.dir)];
  memcpy(dir, files.dir, sizeof(dir));
  int err = remove_dir();
  if (err != 0) fail("removing %s: %s", dir, strerror(err));
  free(files.lines);
  files.lines = NULL;
}

void scenario_files(struct ctx *c) {
  for (unsigned i = LINE_A; i <= LINE_C; i++)
    file_io(c, &files.lines[i], files.fd[i], 0, named_files[i].len,
            named_files[i].per_count * c->count);

  // The SQE's fd is the index in the registered table (0), not an fd number.
  int ret = io_uring_register_files(&c->ring, &files.fd[LINE_FIXED], 1);
  if (ret < 0) fail_uring("io_uring_register_files", ret);
  file_io(c, &files.lines[LINE_FIXED], 0, IOSQE_FIXED_FILE, named_files[LINE_FIXED].len, c->count);

  struct file_line *out = &files.lines[LINE_OUT];
  file_io(c, out, files.fd[LINE_OUT], 0, named_files[LINE_OUT].len, c->count);
  check_written(out, files.fd[LINE_OUT], (size_t)named_files[LINE_OUT].len * c->count);

  for (unsigned long i = 0; i < c->count; i++) open_read_close(c, &files.lines[LINE_E0 + i]);

  stream_io(c, stream_line(STREAM_SEND), c->sock[0], stream_line(STREAM_RECV), c->sock[1],
            SOCK_MSG);
  stream_io(c, stream_line(STREAM_PIPE_WRITE), c->pipe_wr, stream_line(STREAM_PIPE_READ),
            c->pipe_rd, PIPE_MSG);

  note_files(c);
  cleanup_files(c);
}
