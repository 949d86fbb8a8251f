// SPDX-License-Identifier: MIT
// How a chooser answers for one feature: the shape it found, the text --version shows
// (the variant in use, or why the feature is off and what that costs), and the program
// that reads that shape. Plus the off-reason wording every chooser shares.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "probe/btf_access.h"
#include "uringscope/features.h"

namespace uringscope {

template <typename Shape>
struct Choice {
  Shape shape{};
  std::string detail;
  std::string_view program;  // empty when the feature is off
};

constexpr std::string_view loss_of(FeatureId id) { return feature_spec(id).loss; }

// "<what is wrong><sep><what the user loses>"; after "unrecognised prototype" a colon
// would read as if the loss explained the prototype, hence the separator.
std::string join(std::string_view head, std::string_view loss, std::string_view sep = ": ");
std::string arg_count_reason(std::string_view event, int args, std::string_view loss);
std::string malformed_reason(std::string_view event, std::string_view loss);

// Most tracepoints are told apart by their argument count alone: the shapes that exist,
// each with the program that reads it; a missing tracepoint is `none`, a count not in
// the list `unrecognised`.
template <typename Shape>
struct ShapeByArgs {
  int args;
  Shape shape;
  std::string_view detail;
  std::string_view program;
};

template <typename Shape>
Choice<Shape> choose_shape(const btf* vmlinux, std::string_view event,
                           std::initializer_list<ShapeByArgs<Shape>> shapes, Shape none,
                           Shape unrecognised, std::string_view absent, std::string_view loss) {
  const Prototype tp = find_tracepoint(vmlinux, event);
  switch (tp.status) {
    case Prototype::Status::Absent:
      return {none, join(absent, loss), {}};
    case Prototype::Status::Malformed:
      return {unrecognised, malformed_reason(event, loss), {}};
    case Prototype::Status::Found:
      break;
  }
  for (const ShapeByArgs<Shape>& s : shapes) {
    if (s.args == tp.args) return {s.shape, std::string(s.detail), s.program};
  }
  return {unrecognised, arg_count_reason(event, tp.args, loss), {}};
}

// For features with no shape to remember: on or off.
inline Choice<bool> choose_by_args(const btf* vmlinux, std::string_view event,
                                   std::initializer_list<ShapeByArgs<bool>> shapes,
                                   std::string_view absent, FeatureId feature) {
  return choose_shape<bool>(vmlinux, event, shapes, false, false, absent, loss_of(feature));
}

}  // namespace uringscope
