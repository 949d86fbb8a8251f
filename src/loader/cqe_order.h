// SPDX-License-Identifier: MIT
// The CQE order probe: whether io_uring_complete fires before or after the kernel's
// cached CQ tail counts the CQE. The order moved between releases without a trace in
// BTF, and the boundary's CQ depth and reap lag (bpf/boundary.bpf.h) need it to the
// slot, so uringscope asks the running kernel: it posts one NOP, with a user_data the
// complete program knows, on a ring of its own, once its programs are attached.
#pragma once

#include <cstdint>

namespace uringscope {

// bpf/boundary_cqe.bpf.h's US_CQE_ORDER_USER_DATA ("usc-ordr").
inline constexpr uint64_t kCqeOrderUserData = 0x7573632d6f726472ull;

// Sets up a one-entry ring with raw system calls (the tool links no liburing), posts the
// NOP, waits for its CQE and tears the ring down. False when any step failed: the
// kernel then stays unasked and the boundary is reported as not measured.
bool post_cqe_order_nop();

}  // namespace uringscope
