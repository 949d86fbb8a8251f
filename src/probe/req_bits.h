// SPDX-License-Identifier: MIT
// REQ_F_*_BIT numbers, looked up by name in kernel BTF for the BPF side.
#pragma once

#include <array>

#include <linux/types.h>

#include "uringscope.h"

struct btf;  // libbpf

namespace uringscope {

// Indexed by enum us_req_flag; -1 where the kernel has no such enumerator.
std::array<int, US_RF__COUNT> find_req_bits(const btf* vmlinux);

}  // namespace uringscope
