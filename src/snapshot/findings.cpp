// SPDX-License-Identifier: MIT
// The finding vocabulary shared by the rules engine and every renderer.
#include "uringscope/findings.h"

namespace uringscope {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Info: return "INFO";
    case Severity::Warn: return "WARN";
    case Severity::Crit: return "CRIT";
  }
  return "INFO";
}

}  // namespace uringscope
