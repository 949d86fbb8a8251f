// SPDX-License-Identifier: MIT
// The injector's shared basics: fatal errors (exit 1, or 2 for bad arguments), the
// fixed data pattern that reads are checked against, and monotonic clocks.
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "inject.h"

/* ----------------------------------------------------------- fatal errors */

const char *progname = "inject";

__attribute__((noreturn, format(printf, 1, 2))) void bad_args(
    const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", progname);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

__attribute__((noreturn, format(printf, 1, 2))) void fail(
    const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: ", progname);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

// liburing returns -errno instead of setting errno.
__attribute__((noreturn)) void fail_uring(const char *call, int ret) {
  fail("%s: %s", call, strerror(-ret));
}

__attribute__((noreturn)) void fail_errno(const char *call) {
  fail("%s: %s", call, strerror(errno));
}

/* ----------------------------------------------------------- data pattern */

// Fixed-seed xorshift64*: offsets look random to the kernel but every run
// issues the same sequence, so a failure can be replayed.
uint64_t rng_next(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545f4914f6cdd1dull;
}

static uint64_t block_word(uint64_t block) {
  return (block + 1) * PATTERN_MAGIC;
}

void fill_block(unsigned char *dst, uint64_t block) {
  uint64_t w = block_word(block);
  for (unsigned i = 0; i < CHUNK; i += sizeof(w)) memcpy(dst + i, &w, sizeof(w));
}

bool block_matches(const unsigned char *src, uint64_t block) {
  uint64_t w = block_word(block);
  for (unsigned i = 0; i < CHUNK; i += sizeof(w))
    if (memcmp(src + i, &w, sizeof(w)) != 0) return false;
  return true;
}

void *alloc_blocks(unsigned n) {
  void *p = NULL;
  int err = posix_memalign(&p, CHUNK, (size_t)n * CHUNK);
  if (err != 0) fail("posix_memalign: %s", strerror(err));
  return p;
}

/* ----------------------------------------------------------------- clocks */

uint64_t now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0) fail_errno("clock_gettime");
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// Sleeps until now_ns() reaches deadline_ns (at once if it already has); a periodic
// loop that sleeps to start + i * period does not drift.
void sleep_until_ns(uint64_t deadline_ns) {
  struct timespec until = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                           .tv_nsec = (long)(deadline_ns % 1000000000u)};
  int err;
  while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL)) == EINTR) {
  }
  if (err != 0) fail("clock_nanosleep: %s", strerror(err));
}

// Absolute deadline, so an interrupted sleep does not restart from zero.
void sleep_ms(unsigned ms) {
  struct timespec until;
  if (clock_gettime(CLOCK_MONOTONIC, &until) < 0) fail_errno("clock_gettime");
  until.tv_sec += ms / 1000u;
  until.tv_nsec += (long)(ms % 1000u) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  int err;
  while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL)) == EINTR) {
  }
  if (err != 0) fail("clock_nanosleep: %s", strerror(err));
}

// The inode number behind fd: how uringscope's files table names a pipe or socket.
unsigned long long fd_ino(int fd) {
  struct stat st;
  if (fstat(fd, &st) < 0) fail_errno("fstat");
  return (unsigned long long)st.st_ino;
}
