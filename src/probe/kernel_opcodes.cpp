// SPDX-License-Identifier: MIT
#include "probe/kernel_opcodes.h"

#include <string_view>

#include "probe/btf_access.h"

namespace uringscope {

std::map<uint32_t, std::string> kernel_opcodes(const btf* vmlinux) {
  constexpr std::string_view kPrefix = "IORING_OP_";
  std::map<uint32_t, std::string> ops;
  if (vmlinux == nullptr) return ops;
  for (EnumConstant e : enum_constants(vmlinux, find_enum(vmlinux, "io_uring_op"))) {
    if (!e.name.starts_with(kPrefix)) continue;
    e.name.remove_prefix(kPrefix.size());
    // IORING_OP_LAST is the count of ops, not an op.
    if (e.name == "LAST" || e.name.empty() || e.value < 0 || e.value > UINT32_MAX) continue;
    ops.emplace(static_cast<uint32_t>(e.value), std::string(e.name));
  }
  return ops;
}

}  // namespace uringscope
