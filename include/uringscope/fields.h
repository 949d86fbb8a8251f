// SPDX-License-Identifier: MIT
// Field descriptors: the one list of the plain counters of OpStats, PuntReasons and
// ToolStats, with the names they carry in the JSON report (and, where the text report
// names them one by one, its label). Merging, interval deltas and the renderers iterate
// these lists instead of naming the fields, so a counter added to a struct and to its
// list is summed, subtracted and printed everywhere; the static_asserts in
// src/snapshot/snapshot.cpp stop the build when a struct gains a counter its list lacks.
// Counters has its own list, kCounterFields (snapshot.h). The JSON key of a field is
// `name`, and the order of a list is the order of the JSON keys: never reorder, only add.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "uringscope/snapshot.h"

namespace uringscope {

// --- OpStats --------------------------------------------------------------------------

struct OpCounterField {
  std::string_view name;
  uint64_t OpStats::*member;
};

// Not listed, because each combines its own way: opcode (the row's identity),
// punt_reasons (kPuntReasonFields), errnos (merged by code) and latency (a Histogram).
inline constexpr std::array<OpCounterField, 10> kOpCounterFields = {{
    {"submitted", &OpStats::submitted},
    {"completed", &OpStats::completed},
    {"untracked", &OpStats::untracked},
    {"punted", &OpStats::punted},
    {"errors", &OpStats::errors},
    {"failed", &OpStats::failed},
    {"multishot_cqes", &OpStats::multishot_cqes},
    {"poll_armed", &OpStats::poll_armed},
    {"poll_armed_regular", &OpStats::poll_armed_regular},
    {"cancelled_at_exit", &OpStats::cancelled_at_exit},
}};

// --- PuntReasons ------------------------------------------------------------------------

enum class PuntReason { Forced, Hashed, RegularFile, Eagain };

struct PuntReasonField {
  PuntReason reason;
  std::string_view name;  // JSON key, OpenMetrics `reason` label, PUNT evidence key
  uint64_t PuntReasons::*member;
  // The text report's label after the count. Empty for hashed: what a hashed punt means
  // depends on the op and the ring (hashed_punt_label() in opcodes.h).
  std::string_view text;
};

// In the order ties between reasons are broken: IOSQE_ASYNC first, because it is the one
// cause the program sets itself and can simply drop. Indexed by PuntReason.
inline constexpr std::array<PuntReasonField, 4> kPuntReasonFields = {{
    // FORCE_ASYNC is IOSQE_ASYNC, but the kernel also sets it itself for ops that can
    // only block (fsync, fallocate, sync_file_range), so the label must not blame the app.
    {PuntReason::Forced, "forced", &PuntReasons::forced,
     "forced (IOSQE_ASYNC or blocking-only op)"},
    {PuntReason::Hashed, "hashed", &PuntReasons::hashed, ""},
    {PuntReason::RegularFile, "regular_file", &PuntReasons::regular_file,
     "regular file (likely page-cache miss)"},
    {PuntReason::Eagain, "eagain", &PuntReasons::eagain, "-EAGAIN retry"},
}};

constexpr const PuntReasonField& punt_reason_field(PuntReason reason) {
  return kPuntReasonFields[static_cast<std::size_t>(reason)];
}

// The sum of all reasons: the punts the kernel classified.
uint64_t classified_punts(const PuntReasons& reasons);

// --- ToolStats --------------------------------------------------------------------------

struct ToolField {
  std::string_view name;  // JSON key under tool_stats, TOOL evidence key
  uint64_t ToolStats::*member;
  std::string_view text;  // the "tool losses" line of the text report
};

inline constexpr std::array<ToolField, 8> kToolFields = {{
    {"rings_full", &ToolStats::rings_full,
     "events counted under \"other rings\" (ring table full)"},
    {"opstats_full", &ToolStats::opstats_full,
     "events counted in a catch-all op row (op table full)"},
    {"op_out_of_range", &ToolStats::op_out_of_range, "requests with an opcode beyond the table"},
    {"enter_no_ring", &ToolStats::enter_no_ring, "io_uring_enter() calls not matched to a ring"},
    {"overflow_no_req", &ToolStats::overflow_no_req, "overflowed CQEs of untracked requests"},
    {"errno_full", &ToolStats::errno_full,
     "error CQEs whose code was not recorded (errno table full)"},
    {"threads_full", &ToolStats::threads_full, "io threads not recorded (thread table full)"},
    {"trace_drops", &ToolStats::trace_drops, "--trace records lost (trace buffer full)"},
}};

// Whether the tool lost anything at all.
bool any_tool_loss(const ToolStats& tool);

}  // namespace uringscope
