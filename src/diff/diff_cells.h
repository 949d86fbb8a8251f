// SPDX-License-Identifier: MIT
// The cells of the diff's tables: a change as "+12.5%", "-3.0pp", "+40" or "=", so
// every table of report_diff*.cpp writes one the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace uringscope {

inline constexpr std::string_view kDiffMissing = "-";  // the side a row is absent from
inline constexpr std::string_view kDiffUnknown = "?";  // a value the report did not carry

// "=" only for exactly no change: a change that rounds to 0.0% still shows its sign;
// "n/a" from zero (no ratio to show).
std::string change_pct(std::optional<double> pct);
// after - before, in percentage points.
std::string change_points(double before_pct, double after_pct);
// after - before as a signed count.
std::string change_count(uint64_t before, uint64_t after);

// A change for the JSON diff: the number, or null where there is none to give.
inline nlohmann::ordered_json optional_json(std::optional<double> value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace uringscope
