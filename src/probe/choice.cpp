// SPDX-License-Identifier: MIT
#include "probe/choice.h"

namespace uringscope {

std::string join(std::string_view head, std::string_view loss, std::string_view sep) {
  std::string out(head);
  out += sep;
  out += loss;
  return out;
}

std::string arg_count_reason(std::string_view event, int args, std::string_view loss) {
  return join("io_uring_" + std::string(event) + " has " + std::to_string(args) +
                  " args: unrecognised prototype",
              loss, "; ");
}

std::string malformed_reason(std::string_view event, std::string_view loss) {
  return join("btf_trace_io_uring_" + std::string(event) +
                  " is not a pointer to a function prototype: unrecognised prototype",
              loss, "; ");
}

}  // namespace uringscope
