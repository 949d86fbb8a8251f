// SPDX-License-Identifier: MIT
#include "cli/exit_status.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace uringscope {
namespace {

// These two describe how well uringscope could see, not what the program did.
bool counts_toward_fail_on(const Finding& f) { return f.tag != "TOOL" && f.tag != "NODATA"; }

}  // namespace

std::optional<Severity> parse_fail_on(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "info") return Severity::Info;
  if (lower == "warn") return Severity::Warn;
  if (lower == "crit") return Severity::Crit;
  return std::nullopt;
}

bool findings_trip(const std::vector<Finding>& findings, Severity threshold) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    return counts_toward_fail_on(f) && static_cast<int>(f.severity) >= static_cast<int>(threshold);
  });
}

int exit_status(std::optional<int> command_status, std::optional<Severity> fail_on,
                const std::vector<Finding>& findings) {
  if (command_status && *command_status != 0) return *command_status;
  if (fail_on && findings_trip(findings, *fail_on)) return kExitFindings;
  return 0;
}

}  // namespace uringscope
