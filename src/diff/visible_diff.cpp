// SPDX-License-Identifier: MIT
#include "diff/visible_diff.h"

#include <optional>
#include <string>

#include "util/untrusted_text.h"

namespace uringscope {
namespace {

void make_visible(std::optional<std::string>& text) {
  if (text) uringscope::make_visible(*text);
}

void make_visible(BaselineFinding& f) {
  uringscope::make_visible(f.tag);
  uringscope::make_visible(f.severity);
  make_visible(f.op);
  uringscope::make_visible(f.message);
}

}  // namespace

Diff visible_copy(const Diff& diff) {
  Diff out = diff;
  for (DiffSide* side : {&out.before, &out.after}) {
    uringscope::make_visible(side->source);
    uringscope::make_visible(side->tool_version);
  }
  for (OpDiff& op : out.ops) {
    uringscope::make_visible(op.op);
    for (std::optional<BaselineOp>* side : {&op.before, &op.after})
      if (*side) uringscope::make_visible((*side)->op);
  }
  for (RingDiff& ring : out.rings)
    for (std::optional<BaselineRing>* side : {&ring.before, &ring.after})
      if (*side) uringscope::make_visible((*side)->comm);
  for (FileDiff& file : out.files) {
    uringscope::make_visible(file.name);
    uringscope::make_visible(file.op);
    for (std::optional<BaselineFile>* side : {&file.before, &file.after}) {
      if (!*side) continue;
      uringscope::make_visible((*side)->name);
      uringscope::make_visible((*side)->op);
    }
  }
  for (BaselineFinding& f : out.appeared) make_visible(f);
  for (BaselineFinding& f : out.disappeared) make_visible(f);
  for (SeverityChange& change : out.severity_changed) {
    uringscope::make_visible(change.tag);
    make_visible(change.op);
    uringscope::make_visible(change.before);
    uringscope::make_visible(change.after);
  }
  return out;
}

}  // namespace uringscope
