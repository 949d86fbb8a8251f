// SPDX-License-Identifier: MIT
// fork: the process forks a child that opens a ring of its own, so -f has something to
// follow. The child prints its own GROUND-TRUTH block (scenario=fork-child, its pid and
// ring) before the parent's.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject.h"

static const struct scenario child_scenario = {"fork-child", 0, "none", 0, 0, NULL, NULL, 0};

// A context for the child's own ring: the parent's ring fd is inherited across fork,
// and the child must not submit to it.
static void run_child(unsigned long count) {
  struct ctx child;
  memset(&child, 0, sizeof(child));
  child.file_fd = child.pipe_rd = child.pipe_wr = -1;
  child.sock[0] = child.sock[1] = -1;
  child.fifo_path_fd = -1;
  child.count = count;
  child.next_user_data = 1;
  setup_ring(&child, 64, 0, 0);
  run_batched(&child, OP_NOP, 16, 0);
  report(&child, &child_scenario);
  io_uring_queue_exit(&child.ring);
}

void scenario_fork(struct ctx *c) {
  if (fflush(stdout) != 0) fail_errno("fflush");
  pid_t pid = fork();
  if (pid < 0) fail_errno("fork");
  if (pid == 0) {
    run_child(c->count);
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) fail_errno("waitpid");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail("fork: the child failed");
  // The parent's own requests, on its own ring, after the child's.
  run_batched(c, OP_NOP, 16, 0);
}
