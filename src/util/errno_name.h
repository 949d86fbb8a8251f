// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace uringscope {

// "EBADF" for 9; "E<n>" for numbers the C library has no name for.
std::string errno_name(int err);

}  // namespace uringscope
