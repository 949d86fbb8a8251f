// SPDX-License-Identifier: MIT
// evaluate(): runs every rule in kRules over the snapshot, then orders the findings.
#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>
#include <vector>

#include "rules/rule_kit.h"
#include "uringscope/findings.h"

namespace uringscope {

namespace {

using Rule = void (*)(const Snapshot&, std::vector<Finding>&);
constexpr std::array<Rule, 15> kRules = {
    &rules::rule_nodata,     &rules::rule_overflow, &rules::rule_punt,     &rules::rule_workers,
    &rules::rule_batch,      &rules::rule_sqpoll,   &rules::rule_defer_tw, &rules::rule_short_write,
    &rules::rule_poll_retry, &rules::rule_errors,   &rules::rule_leak,     &rules::rule_tool,
    &rules::rule_hazard,     &rules::rule_reap_lag, &rules::rule_sq_wait,
};

}  // namespace

std::vector<Finding> evaluate(const Snapshot& snapshot) {
  std::vector<Finding> findings;
  for (Rule rule : kRules) rule(snapshot, findings);
  rules::group_by_cause(snapshot, findings);

  // Stable, so a rule's own order (parent before detail rows, ascending opcode) survives
  // among findings with equal keys.
  auto key = [](const Finding& f) {
    return std::make_tuple(-static_cast<int>(f.severity), f.ring.has_value(), f.ring.value_or(0),
                           std::string_view(f.tag), f.opcode.has_value(), f.opcode.value_or(0));
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&key](const Finding& a, const Finding& b) { return key(a) < key(b); });
  return findings;
}

}  // namespace uringscope
