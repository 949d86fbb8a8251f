// SPDX-License-Identifier: MIT
#include "probe/req_bits.h"

#include <bpf/btf.h>

#include <cstdint>
#include <string_view>

#include "probe/btf_access.h"

namespace uringscope {

// The REQ_F_*_BIT enum is anonymous, so CO-RE cannot relocate it: find the enumerators
// by name wherever they are. A number outside a 64-bit flags word cannot be a bit, so
// it counts as absent rather than being handed to the BPF side as a shift.
std::array<int, US_RF__COUNT> find_req_bits(const btf* vmlinux) {
  struct Wanted {
    std::string_view name;
    us_req_flag slot;
  };
  static constexpr Wanted kWanted[] = {
      {"REQ_F_FORCE_ASYNC_BIT", US_RF_FORCE_ASYNC},
      {"REQ_F_CQE_SKIP_BIT", US_RF_CQE_SKIP},
      {"REQ_F_ISREG_BIT", US_RF_ISREG},
  };
  std::array<int, US_RF__COUNT> bits;
  bits.fill(-1);
  const __u32 count = btf__type_cnt(vmlinux);
  for (__u32 id = 1; id < count; ++id) {
    const btf_type* type = btf__type_by_id(vmlinux, id);
    if (type == nullptr || !btf_is_any_enum(type)) continue;
    for (const EnumConstant& e : enum_constants(vmlinux, type)) {
      for (const Wanted& wanted : kWanted) {
        if (wanted.name != e.name || bits[wanted.slot] != -1) continue;
        if (e.value >= 0 && e.value < 64) bits[wanted.slot] = static_cast<int>(e.value);
      }
    }
  }
  return bits;
}

}  // namespace uringscope
