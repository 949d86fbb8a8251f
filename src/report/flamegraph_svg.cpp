// SPDX-License-Identifier: MIT
#include "report/flamegraph_svg.h"

#include <algorithm>
#include <cstdint>
#include <ostream>

#include <fmt/format.h>

#include "util/format.h"
#include "util/utf8.h"

namespace uringscope {
namespace {

constexpr double kFrameHeight = 16;
constexpr double kPad = 10;
constexpr double kTop = 66;     // title, subtitle, the buttons' row
constexpr double kBottom = 30;  // the details line under the root
constexpr double kFontSize = 12;
constexpr double kCharWidth = 0.59 * kFontSize;  // Verdana's average: the pre-fit only
constexpr double kMinWidth = 0.1;                // px: narrower frames are not drawn

struct FlameNode {
  std::string name;
  uint64_t value = 0;
  std::vector<FlameNode> children;  // name order: the stacks come sorted
};

FlameNode build_tree(std::vector<FoldedStack> stacks) {
  std::sort(stacks.begin(), stacks.end(),
            [](const FoldedStack& a, const FoldedStack& b) { return a.frames < b.frames; });
  FlameNode root;
  root.name = "all";
  for (const FoldedStack& stack : stacks) {
    FlameNode* node = &root;
    node->value += stack.weight;
    for (const std::string& frame : stack.frames) {
      // Sorted stacks put a frame's siblings with one name next to each other.
      if (node->children.empty() || node->children.back().name != frame) {
        node->children.emplace_back().name = frame;
      }
      node = &node->children.back();
      node->value += stack.weight;
    }
  }
  return root;
}

int tree_depth(const FlameNode& node) {
  int deepest = 0;
  for (const FlameNode& child : node.children) deepest = std::max(deepest, tree_depth(child));
  return deepest + 1;
}

// Valid XML text or attribute: UTF-8 checked, markup escaped, control bytes dropped.
std::string xml_text(std::string_view raw) {
  std::string utf8;
  append_utf8_sanitized(utf8, raw, kUtf8Replacement);
  std::string out;
  for (char c : utf8) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

std::string weight_text(uint64_t value, FlameWeight weight) {
  switch (weight) {
    case FlameWeight::Count: return format_count(value) + " CQEs";
    case FlameWeight::Bytes: return format_bytes(value);
    case FlameWeight::Time: return format_duration(value) + " in flight";
  }
  return format_count(value);
}

// flamegraph.pl's warm palettes for the program's frames, its blue "io" one for files:
// the hue says the level, a hash of the name varies it so neighbours stay apart.
std::string frame_fill(std::string_view name, int depth) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  const double a = (h & 0xff) / 255.0, b = ((h >> 8) & 0xff) / 255.0;
  const auto mix = [](int lo, int hi, double v) { return lo + static_cast<int>((hi - lo) * v); };
  switch (depth) {
    case 0: return "rgb(210,210,210)";
    case 1: return fmt::format("rgb({},{},{})", mix(205, 255, a), mix(60, 140, b), 50);
    case 2: return fmt::format("rgb({},{},{})", mix(220, 255, a), mix(140, 190, b), 40);
    case 3: return fmt::format("rgb({},{},{})", mix(210, 240, a), mix(200, 230, b), 70);
    default: return fmt::format("rgb({},{},{})", mix(80, 130, a), mix(150, 200, b), 235);
  }
}

std::string prefit_label(std::string_view name, double width) {
  const auto fits = static_cast<std::size_t>(std::max(0.0, (width - 6) / kCharWidth));
  if (fits < 3) return "";
  if (name.size() <= fits) return std::string(name);
  return std::string(name.substr(0, fits - 2)) + "..";
}

struct Canvas {
  std::ostream& out;
  const FlameGraphOptions& opts;
  double inner_width;
  double total;
  double root_y;
};

void draw(const Canvas& c, const FlameNode& node, int depth, double x) {
  const double width = static_cast<double>(node.value) / c.total * c.inner_width;
  if (width < kMinWidth) return;
  const double y = c.root_y - depth * kFrameHeight;
  const std::string name = xml_text(node.name);
  c.out << fmt::format(
      "<g class=\"f\" data-name=\"{}\" data-v=\"{}\"><title>{} ({}, {:.2f}%)</title>"
      "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" "
      "rx=\"2\" ry=\"2\"/><text x=\"{:.2f}\" y=\"{:.1f}\">{}</text></g>\n",
      name, node.value, name, xml_text(weight_text(node.value, c.opts.weight)),
      100.0 * static_cast<double>(node.value) / c.total, x, y, width, kFrameHeight - 1,
      frame_fill(node.name, depth), x + 3, y + 11.5,
      xml_text(prefit_label(node.name, width)));
  double child_x = x;
  for (const FlameNode& child : node.children) {
    draw(c, child, depth + 1, child_x);
    child_x += static_cast<double>(child.value) / c.total * c.inner_width;
  }
}

void draw_chrome(std::ostream& out, const FlameGraphOptions& opts, double height,
                 uint64_t total) {
  const double w = opts.width;
  out << fmt::format(
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#f8f8f4\"/>\n"
      "<text id=\"title\" x=\"{2}\" y=\"22\" text-anchor=\"middle\" font-size=\"17\">{3}</text>\n"
      "<text id=\"subtitle\" x=\"{2}\" y=\"40\" text-anchor=\"middle\" fill=\"#555\">{4}</text>\n"
      "<text id=\"unzoom\" class=\"button hide\" x=\"{5}\" y=\"58\">Reset zoom</text>\n"
      "<text id=\"search\" class=\"button\" x=\"{6}\" y=\"58\" text-anchor=\"end\">Search</text>\n"
      "<text id=\"matched\" x=\"{6}\" y=\"{7}\" text-anchor=\"end\"> </text>\n"
      "<text id=\"details\" x=\"{5}\" y=\"{7}\"> </text>\n",
      w, height, w / 2, xml_text(opts.title),
      xml_text(fmt::format("{}{}width: {} ({}; {})", opts.subtitle,
                           opts.subtitle.empty() ? "" : " \u00b7 ",
                           flame_weight_name(opts.weight),
                           weight_text(total, opts.weight), "click a frame to zoom")),
      kPad, w - kPad, height - 10);
}

}  // namespace

void render_flamegraph_svg(std::ostream& out, const std::vector<FoldedStack>& stacks,
                           const FlameGraphOptions& opts) {
  const FlameNode root = build_tree(stacks);
  const int depth = tree_depth(root);
  const double height = kTop + depth * kFrameHeight + kBottom;
  const double inner = opts.width - 2 * kPad;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      << fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{}\" "
             "height=\"{}\" viewBox=\"0 0 {} {}\" data-pad=\"{}\" data-inner-width=\"{}\" "
             "data-unit=\"{}\" onload=\"init(evt)\">\n",
             opts.width, height, opts.width, height, kPad, inner,
             flame_weight_unit(opts.weight))
      << "<style>text { font-family: Verdana, sans-serif; font-size: " << kFontSize
      << "px; fill: #000; } g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: "
         "pointer; } .button { cursor: pointer; fill: #33c; } .hide { display: none; }"
         "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n"
      << flamegraph_script() << "]]></script>\n";
  draw_chrome(out, opts, height, root.value);
  if (root.value) {
    const Canvas canvas{out, opts, inner, static_cast<double>(root.value),
                        kTop + (depth - 1) * kFrameHeight};
    draw(canvas, root, 0, kPad);
  } else {
    out << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no I/O to draw: "
                       "the run saw no {} on any ring</text>\n",
                       opts.width / 2.0, kTop + kFrameHeight, flame_weight_unit(opts.weight));
  }
  out << "</svg>\n";
}

}  // namespace uringscope
