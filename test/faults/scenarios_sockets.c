// SPDX-License-Identifier: MIT
// Socketpair scenarios: pollretry-socket (a RECV that must arm poll) and
// clean-socket (an echo that never has to).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#include "inject.h"

/* ------------------------------------------------------- socketpair */

#define MSG_SIZE 64u

void prepare_socketpair(struct ctx *c) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->sock) < 0) fail_errno("socketpair");
}

static void fill_msg(unsigned char *dst, uint64_t seq) {
  for (unsigned i = 0; i < MSG_SIZE; i += sizeof(seq)) {
    uint64_t w = (seq + 1) * PATTERN_MAGIC + i;
    memcpy(dst + i, &w, sizeof(w));
  }
}

static bool msg_matches(const unsigned char *src, uint64_t seq) {
  unsigned char want[MSG_SIZE];
  fill_msg(want, seq);
  return memcmp(src, want, MSG_SIZE) == 0;
}

/* ---------------------------------------------------- pollretry-socket */

/*
 * COUNT times: a RECV on an empty socket (the inline nonblocking attempt gets
 * -EAGAIN, so the kernel arms poll: io_uring_poll_arm), then send(2) from the
 * other end, then reap. The CQE must not be there before the send.
 */
void scenario_pollretry_socket(struct ctx *c) {
  struct op_stats *st = use_op(c, OP_RECV);
  unsigned char out[MSG_SIZE], in[MSG_SIZE];
  for (unsigned long i = 0; i < c->count; i++) {
    const uint64_t ud = c->next_user_data++;
    struct io_uring_sqe *sqe = get_sqe(c);
    io_uring_prep_recv(sqe, c->sock[1], in, MSG_SIZE, 0);
    io_uring_sqe_set_data64(sqe, ud);
    submit_queued(c, 1);
    st->submitted++;
    if (io_uring_cq_ready(&c->ring) != 0) fail("RECV on an empty socket completed at once");

    fill_msg(out, i);
    send_all(c->sock[0], out, MSG_SIZE);
    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    count_cqe(st, q.res, q.flags);
    if (q.res != (int)MSG_SIZE)
      fail("RECV user_data=%llu returned %d, expected %u", (unsigned long long)ud, q.res,
           MSG_SIZE);
    if (!msg_matches(in, i)) fail("RECV user_data=%llu returned wrong data", (unsigned long long)ud);
  }
  note(c, "GROUND-TRUTH poll armed=%lu regular=0\n", c->count);
}

/* -------------------------------------------------------- clean-socket */

/*
 * Echo over a socketpair, 16 messages per submit in four steps per batch:
 * SENDs on end 0, RECVs on end 1, SENDs of what arrived back from end 1,
 * RECVs on end 0. Each step is submitted only after the previous one was
 * reaped, so every RECV finds its data and completes inline. COUNT round
 * trips = 2 x COUNT SENDs and 2 x COUNT RECVs, all of exactly MSG_SIZE bytes.
 */
static void socket_step(struct ctx *c, enum op_kind op, int fd, unsigned char *bufs, unsigned n) {
  struct op_stats *st = use_op(c, op);
  const uint64_t first = c->next_user_data;
  bool seen[16];
  for (unsigned i = 0; i < n; i++) {
    struct io_uring_sqe *sqe = get_sqe(c);
    if (op == OP_SEND)
      io_uring_prep_send(sqe, fd, bufs + (size_t)i * MSG_SIZE, MSG_SIZE, MSG_NOSIGNAL);
    else
      io_uring_prep_recv(sqe, fd, bufs + (size_t)i * MSG_SIZE, MSG_SIZE, 0);
    io_uring_sqe_set_data64(sqe, c->next_user_data++);
    seen[i] = false;
  }
  submit_queued(c, n);
  st->submitted += n;
  for (unsigned done = 0; done < n; done++) {
    struct cqe_copy q = reap(c);
    batch_index(q.ud, first, n, seen);
    count_cqe(st, q.res, q.flags);
    if (q.res != (int)MSG_SIZE)
      fail("%s user_data=%llu returned %d, expected %u", op_names[op], (unsigned long long)q.ud,
           q.res, MSG_SIZE);
  }
}

void scenario_clean_socket(struct ctx *c) {
  unsigned char out[16 * MSG_SIZE], mid[16 * MSG_SIZE], back[16 * MSG_SIZE];
  uint64_t seq = 0;
  unsigned long remaining = c->count;
  while (remaining > 0) {
    unsigned n = batch_size(c, 16, remaining);
    for (unsigned i = 0; i < n; i++) fill_msg(out + (size_t)i * MSG_SIZE, seq + i);
    socket_step(c, OP_SEND, c->sock[0], out, n);
    socket_step(c, OP_RECV, c->sock[1], mid, n);
    socket_step(c, OP_SEND, c->sock[1], mid, n);
    socket_step(c, OP_RECV, c->sock[0], back, n);
    for (unsigned i = 0; i < n; i++)
      if (!msg_matches(back + (size_t)i * MSG_SIZE, seq + i))
        fail("echoed message %llu came back wrong", (unsigned long long)(seq + i));
    seq += n;
    remaining -= n;
  }
}
