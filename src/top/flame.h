// SPDX-License-Identifier: MIT
// The live flame graph of `uringscope top`: comm -> ring -> op -> file, a frame's width
// its share of CQEs, bytes or time since the baseline. Built from the same folded stacks
// as --folded (report/folded.h), so its widths are what --flamegraph would draw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/folded.h"
#include "top/filter.h"
#include "uringscope/snapshot.h"

namespace uringscope::top {

inline constexpr std::size_t kFlameLevels = 4;  // comm, ring, op, file
inline constexpr std::size_t kNoParent = SIZE_MAX;

struct FlameNode {
  std::string label;
  std::optional<FilterFrame> push;  // Enter pushes it: the frame zooms in as a filter
  uint64_t weight = 0;
  std::size_t level = 0;
  std::size_t parent = kNoParent;
  std::size_t x = 0;      // columns, from layout_flame()
  std::size_t width = 0;  // 0: too narrow to draw at this width
};

struct FlameGraph {
  FlameWeight weight = FlameWeight::Count;
  uint64_t total = 0;
  // Depth first, siblings by label, so every level reads left to right.
  std::vector<FlameNode> nodes;
};

FlameGraph build_flame(const Snapshot& total, FlameWeight weight);
// Widths in proportion to the weights over `width` columns; every level shares one scale,
// so a frame sits exactly over its parent's span.
void layout_flame(FlameGraph& graph, std::size_t width);
// The drawn (width > 0) nodes of one level, left to right.
std::vector<std::size_t> flame_level(const FlameGraph& graph, std::size_t level);
// The frames from the root down to `node`, joined with " > ".
std::string flame_path(const FlameGraph& graph, std::size_t node);

}  // namespace uringscope::top
