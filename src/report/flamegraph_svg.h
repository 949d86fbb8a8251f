// SPDX-License-Identifier: MIT
// --flamegraph FILE.svg: the folded stacks drawn as an interactive flame graph, one
// self-contained SVG (no external script or font): the root at the bottom, each frame's
// width its share of the weight, children in name order as flamegraph.pl draws them.
// A click zooms into a frame, Ctrl-F (or the Search button) highlights the frames that
// match and says what share of the weight they hold; the script also fits each label to
// its frame with the browser's own text metrics.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "report/folded.h"

namespace uringscope {

struct FlameGraphOptions {
  std::string title = "uringscope I/O flame graph";
  std::string subtitle;         // what the run was: the target, the window
  FlameWeight weight = FlameWeight::Count;
  int width = 1200;             // px
};

void render_flamegraph_svg(std::ostream& out, const std::vector<FoldedStack>& stacks,
                           const FlameGraphOptions& opts);

// The script the SVG carries (flamegraph_script.cpp): zoom, search, label fitting.
std::string_view flamegraph_script();

}  // namespace uringscope
