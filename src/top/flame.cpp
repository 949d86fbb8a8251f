// SPDX-License-Identifier: MIT
#include "top/flame.h"

#include <cmath>
#include <map>
#include <memory>

#include "uringscope/opcodes.h"

namespace uringscope::top {
namespace {

struct Building {
  std::optional<FilterFrame> push;
  uint64_t weight = 0;
  std::map<std::string, Building> children;  // by label: the order a flame graph uses
};

// What Enter on a frame of `level` pushes; the frames are folded.h's texts, the filter
// values the ring's own (a comm or file name may have had a ';' replaced in its frame).
std::optional<FilterFrame> push_for(std::size_t level, const Ring& ring, const std::string& frame) {
  switch (level) {
    case 0: return comm_filter(ring.comm);
    case 1: return ring_filter(ring);
    case 2: {
      const int opcode = opcode_from_name(frame);
      if (opcode < 0) return std::nullopt;
      return op_filter(static_cast<uint32_t>(opcode));
    }
    default: return file_filter(frame);
  }
}

void add_ring(Building& root, const Ring& ring, FlameWeight weight) {
  Snapshot one;
  one.rings = {ring};
  for (const FoldedStack& stack : folded_stacks(one, weight)) {
    Building* at = &root;
    for (std::size_t level = 0; level < stack.frames.size() && level < kFlameLevels; ++level) {
      auto [it, fresh] = at->children.try_emplace(stack.frames[level]);
      if (fresh) it->second.push = push_for(level, ring, stack.frames[level]);
      it->second.weight += stack.weight;
      at = &it->second;
    }
  }
}

void flatten(const Building& b, std::size_t level, std::size_t parent, FlameGraph& out) {
  for (const auto& [label, child] : b.children) {
    const std::size_t index = out.nodes.size();
    out.nodes.push_back(FlameNode{.label = label, .push = child.push, .weight = child.weight,
                                  .level = level, .parent = parent});
    flatten(child, level + 1, index, out);
  }
}

}  // namespace

FlameGraph build_flame(const Snapshot& total, FlameWeight weight) {
  Building root;
  for (const Ring& ring : total.rings) add_ring(root, ring, weight);
  FlameGraph graph;
  graph.weight = weight;
  for (const auto& [label, child] : root.children) graph.total += child.weight;
  flatten(root, 0, kNoParent, graph);
  return graph;
}

void layout_flame(FlameGraph& graph, std::size_t width) {
  // Where the next child of each node starts, in weight units; roots share one cursor.
  std::vector<uint64_t> next(graph.nodes.size(), 0);
  uint64_t next_root = 0;
  std::vector<uint64_t> start(graph.nodes.size(), 0);
  const double scale = graph.total ? static_cast<double>(width) / static_cast<double>(graph.total) : 0;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    FlameNode& n = graph.nodes[i];
    uint64_t& cursor = n.parent == kNoParent ? next_root : next[n.parent];
    if (n.parent != kNoParent && cursor < start[n.parent]) cursor = start[n.parent];
    start[i] = cursor;
    cursor += n.weight;
    const auto x0 = static_cast<std::size_t>(std::llround(static_cast<double>(start[i]) * scale));
    const auto x1 = static_cast<std::size_t>(std::llround(static_cast<double>(start[i] + n.weight) * scale));
    n.x = x0;
    n.width = x1 > x0 ? x1 - x0 : 0;
  }
}

std::vector<std::size_t> flame_level(const FlameGraph& graph, std::size_t level) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    if (graph.nodes[i].level == level && graph.nodes[i].width > 0) out.push_back(i);
  return out;
}

std::string flame_path(const FlameGraph& graph, std::size_t node) {
  std::string path;
  for (std::size_t i = node; i != kNoParent; i = graph.nodes[i].parent)
    path = graph.nodes[i].label + (path.empty() ? "" : " > " + path);
  return path;
}

}  // namespace uringscope::top
