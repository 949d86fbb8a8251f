// SPDX-License-Identifier: MIT
#include "report/folded.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "uringscope/opcodes.h"
#include "util/untrusted_text.h"

namespace uringscope {
namespace {

// A name in its visible form (util/untrusted_text.h): one line, no control byte. ';'
// separates frames, so it is escaped too, in the same notation.
std::string frame_text(std::string_view text) {
  std::string out;
  for (const char c : visible_text(text)) {
    if (c == ';') {
      out += "\\x3b";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ring_frame(const Ring& ring) {
  if (ring.source == RingSource::CatchAll) return "other rings";
  std::string frame = fmt::format("ring #{} (pid {}", ring.id, ring.pid);
  if (ring.fd >= 0) frame += fmt::format(", fd {}", ring.fd);
  return frame + ")";
}

std::string comm_frame(const Ring& ring) {
  return ring.comm.empty() ? "[unknown]" : frame_text(ring.comm);
}

uint64_t op_weight(const OpStats& op, FlameWeight weight) {
  switch (weight) {
    case FlameWeight::Count: return op.completed;
    case FlameWeight::Bytes: return op.bytes;
    case FlameWeight::Time: return op.latency.sum_ns;
  }
  return 0;
}

uint64_t file_weight(const FileStats& file, FlameWeight weight) {
  switch (weight) {
    case FlameWeight::Count: return file.cqes;
    case FlameWeight::Bytes: return file.bytes;
    case FlameWeight::Time: return file.latency.sum_ns;
  }
  return 0;
}

void add_op_stacks(const Ring& ring, const OpStats& op, FlameWeight weight,
                   std::vector<FoldedStack>& out) {
  const std::vector<std::string> base{comm_frame(ring), ring_frame(ring),
                                      opcode_name(op.opcode)};
  uint64_t on_files = 0;
  for (const FileStats& file : ring.files) {
    if (file.opcode != op.opcode) continue;
    const uint64_t w = file_weight(file, weight);
    if (!w) continue;
    FoldedStack stack{.frames = base, .weight = w};
    stack.frames.push_back(frame_text(file.name));
    out.push_back(std::move(stack));
    on_files += w;
  }
  // The file rows count at the same CQEs as the op's row, minus those they could not
  // keep (a full file table, a request with no file), so the rest is the op's own.
  const uint64_t total = op_weight(op, weight);
  if (total > on_files) out.push_back(FoldedStack{.frames = base, .weight = total - on_files});
}

// Two rows of one stack (the same name on two inodes, say /tmp/x deleted and made
// again) are one frame in any flame graph: merged here so the file says so too.
void merge_equal_stacks(std::vector<FoldedStack>& stacks) {
  std::sort(stacks.begin(), stacks.end(),
            [](const FoldedStack& a, const FoldedStack& b) { return a.frames < b.frames; });
  std::vector<FoldedStack> merged;
  for (FoldedStack& stack : stacks) {
    if (!merged.empty() && merged.back().frames == stack.frames) {
      merged.back().weight += stack.weight;
    } else {
      merged.push_back(std::move(stack));
    }
  }
  stacks = std::move(merged);
}

}  // namespace

std::optional<FlameWeight> parse_flame_weight(std::string_view name) {
  for (FlameWeight w : {FlameWeight::Count, FlameWeight::Bytes, FlameWeight::Time}) {
    if (name == flame_weight_name(w)) return w;
  }
  return std::nullopt;
}

std::string_view flame_weight_name(FlameWeight weight) {
  switch (weight) {
    case FlameWeight::Count: return "count";
    case FlameWeight::Bytes: return "bytes";
    case FlameWeight::Time: return "time";
  }
  return "count";
}

std::string_view flame_weight_unit(FlameWeight weight) {
  switch (weight) {
    case FlameWeight::Count: return "CQEs";
    case FlameWeight::Bytes: return "bytes";
    case FlameWeight::Time: return "ns";
  }
  return "";
}

std::vector<FoldedStack> folded_stacks(const Snapshot& snap, FlameWeight weight) {
  std::vector<FoldedStack> stacks;
  for (const Ring& ring : snap.rings) {
    for (const OpStats& op : ring.ops) add_op_stacks(ring, op, weight, stacks);
  }
  merge_equal_stacks(stacks);
  return stacks;
}

uint64_t flame_total(const Snapshot& snap, FlameWeight weight) {
  uint64_t total = 0;
  for (const Ring& ring : snap.rings) {
    for (const OpStats& op : ring.ops) total += op_weight(op, weight);
  }
  return total;
}

void render_folded(std::ostream& out, const std::vector<FoldedStack>& stacks) {
  for (const FoldedStack& stack : stacks) {
    for (std::size_t i = 0; i < stack.frames.size(); ++i) {
      if (i) out << ';';
      out << stack.frames[i];
    }
    out << ' ' << stack.weight << '\n';
  }
}

}  // namespace uringscope
