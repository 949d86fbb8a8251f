// SPDX-License-Identifier: MIT
// The helpers the rules share: labels, shares, evidence and thresholds.
#include "rules/rule_kit.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

std::string ring_label(const Ring& ring) { return fmt::format("ring #{}", ring.id); }

double pct_of(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Evidence count_evidence(std::string key, uint64_t value) {
  return {std::move(key), static_cast<int64_t>(value)};
}

Evidence real_evidence(std::string key, double value) { return {std::move(key), value}; }

void add_lag_evidence(std::vector<Evidence>& out, const std::string& prefix, const Histogram& h) {
  out.push_back(count_evidence(prefix + "p50_ns", h.quantile_ns(0.5)));
  out.push_back(count_evidence(prefix + "p99_ns", h.quantile_ns(0.99)));
  out.push_back(count_evidence(prefix + "max_ns", h.max_ns));
  out.push_back(count_evidence(prefix + "watched", h.count()));
}

Evidence text_evidence(std::string key, std::string value) {
  return {std::move(key), std::move(value)};
}

double thr(ThresholdId id) { return threshold_value(id); }

bool at_least(uint64_t value, ThresholdId id) { return static_cast<double>(value) >= thr(id); }

std::string op_count_list(std::vector<std::pair<uint32_t, uint64_t>> counts, std::size_t limit) {
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < counts.size() && i < limit; ++i) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", opcode_name(counts[i].first), format_count(counts[i].second));
  }
  if (counts.size() > limit) text += fmt::format(" and {} more", counts.size() - limit);
  return text;
}

std::string recorded_ops_suffix(const std::string& ops, bool partial) {
  if (ops.empty()) return {};
  return fmt::format(" ({}{})", partial ? "of those recorded: " : "", ops);
}

}  // namespace uringscope::rules
