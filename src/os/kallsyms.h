// SPDX-License-Identifier: MIT
// Kernel symbol addresses from /proc/kallsyms, for programs that compare a pointer the
// kernel hands them with a known function.
#pragma once

#include <cstdint>
#include <string_view>

namespace uringscope {

// The address of the text symbol `name`, or 0 when it is absent, ambiguous (a static
// function defined in several files), or hidden (kptr_restrict prints zeros).
uint64_t kallsyms_address(std::string_view name);

}  // namespace uringscope
