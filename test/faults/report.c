// SPDX-License-Identifier: MIT
// The GROUND-TRUTH lines: the per-op counters, the scenario's own notes and the
// submit totals, printed once the workload has run.
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "inject.h"

// POLL_ADD and POLL_REMOVE match uringscope's opcode names. INVALID is not an
// opcode name: its number is printed on a separate line.
const char *const op_names[OP_KIND_COUNT] = {
    [OP_NOP] = "NOP",
    [OP_READ] = "READ",
    [OP_POLL_ADD] = "POLL_ADD",
    [OP_POLL_REMOVE] = "POLL_REMOVE",
    [OP_INVALID] = "INVALID",
    [OP_OPENAT] = "OPENAT",
    [OP_RECV] = "RECV",
    [OP_SEND] = "SEND",
    [OP_WRITE] = "WRITE",
    [OP_SEND_ZC] = "SEND_ZC",
    [OP_SENDMSG_ZC] = "SENDMSG_ZC",
    [OP_TIMEOUT] = "TIMEOUT",
    [OP_READV] = "READV",
    [OP_READ_FIXED] = "READ_FIXED",
    [OP_RECVMSG] = "RECVMSG",
};

__attribute__((format(printf, 2, 3))) void note(struct ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(c->notes + c->notes_len, sizeof(c->notes) - c->notes_len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof(c->notes) - c->notes_len) fail("internal: notes buffer full");
  c->notes_len += (size_t)n;
}

void report(const struct ctx *c, const struct scenario *s) {
  printf("GROUND-TRUTH scenario=%s pid=%ld expect=%s\n", s->name, (long)getpid(), s->expect);
  printf("GROUND-TRUTH ring fd=%d sq_entries=%u cq_entries=%u flags=%u\n", c->ring.ring_fd,
         c->params.sq_entries, c->params.cq_entries, c->params.flags);
  for (int op = 0; op < OP_KIND_COUNT; op++) {
    const struct op_stats *st = &c->ops[op];
    if (!st->used) continue;
    printf("GROUND-TRUTH op=%s submitted=%llu completed=%llu forced_async=%llu errors=%llu",
           op_names[op], st->submitted, st->completed, st->forced_async, st->errors);
    if (st->show_multishot) printf(" multishot_cqes=%llu", st->multishot_cqes);
    if (st->show_before_ready) printf(" submitted_before_ready=%llu", st->before_ready);
    // Only where the result is a byte count (a POLL_ADD's is an event mask).
    if (op == OP_READ || op == OP_WRITE || op == OP_RECV || op == OP_SEND || op == OP_SEND_ZC ||
        op == OP_SENDMSG_ZC)
      printf(" bytes=%llu", st->positive_results);
    putchar('\n');
  }
  fputs(c->notes, stdout);
  printf("GROUND-TRUTH submit_calls=%llu sqes=%llu\n", c->submit_calls, c->sqes);
  // A test reading a pipe must not see a partial report, and a failed write
  // must not pass as success.
  if (fflush(stdout) != 0 || ferror(stdout)) fail_errno("writing stdout");
}
