// SPDX-License-Identifier: MIT
#include "probe/choosers.h"

#include <string>

namespace uringscope {

// create and cqe_overflow have kept one prototype since they appeared; a different
// count means a kernel we have not seen, and tp_btf would reject the program anyway.
Choice<bool> choose_create(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "create",
      {{5, true, "io_uring_create(fd, ctx, sq_entries, cq_entries, flags), 5.15+ shape", "usc_create"}},
      "no io_uring_create tracepoint", FeatureId::Create);
}

Choice<bool> choose_overflow(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "cqe_overflow",
      {{5, true, "io_uring_cqe_overflow(ctx, user_data, res, cflags, ocqe), 5.19+ shape",
        "usc_cqe_ovf"}},
      "no io_uring_cqe_overflow tracepoint (added in 5.19)", FeatureId::Overflow);
}


Choice<bool> choose_poll_arm(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "poll_arm",
      {{3, true, "io_uring_poll_arm(req, mask, events), 6.0+ shape", "usc_poll_arm"},
       {6, true, "io_uring_poll_arm(ctx, req, ...), 5.15-5.19 shape", "usc_poll_arm_ctx"}},
      "no io_uring_poll_arm tracepoint", FeatureId::PollArm);
}

Choice<bool> choose_task_add(const btf* vmlinux) {
  // The 5.15-5.19 shapes lead with ctx and differ among themselves; only 6.0+ is read.
  return choose_by_args(vmlinux, "task_add",
                        {{2, true, "io_uring_task_add(req, mask), 6.0+ shape", "usc_task_add"}},
                        "no io_uring_task_add tracepoint", FeatureId::TaskAdd);
}

Choice<bool> choose_task_work(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "task_work_run",
      {{2, true, "io_uring_task_work_run(tctx, count), 6.9+ shape", "usc_tw_run"},
       {3, true, "io_uring_task_work_run(tctx, count, loops), 6.0-6.8 shape", "usc_tw_run"}},
      "no io_uring_task_work_run tracepoint (added in 6.0)", FeatureId::TaskWork);
}

Choice<bool> choose_local_work(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "local_work_run",
      {{3, true, "io_uring_local_work_run(ctx, count, loops), 6.1+ shape", "usc_local_tw"}},
      "no io_uring_local_work_run tracepoint (added in 6.1 with DEFER_TASKRUN)",
      FeatureId::LocalWork);
}

Choice<bool> choose_short_write(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "short_write",
      {{4, true, "io_uring_short_write(ctx, fpos, wanted, got), 6.0+ shape", "usc_short_write"}},
      "no io_uring_short_write tracepoint (added in 6.0)", FeatureId::ShortWrite);
}

Choice<bool> choose_req_failed(const btf* vmlinux) {
  // 5.16-5.17 (sqe, error) and 5.18-5.19 (sqe, ctx, req, error) are not read.
  return choose_by_args(
      vmlinux, "req_failed",
      {{3, true, "io_uring_req_failed(sqe, req, error), 6.0+ shape", "usc_req_failed"}},
      "no io_uring_req_failed tracepoint", FeatureId::ReqFailed);
}

}  // namespace uringscope
