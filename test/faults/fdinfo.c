// SPDX-License-Identifier: MIT
// The kernel's own view of the ring, read from /proc/self/fdinfo/<ring fd>: how many
// entries one of its lists holds (CqOverflowList: CQEs waiting on the overflow list;
// PollList: requests with an armed poll). A figure the program cannot see in the ring.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"

/*
 * The entries of the section headed "<section>:", which are the lines after the header
 * that start with a space, up to the next header. Reading fdinfo fires no io_uring
 * tracepoint. The kernel builds the whole text in one go on the first read (seq_file,
 * single_open), so the count is one snapshot. PollList is only printed when the reader
 * gets the ring's uring_lock without waiting. That always happens here, because the
 * program is the ring's only user and is not inside io_uring_enter() while it reads.
 */
unsigned fdinfo_count(const struct ctx *c, const char *section) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", c->ring.ring_fd);
  FILE *f = fopen(path, "re");
  if (f == NULL) fail("fopen %s: %s", path, strerror(errno));

  const size_t len = strlen(section);
  char *line = NULL;
  size_t cap = 0;
  bool inside = false, found = false;
  unsigned count = 0;
  while (getline(&line, &cap, f) > 0) {
    if (inside) {
      if (line[0] != ' ') break;
      count++;
    } else if (strncmp(line, section, len) == 0 && line[len] == ':') {
      inside = found = true;
    }
  }
  if (ferror(f)) fail("reading %s: %s", path, strerror(errno));
  free(line);
  fclose(f);
  if (!found) fail("%s has no %s section (needs /proc and a 5.x+ io_uring fdinfo)", path, section);
  return count;
}
