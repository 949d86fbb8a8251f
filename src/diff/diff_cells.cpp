// SPDX-License-Identifier: MIT
#include "diff/diff_cells.h"

#include <cmath>

#include "util/format.h"

namespace uringscope {
namespace {

std::string with_sign(double value, const std::string& magnitude) {
  return (value < 0 ? "-" : "+") + magnitude;
}

}  // namespace

std::string change_pct(std::optional<double> pct) {
  if (!pct) return "n/a";
  if (*pct == 0.0) return "=";
  return with_sign(*pct, format_percent(std::fabs(*pct)));
}

std::string change_points(double before_pct, double after_pct) {
  double points = after_pct - before_pct;
  if (points == 0.0) return "=";
  return with_sign(points, format_fixed(std::fabs(points), 1) + "pp");
}

std::string change_count(uint64_t before, uint64_t after) {
  if (before == after) return "=";
  return after > before ? "+" + format_count(after - before) : "-" + format_count(before - after);
}

}  // namespace uringscope
