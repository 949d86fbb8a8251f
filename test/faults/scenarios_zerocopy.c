// SPDX-License-Identifier: MIT
// Zero-copy sends over loopback TCP: zc-send. Each SEND_ZC/SENDMSG_ZC posts two CQEs:
// its result (with IORING_CQE_F_MORE) and, once the kernel is done with the buffer, a
// notification (IORING_CQE_F_NOTIF) from an internal request the program never
// submitted. Neither is a multishot CQE, and the notification ends the request.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inject.h"

#define ZC_MSG_SIZE 1024u

/* c->sock[0]: the client end that sends; c->sock[1]: the accepted server end. */
void prepare_tcp_loopback(struct ctx *c) {
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof(addr);
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) fail_errno("socket");
  if (bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0) fail_errno("bind");
  if (listen(listener, 1) < 0) fail_errno("listen");
  if (getsockname(listener, (struct sockaddr *)&addr, &len) < 0) fail_errno("getsockname");
  c->sock[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->sock[0] < 0) fail_errno("socket");
  if (connect(c->sock[0], (struct sockaddr *)&addr, sizeof(addr)) < 0) fail_errno("connect");
  c->sock[1] = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
  if (c->sock[1] < 0) fail_errno("accept4");
  close(listener);
  int one = 1;
  if (setsockopt(c->sock[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
    fail_errno("setsockopt TCP_NODELAY");
}

static void recv_exactly(int fd, unsigned char *buf, size_t len) {
  while (len > 0) {
    ssize_t r = recv(fd, buf, len, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) fail_errno("recv");
    buf += r;
    len -= (size_t)r;
  }
}

static void prep_zc(struct io_uring_sqe *sqe, enum op_kind op, int fd, unsigned char *buf,
                    struct msghdr *msg, struct iovec *iov) {
  if (op == OP_SEND_ZC) {
    io_uring_prep_send_zc(sqe, fd, buf, ZC_MSG_SIZE, MSG_NOSIGNAL, 0);
    return;
  }
  *iov = (struct iovec){.iov_base = buf, .iov_len = ZC_MSG_SIZE};
  *msg = (struct msghdr){.msg_iov = iov, .msg_iovlen = 1};
  io_uring_prep_sendmsg_zc(sqe, fd, msg, MSG_NOSIGNAL);
}

/*
 * One zero-copy send and both its CQEs: the result first (res = bytes, F_MORE), then,
 * after the peer has read the bytes, the notification (F_NOTIF, same user_data).
 */
static void zc_send_one(struct ctx *c, enum op_kind op, unsigned char *out, unsigned char *in) {
  struct op_stats *st = use_op(c, op);
  struct msghdr msg;
  struct iovec iov;
  const uint64_t ud = c->next_user_data++;
  struct io_uring_sqe *sqe = get_sqe(c);
  prep_zc(sqe, op, c->sock[0], out, &msg, &iov);
  io_uring_sqe_set_data64(sqe, ud);
  submit_queued(c, 1);
  st->submitted++;
  bool result = false, notified = false;
  while (!result || !notified) {
    struct cqe_copy q = reap(c);
    if (q.ud != ud) fail("unexpected completion user_data=%llu", (unsigned long long)q.ud);
    st->completed++;
    if (q.res > 0) st->positive_results += (unsigned)q.res;
    if (q.flags & IORING_CQE_F_NOTIF) {
      if (!result || notified) fail("%s user_data=%llu: notification out of order", op_names[op],
                                    (unsigned long long)ud);
      notified = true;
      continue;
    }
    if (q.res != (int)ZC_MSG_SIZE)
      fail("%s user_data=%llu returned %d, expected %u", op_names[op], (unsigned long long)ud,
           q.res, ZC_MSG_SIZE);
    if (!(q.flags & IORING_CQE_F_MORE))
      fail("%s user_data=%llu: result CQE without F_MORE", op_names[op], (unsigned long long)ud);
    result = true;
    recv_exactly(c->sock[1], in, ZC_MSG_SIZE);
  }
}

/* COUNT sends, alternating SEND_ZC and SENDMSG_ZC, one in flight at a time. */
void scenario_zc_send(struct ctx *c) {
  static unsigned char out[ZC_MSG_SIZE], in[ZC_MSG_SIZE];
  memset(out, 0x5a, sizeof(out));
  unsigned long sends[2] = {0, 0};
  for (unsigned long i = 0; i < c->count; i++) {
    enum op_kind op = i % 2 ? OP_SENDMSG_ZC : OP_SEND_ZC;
    zc_send_one(c, op, out, in);
    sends[op == OP_SENDMSG_ZC]++;
  }
  note(c, "GROUND-TRUTH zc send_zc=%lu sendmsg_zc=%lu notifications=%lu\n", sends[0], sends[1],
       c->count);
}
