// SPDX-License-Identifier: MIT
// Which io_uring opcodes the running kernel has, from its BTF: what --list-ops marks.
#pragma once

#include <cstdint>
#include <map>
#include <string>

struct btf;

namespace uringscope {

// The IORING_OP_* enumerators of the kernel's enum io_uring_op by value, without the
// prefix; empty when there is no BTF, no such enum (5.15's naming is unverified,
// docs/kernel-facts.md §3) or no op in it.
std::map<uint32_t, std::string> kernel_opcodes(const btf* vmlinux);

}  // namespace uringscope
