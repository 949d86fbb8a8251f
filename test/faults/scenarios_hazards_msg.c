// SPDX-License-Identifier: MIT
// Requests that name their memory through a msghdr, the ground truth of --check's reading
// of user msghdrs: two RECVMSGs on two socketpairs whose iovecs share bytes
// (hazard-recvmsg). The helpers are in scenarios_hazards.c.
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

// How long the two RECVMSGs stay in flight together before data arrives.
#define MSG_HOLD_MS 100u
// The second RECVMSG's second iovec covers these bytes of the first one's buffer.
#define MSG_VEC_OFF 512u
#define MSG_VEC_LEN 1024u
// One `pair` line each must fit the notes.
#define MAX_MSG_PAIRS 256ul

static void queue_recvmsg(struct ctx *c, int fd, struct msghdr *msg, uint64_t ud) {
  struct io_uring_sqe *sqe = get_sqe(c);
  io_uring_prep_recvmsg(sqe, fd, msg, 0);
  io_uring_sqe_set_data64(sqe, ud);
}

static void send_block(int fd, uint64_t block, size_t len) {
  unsigned char pattern[CHUNK];
  fill_block(pattern, block);
  send_all(fd, pattern, len);
}

/*
 * RECVMSG 1 reads CHUNK bytes into buf (one iovec), RECVMSG 2 reads 2 * MSG_VEC_LEN into
 * two iovecs, `side` and buf + MSG_VEC_OFF; both wait on empty sockets, in flight
 * together for MSG_HOLD_MS. Then 1's peer sends and 1 is reaped, then 2's: 2's bytes
 * land last. The msghdrs and iovecs stay valid until both are reaped.
 */
static uint64_t recvmsg_pair(struct ctx *c, int socks[2][2], unsigned char *buf,
                             unsigned char *side) {
  struct iovec one = {buf, CHUNK};
  struct iovec two[2] = {{side, MSG_VEC_LEN}, {buf + MSG_VEC_OFF, MSG_VEC_LEN}};
  struct msghdr m1 = {.msg_iov = &one, .msg_iovlen = 1};
  struct msghdr m2 = {.msg_iov = two, .msg_iovlen = 2};
  const uint64_t ud = c->next_user_data;
  c->next_user_data += 2;
  queue_recvmsg(c, socks[0][1], &m1, ud);
  queue_recvmsg(c, socks[1][1], &m2, ud + 1);
  submit_queued(c, 2);
  use_op(c, OP_RECVMSG)->submitted += 2;
  expect_pending(c, "RECVMSG on an empty socket");
  sleep_ms(MSG_HOLD_MS);
  expect_pending(c, "RECVMSG on an empty socket");
  send_block(socks[0][0], ud, CHUNK);
  reap_expect(c, ud, OP_RECVMSG, (int)CHUNK);
  send_block(socks[1][0], ud + 1, 2 * MSG_VEC_LEN);
  reap_expect(c, ud + 1, OP_RECVMSG, (int)(2 * MSG_VEC_LEN));
  if (!slice_matches(buf, MSG_VEC_OFF, ud) || !slice_matches(buf + MSG_VEC_OFF, MSG_VEC_LEN, ud + 1) ||
      !slice_matches(buf + MSG_VEC_OFF + MSG_VEC_LEN, CHUNK - MSG_VEC_OFF - MSG_VEC_LEN, ud) ||
      !slice_matches(side, MSG_VEC_LEN, ud + 1))
    fail("RECVMSGs user_data=%llu,%llu left other data than was sent", (unsigned long long)ud,
         (unsigned long long)ud + 1);
  return ud;
}

/* COUNT such pairs, each into its own 8 KiB (the first buffer, then `side`). */
void scenario_hazard_recvmsg(struct ctx *c) {
  if (c->count > MAX_MSG_PAIRS)
    bad_args("COUNT %lu: at most %lu pairs (one pair line each)", c->count, MAX_MSG_PAIRS);
  if (c->params.sq_entries < 2)
    fail("a pair needs --entries >= 2 (sq_entries is %u)", c->params.sq_entries);
  int socks[2][2];
  for (int k = 0; k < 2; k++)
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, socks[k]) < 0) fail_errno("socketpair");
  unsigned char *bufs = alloc_blocks(2 * (unsigned)c->count);
  note(c, "GROUND-TRUTH hazard overlaps=%lu iovec=1 overlap_len=%u\n", c->count, MSG_VEC_LEN);
  for (unsigned long i = 0; i < c->count; i++) {
    unsigned char *buf = bufs + 2 * i * CHUNK;
    const uint64_t ud = recvmsg_pair(c, socks, buf, buf + CHUNK);
    note(c, "GROUND-TRUTH pair user_data=%llu,%llu addr=%#llx\n", (unsigned long long)ud,
         (unsigned long long)ud + 1, (unsigned long long)(uintptr_t)(buf + MSG_VEC_OFF));
  }
  free(bufs);
  for (int k = 0; k < 2; k++)
    if (close(socks[k][0]) < 0 || close(socks[k][1]) < 0) fail_errno("close");
}
