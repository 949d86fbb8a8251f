// SPDX-License-Identifier: MIT
#include "os/kallsyms.h"

#include <fstream>
#include <string>

namespace uringscope {

uint64_t kallsyms_address(std::string_view name) {
  std::ifstream in("/proc/kallsyms");
  uint64_t found = 0;
  std::string address, type, symbol;
  while (in >> address >> type >> symbol) {
    // A fourth column ("[module]") is only printed for module symbols: skip it.
    if (in.peek() != '\n') in.ignore(1 << 12, '\n');
    if (symbol != name || (type != "t" && type != "T")) continue;
    if (found) return 0;
    found = std::stoull(address, nullptr, 16);
  }
  return found;
}

}  // namespace uringscope
