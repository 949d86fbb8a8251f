// SPDX-License-Identifier: MIT
// The finding vocabulary shared by the rules engine and every renderer.
#include "uringscope/findings.h"

#include <algorithm>

namespace uringscope {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Info: return "INFO";
    case Severity::Warn: return "WARN";
    case Severity::Crit: return "CRIT";
  }
  return "INFO";
}

bool Finding::names_ring(uint32_t id) const {
  if (ring == id) return true;
  return std::binary_search(rings.begin(), rings.end(), id);
}

}  // namespace uringscope
