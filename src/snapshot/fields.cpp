// SPDX-License-Identifier: MIT
// The field lists of fields.h, checked against the structs they describe: a counter added
// to a struct but not to its list changes the struct's size and stops the build here.
#include "uringscope/fields.h"

#include <vector>

namespace uringscope {

static_assert(sizeof(Counters) == kCounterFields.size() * sizeof(uint64_t),
              "a Counters field is missing from kCounterFields");
static_assert(sizeof(PuntReasons) == kPuntReasonFields.size() * sizeof(uint64_t),
              "a PuntReasons field is missing from kPuntReasonFields");
static_assert(sizeof(ToolStats) == kToolFields.size() * sizeof(uint64_t),
              "a ToolStats field is missing from kToolFields");
// opcode (padded to 8 bytes), the listed counters, and the four fields merged their own way.
static_assert(sizeof(OpStats) == sizeof(uint64_t) + kOpCounterFields.size() * sizeof(uint64_t) +
                                     sizeof(PuntReasons) + sizeof(std::vector<ErrnoCount>) +
                                     sizeof(Histogram),
              "an OpStats field is missing from kOpCounterFields (or from this check)");

static_assert([] {
  for (std::size_t i = 0; i < kPuntReasonFields.size(); ++i)
    if (static_cast<std::size_t>(kPuntReasonFields[i].reason) != i) return false;
  return true;
}(), "kPuntReasonFields must be indexed by PuntReason");

uint64_t classified_punts(const PuntReasons& reasons) {
  uint64_t sum = 0;
  for (const PuntReasonField& field : kPuntReasonFields) sum += reasons.*field.member;
  return sum;
}

bool any_tool_loss(const ToolStats& tool) {
  for (const ToolField& field : kToolFields)
    if (tool.*field.member) return true;
  return false;
}

}  // namespace uringscope
