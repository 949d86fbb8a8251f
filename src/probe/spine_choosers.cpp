// SPDX-License-Identifier: MIT
#include "probe/choosers.h"

#include <string>

namespace uringscope {

Choice<SubmitShape> choose_submit(const btf* vmlinux) {
  constexpr auto kOff = SubmitShape::Unrecognised;
  const Prototype req = find_tracepoint(vmlinux, "submit_req");
  if (req.status == Prototype::Status::Malformed)
    return {kOff, malformed_reason("submit_req", loss_of(FeatureId::Submit)), {}};
  if (req.status == Prototype::Status::Found) {
    if (req.args != 1) return {kOff, arg_count_reason("submit_req", req.args, loss_of(FeatureId::Submit)), {}};
    return {SubmitShape::SubmitReq, "io_uring_submit_req(req), 6.4+ shape", "usc_sub_req"};
  }

  const Prototype sqe = find_tracepoint(vmlinux, "submit_sqe");
  switch (sqe.status) {
    case Prototype::Status::Absent:
      return {SubmitShape::None,
              join("no io_uring_submit_req or io_uring_submit_sqe tracepoint", loss_of(FeatureId::Submit)),
              {}};
    case Prototype::Status::Malformed:
      return {kOff, malformed_reason("submit_sqe", loss_of(FeatureId::Submit)), {}};
    case Prototype::Status::Found:
      break;
  }
  if (sqe.args == 2)
    return {SubmitShape::SubmitSqe, "io_uring_submit_sqe(req, force_nonblock), 6.0-6.3 shape",
            "usc_sub_sqe"};
  if (sqe.args != 7) return {kOff, arg_count_reason("submit_sqe", sqe.args, loss_of(FeatureId::Submit)), {}};
  // 5.15-5.17 and 5.18-5.19 both have 7 args; only the third tells them apart.
  switch (int_arg_size(vmlinux, sqe, 2)) {
    case 1:
      return {SubmitShape::SubmitSqe515,
              "io_uring_submit_sqe(ctx, req, opcode, user_data, ...), 5.15-5.17 shape",
              "usc_sub_sqe_ctx"};
    case 8:
      return {SubmitShape::SubmitSqe518,
              "io_uring_submit_sqe(ctx, req, user_data, opcode, ...), 5.18-5.19 shape",
              "usc_sub_sqe_ctx"};
    default:
      return {kOff,
              join("io_uring_submit_sqe has 7 args but arg 2 is neither a u8 opcode nor a u64 "
                   "user_data: unrecognised prototype",
                   loss_of(FeatureId::Submit), "; "),
              {}};
  }
}

Choice<CompleteShape> choose_complete(const btf* vmlinux) {
  auto choice = choose_shape<CompleteShape>(
      vmlinux, "complete",
      {{3, CompleteShape::Cqe, "io_uring_complete(ctx, req, cqe), 6.13+ shape", "usc_cqe"},
       {7, CompleteShape::Req7,
        "io_uring_complete(ctx, req, user_data, res, cflags, extra1, extra2), 5.19-6.12 shape",
        "usc_cqe_req"},
       // usc_cqe_req reads only args 0..4, which 5.18 has in the same order.
       {5, CompleteShape::Req5, "io_uring_complete(ctx, req, user_data, res, cflags), 5.18 shape",
        "usc_cqe_req"},
       {4, CompleteShape::Legacy4,
        "io_uring_complete(ctx, user_data, res, cflags), 5.15-5.17 shape: no request pointer, "
        "completions are matched to requests by user_data",
        "usc_cqe_ud"}},
      CompleteShape::None, CompleteShape::Unrecognised, "no io_uring_complete tracepoint",
      loss_of(FeatureId::Complete));
  // usc_cqe loads the CQ ring's indices straight through its ctx, which the verifier
  // allows only for a typed pointer.
  if (choice.shape == CompleteShape::Cqe &&
      !arg_points_to_struct(vmlinux, find_tracepoint(vmlinux, "complete"), 0, "io_ring_ctx"))
    return {CompleteShape::Unrecognised,
            join("io_uring_complete has 3 args but its ctx is not a struct io_ring_ctx *: "
                 "unrecognised prototype",
                 loss_of(FeatureId::Complete), "; "),
            {}};
  return choice;
}

Choice<PuntShape> choose_punt(const btf* vmlinux) {
  return choose_shape<PuntShape>(
      vmlinux, "queue_async_work",
      {{2, PuntShape::Req2, "io_uring_queue_async_work(req, rw), 6.0+ shape", "usc_punt"},
       {7, PuntShape::Legacy7,
        "io_uring_queue_async_work(ctx, req, user_data, opcode, flags, work, rw), 5.18-5.19 shape",
        "usc_punt_ctx_req"},
       {5, PuntShape::Legacy5,
        "io_uring_queue_async_work(ctx, rw, req, work, flags), 5.15-5.17 shape", "usc_punt_ctx_rw"}},
      PuntShape::None, PuntShape::Unrecognised, "no io_uring_queue_async_work tracepoint",
      loss_of(FeatureId::Punt));
}

}  // namespace uringscope
