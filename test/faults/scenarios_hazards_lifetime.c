// SPDX-License-Identifier: MIT
// Memory that goes away under an in-flight request, the ground truth of --check's
// HAZARD-UAF: a page munmap()ed under a READ (hazard-unmap), or moved elsewhere by
// mremap() (hazard-mremap); and the look-alike that must stay silent: a region unmapped
// only after its READs were reaped (check-clean-unmap). The helpers are in
// scenarios_hazards.c; registered buffers are scenarios_hazards_bufreg.c's.
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

// In flight this long before the munmap or mremap, and this long after it.
#define LIFETIME_HOLD_MS 20u
// check-clean-unmap maps COUNT pages.
#define CLEAN_UNMAP_MAX_PAGES 65536ul

/* ------------------------------------------------- hazard-unmap, mremap */

unsigned char *map_anon(size_t len) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail_errno("mmap");
  return p;
}

enum page_loss { PAGE_UNMAPPED, PAGE_MOVED };

static const char *const page_loss_calls[] = {[PAGE_UNMAPPED] = "munmap", [PAGE_MOVED] = "mremap"};

// The page at `page` stops being there: munmap(), or mremap() of it onto a page reserved
// elsewhere (MREMAP_FIXED, so it always moves), which is unmapped right after. Either way
// nothing maps `page` again before the READ completes.
static void lose_page(unsigned char *page, enum page_loss how) {
  if (how == PAGE_UNMAPPED) {
    if (munmap(page, CHUNK) < 0) fail_errno("munmap");
    return;
  }
  unsigned char *dest = map_anon(CHUNK);
  if (mremap(page, CHUNK, CHUNK, MREMAP_MAYMOVE | MREMAP_FIXED, dest) != dest)
    fail_errno("mremap");
  if (munmap(dest, CHUNK) < 0) fail_errno("munmap (the moved page)");
}

/*
 * A READ of CHUNK bytes from the empty pipe into a fresh anonymous page (faulted in
 * first), in flight for LIFETIME_HOLD_MS; then the page is lost, LIFETIME_HOLD_MS later
 * the pipe is fed, and the READ's CQE is reaped. Returns the READ's result; *left is what
 * stayed in the pipe (checked to be the rest of what was fed).
 */
static int lose_page_under_read(struct ctx *c, int fds[2], enum page_loss how, unsigned *left) {
  unsigned char *page = map_anon(CHUNK);
  memset(page, 0, CHUNK);
  const uint64_t ud = c->next_user_data++;
  queue_read(c, fds[0], page, CHUNK, ud);
  submit_queued(c, 1);
  use_op(c, OP_READ)->submitted++;
  sleep_ms(LIFETIME_HOLD_MS);
  expect_pending(c, "READ on an empty pipe");
  lose_page(page, how);
  sleep_ms(LIFETIME_HOLD_MS);
  pipe_feed(fds[1], ud, CHUNK);
  const int res = reap_expect(c, ud, OP_READ, ANY_RES).res;
  *left = pipe_drain(fds[0], ud);
  if (res > (int)CHUNK || (unsigned)(res > 0 ? res : 0) + *left != CHUNK)
    fail("READ into a lost page returned %d and left %u of %u bytes in the pipe", res, *left,
         CHUNK);
  return res;
}

static void lose_pages_under_reads(struct ctx *c, enum page_loss how) {
  int fds[2];
  open_pipe(fds);
  int first = 0;
  unsigned first_left = 0;
  for (unsigned long i = 0; i < c->count; i++) {
    unsigned left = 0;
    const int res = lose_page_under_read(c, fds, how, &left);
    if (i == 0) {
      first = res;
      first_left = left;
    } else if (res != first || left != first_left) {
      fail("%s %lu: READ returned %d (left %u), the first returned %d (left %u)",
           page_loss_calls[how], i + 1, res, left, first, first_left);
    }
  }
  close_pipe(fds);
  note(c, "GROUND-TRUTH hazard unmaps=%lu call=%s res=%d len=%u left_in_pipe=%u\n", c->count,
       page_loss_calls[how], first, CHUNK, first_left);
}

void scenario_hazard_unmap(struct ctx *c) { lose_pages_under_reads(c, PAGE_UNMAPPED); }

void scenario_hazard_mremap(struct ctx *c) { lose_pages_under_reads(c, PAGE_MOVED); }

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
