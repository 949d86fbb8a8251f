// SPDX-License-Identifier: MIT
// The I/O as folded stacks, "comm;ring;op;file weight" (--folded, --flamegraph): one line
// per (ring, op, file), the format flamegraph.pl, inferno and speedscope read. The stacks
// of one weight sum to the report's own total of it: what a ring's op did on no known
// file (a NOP, a timeout, runs without --files) stays on the op's frame as its own
// weight, so nothing is dropped and nothing is counted twice.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

// What a frame's width stands for (--flame-weight).
enum class FlameWeight {
  Count,  // CQEs: the report's "completed" (OpStats::completed, FileStats::cqes)
  Bytes,  // bytes moved: OpStats::bytes, FileStats::bytes
  Time,   // total submit-to-CQE latency, ns: the latency histograms' exact sums
};
std::optional<FlameWeight> parse_flame_weight(std::string_view name);  // count, bytes, time
std::string_view flame_weight_name(FlameWeight weight);
std::string_view flame_weight_unit(FlameWeight weight);  // "CQEs", "bytes", "ns"

struct FoldedStack {
  std::vector<std::string> frames;  // outermost first; no frame holds ';' or a newline
  uint64_t weight = 0;
  bool operator==(const FoldedStack&) const = default;
};

// Every stack with a non-zero weight, sorted by its frames.
std::vector<FoldedStack> folded_stacks(const Snapshot& snap, FlameWeight weight);
// The rings' total of `weight`, as the report counts it: what the stacks sum to.
uint64_t flame_total(const Snapshot& snap, FlameWeight weight);
// One "a;b;c weight" line per stack.
void render_folded(std::ostream& out, const std::vector<FoldedStack>& stacks);

}  // namespace uringscope
