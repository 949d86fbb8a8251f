// SPDX-License-Identifier: MIT
// The read modes' data file: created with real data, warmed into the page cache, read
// at random offsets.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loadgen.h"

// xorshift64*: offsets must not be sequential (readahead would hide the per-request
// cost), and the generator must cost next to nothing. One state per thread: threads
// share no cache line through it.
static _Thread_local uint64_t rng_state = 0x9E3779B97F4A7C15ull;

uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

// Creates the file with real data (a sparse file would let O_DIRECT reads of holes
// skip the device), or reuses it when it already has the size.
void prepare_file(const struct options *o) {
  struct stat st;
  if (stat(o->path, &st) == 0 && (uint64_t)st.st_size == o->file_bytes &&
      st.st_blocks * 512 >= (off_t)o->file_bytes)
    return;
  int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("create %s: %s", o->path, strerror(errno));
  static char chunk[1 << 20];
  for (size_t i = 0; i < sizeof chunk; ++i) chunk[i] = (char)(i * 131 + 7);
  for (uint64_t done = 0; done < o->file_bytes; done += sizeof chunk) {
    memcpy(chunk, &done, sizeof done);  // every MiB differs: no dedup anywhere below
    size_t n = o->file_bytes - done < sizeof chunk ? (size_t)(o->file_bytes - done) : sizeof chunk;
    if (write(fd, chunk, n) != (ssize_t)n) die("write %s: %s", o->path, strerror(errno));
  }
  if (fsync(fd) != 0) die("fsync %s: %s", o->path, strerror(errno));
  close(fd);
}

// Reads the whole file once so that `read` requests all hit the page cache.
void warm_page_cache(const struct options *o, int fd) {
  static char chunk[1 << 20];
  for (uint64_t off = 0; off < o->file_bytes; off += sizeof chunk) {
    if (pread(fd, chunk, sizeof chunk, (off_t)off) < 0) die("pread: %s", strerror(errno));
  }
}
