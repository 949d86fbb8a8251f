// SPDX-License-Identifier: MIT
// hostile-names: a program that names itself and its files with the bytes an
// unprivileged user could use against root's terminal and report parsers: ESC
// sequences, BEL, a newline, a quote, a backslash, ';', bytes that are not UTF-8, a
// C1 control and a bidi override encoded in UTF-8, and a name as long as a file name
// may be. Every READ is forced to io-wq, so the PUNT finding names the files too.
// The names are printed as hex, so the GROUND-TRUTH lines stay plain.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "inject.h"

#define HOSTILE_DIR_TEMPLATE "/tmp/inject-hostile-XXXXXX"
#define HOSTILE_BATCH 16u
#define HOSTILE_FILE_SIZE CHUNK
#define LONG_NAME_LEN NAME_MAX

// At most 15 bytes (TASK_COMM_LEN - 1): the kernel cuts the rest.
static const char hostile_comm[] = "ev\x1b[2J\x07\n\"\\\xff\xc2\x9b;";

// Each file gets `reads` x COUNT READs: distinct counts put the first three in the
// PUNT finding's sentence ("Most were on ...").
static struct {
  const char *name;  // NULL: the long name, built at run time
  unsigned reads;
} hostile_files[] = {
    {"esc\x1b[2J\x1b[31mEVIL", 6},
    {"nl\nfake: no findings", 5},
    {"bad\xff\xfeutf8\xc2\x9b" "csi\xe2\x80\xaerlo", 4},
    {"osc\x1b]0;pwned\x07", 3},
    {"quote\"back\\slash;semi", 2},
    {NULL, 1},
};
#define HOSTILE_FILES (sizeof(hostile_files) / sizeof(hostile_files[0]))

static char hostile_dir[sizeof(HOSTILE_DIR_TEMPLATE)];
static char long_name[LONG_NAME_LEN + 1];
static int hostile_fd[HOSTILE_FILES];

static const char *file_name(unsigned i) {
  return hostile_files[i].name != NULL ? hostile_files[i].name : long_name;
}

static void remove_hostile_files(void) {
  if (hostile_dir[0] == '\0') return;
  char path[PATH_MAX];
  for (unsigned i = 0; i < HOSTILE_FILES; i++) {
    snprintf(path, sizeof(path), "%s/%s", hostile_dir, file_name(i));
    unlink(path);
  }
  rmdir(hostile_dir);
  hostile_dir[0] = '\0';
}

static void note_hex(struct ctx *c, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) note(c, "%02x", *p);
}

// Before the ring exists: the ring takes its process's name when it is created.
void hostile_rename(void) {
  if (prctl(PR_SET_NAME, hostile_comm, 0, 0, 0) < 0) fail_errno("prctl(PR_SET_NAME)");
}

void prepare_hostile_files(struct ctx *c) {
  (void)c;
  memset(long_name, 'x', LONG_NAME_LEN);
  memcpy(long_name, "long-", 5);
  long_name[LONG_NAME_LEN] = '\0';
  memcpy(hostile_dir, HOSTILE_DIR_TEMPLATE, sizeof(hostile_dir));
  if (mkdtemp(hostile_dir) == NULL) fail_errno("mkdtemp");
  if (atexit(remove_hostile_files) != 0) fail("atexit failed");
  unsigned char *block = alloc_blocks(1);
  char path[PATH_MAX];
  for (unsigned i = 0; i < HOSTILE_FILES; i++) {
    snprintf(path, sizeof(path), "%s/%s", hostile_dir, file_name(i));
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail_errno("open");
    fill_block(block, i);
    if (pwrite(fd, block, HOSTILE_FILE_SIZE, 0) != (ssize_t)HOSTILE_FILE_SIZE) fail_errno("pwrite");
    hostile_fd[i] = fd;
  }
  free(block);
}

// Forced async reads of one whole file, HOSTILE_BATCH per enter, each checked.
static void read_file(struct ctx *c, unsigned i, unsigned long reads, unsigned char *bufs) {
  struct op_stats *st = use_op(c, OP_READ);
  for (unsigned long left = reads; left > 0;) {
    const unsigned n = batch_size(c, HOSTILE_BATCH, left);
    const uint64_t first = c->next_user_data;
    for (unsigned k = 0; k < n; k++) {
      struct io_uring_sqe *sqe = get_sqe(c);
      io_uring_prep_read(sqe, hostile_fd[i], bufs + (size_t)k * CHUNK, CHUNK, 0);
      io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
      io_uring_sqe_set_data64(sqe, first + k);
    }
    c->next_user_data += n;
    submit_queued(c, n);
    st->submitted += n;
    st->forced_async += n;
    bool seen[HOSTILE_BATCH] = {false};
    for (unsigned k = 0; k < n; k++) {
      const struct cqe_copy cqe = reap(c);
      const unsigned slot = batch_index(cqe.ud, first, n, seen);
      count_cqe(st, cqe.res, cqe.flags);
      if (cqe.res != (int)CHUNK) fail("read of file %u returned %d", i, cqe.res);
      if (!block_matches(bufs + (size_t)slot * CHUNK, i))
        fail("read of file %u returned another file's data", i);
    }
    left -= n;
  }
}

void scenario_hostile_names(struct ctx *c) {
  unsigned char *bufs = alloc_blocks(HOSTILE_BATCH);
  note(c, "GROUND-TRUTH hostile dir=%s comm_hex=", hostile_dir);
  note_hex(c, hostile_comm);
  note(c, "\n");
  for (unsigned i = 0; i < HOSTILE_FILES; i++) {
    const unsigned long reads = hostile_files[i].reads * c->count;
    read_file(c, i, reads, bufs);
    note(c, "GROUND-TRUTH hostile_file name_hex=");
    note_hex(c, file_name(i));
    note(c, " requests=%lu bytes=%lu\n", reads, reads * CHUNK);
  }
  free(bufs);
  for (unsigned i = 0; i < HOSTILE_FILES; i++)
    if (close(hostile_fd[i]) < 0) fail_errno("close");
}
