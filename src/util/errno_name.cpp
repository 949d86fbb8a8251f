// SPDX-License-Identifier: MIT
#include "util/errno_name.h"

#include <cstring>

namespace uringscope {

std::string errno_name(int err) {
  // glibc 2.32+; the symbolic name is what users grep their code for.
  if (const char* name = strerrorname_np(err)) return name;
  return "E" + std::to_string(err);
}

}  // namespace uringscope
