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

#include "uringscope/abi.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// --- OpStats --------------------------------------------------------------------------

struct OpCounterField {
  std::string_view name;
  uint64_t OpStats::*member;
  us_op_counter abi;  // the BPF side's slot (bpf/uringscope.h)
};

// Not listed, because each combines its own way: opcode (the row's identity),
// punt_reasons (kPuntReasonFields), errnos (merged by code) and latency (a Histogram).
inline constexpr std::array<OpCounterField, 14> kOpCounterFields = {{
    {"submitted", &OpStats::submitted, US_OC_SUBMITTED},
    {"completed", &OpStats::completed, US_OC_COMPLETED},
    {"untracked", &OpStats::untracked, US_OC_UNTRACKED},
    {"punted", &OpStats::punted, US_OC_PUNTED},
    {"errors", &OpStats::errors, US_OC_ERRORS},
    {"failed", &OpStats::failed, US_OC_FAILED},
    {"multishot_cqes", &OpStats::multishot_cqes, US_OC_MULTISHOT_CQES},
    {"poll_armed", &OpStats::poll_armed, US_OC_POLL_ARMED},
    {"poll_armed_regular", &OpStats::poll_armed_regular, US_OC_POLL_ARMED_REG},
    {"cancelled_at_exit", &OpStats::cancelled_at_exit, US_OC_CANCELLED_AT_EXIT},
    {"zc_results", &OpStats::zc_results, US_OC_ZC_RESULTS},
    {"zc_result_sum_ns", &OpStats::zc_result_sum_ns, US_OC_ZC_RESULT_SUM_NS},
    {"zc_notifications", &OpStats::zc_notifications, US_OC_ZC_NOTIFS},
    {"bytes", &OpStats::bytes, US_OC_BYTES},
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
  us_op_counter abi;  // the BPF side's slot
};

// In the order ties between reasons are broken: IOSQE_ASYNC first, because it is the one
// cause the program sets itself and can simply drop. Indexed by PuntReason.
inline constexpr std::array<PuntReasonField, 4> kPuntReasonFields = {{
    // FORCE_ASYNC is IOSQE_ASYNC, but the kernel also sets it itself for ops that can
    // only block (fsync, fallocate, sync_file_range), so the label must not blame the app.
    {PuntReason::Forced, "forced", &PuntReasons::forced,
     "forced (IOSQE_ASYNC or blocking-only op)", US_OC_PUNT_FORCED},
    {PuntReason::Hashed, "hashed", &PuntReasons::hashed, "", US_OC_PUNT_HASHED},
    {PuntReason::RegularFile, "regular_file", &PuntReasons::regular_file,
     "regular file (likely page-cache miss)", US_OC_PUNT_REGFILE},
    {PuntReason::Eagain, "eagain", &PuntReasons::eagain, "-EAGAIN retry", US_OC_PUNT_EAGAIN},
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
  us_tool_counter abi;    // the BPF side's slot
};

inline constexpr std::array<ToolField, 18> kToolFields = {{
    {"rings_full", &ToolStats::rings_full,
     "rings counted under \"other rings\" (ring table full)", US_TOOL_RINGS_FULL},
    {"opstats_full", &ToolStats::opstats_full,
     "(ring, op) pairs counted in a catch-all op row (op table full)", US_TOOL_OPSTATS_FULL},
    {"op_out_of_range", &ToolStats::op_out_of_range, "requests with an opcode beyond the table",
     US_TOOL_OP_OUT_OF_RANGE},
    {"enter_no_ring", &ToolStats::enter_no_ring, "io_uring_enter() calls not matched to a ring",
     US_TOOL_ENTER_NO_RING},
    {"overflow_no_req", &ToolStats::overflow_no_req, "overflowed CQEs of untracked requests",
     US_TOOL_OVERFLOW_NO_REQ},
    {"errno_full", &ToolStats::errno_full,
     "error CQEs whose code was not recorded (errno table full)", US_TOOL_ERRNO_FULL},
    {"threads_full", &ToolStats::threads_full, "io threads not recorded (thread table full)",
     US_TOOL_THREADS_FULL},
    {"trace_drops", &ToolStats::trace_drops, "--trace records lost (trace buffer full)",
     US_TOOL_TRACE_DROPS},
    {"udata_ambiguous", &ToolStats::udata_ambiguous,
     "CQEs not attributed: two live requests shared their user_data", US_TOOL_UDATA_AMBIGUOUS},
    {"udata_evicted", &ToolStats::udata_evicted,
     "live requests displaced from the user_data index", US_TOOL_UDATA_EVICTED},
    {"zc_ambiguous", &ToolStats::zc_ambiguous,
     "zero-copy sends without latency: notifications shared a user_data", US_TOOL_ZC_AMBIGUOUS},
    {"notif_no_req", &ToolStats::notif_no_req, "zero-copy notifications of untracked sends",
     US_TOOL_NOTIF_NO_REQ},
    {"latency_torn", &ToolStats::latency_torn, "latency samples discarded (entry rewritten)",
     US_TOOL_LATENCY_TORN},
    {"check_drops", &ToolStats::check_drops, "--check records lost (check buffer full)",
     US_TOOL_CHECK_DROPS},
    {"check_unseen", &ToolStats::check_unseen,
     "--check: iovecs beyond the first 8, or unreadable, not checked", US_TOOL_CHECK_UNSEEN},
    {"files_full", &ToolStats::files_full,
     "CQEs left out of the per-file table (file table full)", US_TOOL_FILES_FULL},
    {"names_full", &ToolStats::names_full,
     "files shown unresolved (file name table full)", US_TOOL_NAMES_FULL},
    {"kernel_misses", &ToolStats::kernel_misses,
     "events the kernel ran none of the tool's programs for (one was already running on "
     "that CPU)", US_TOOL_KERNEL_MISSES},
}};

// Whether the tool lost anything at all.
bool any_tool_loss(const ToolStats& tool);

}  // namespace uringscope
