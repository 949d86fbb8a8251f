// SPDX-License-Identifier: MIT
// What one run measured, as plain values: the rules engine and every renderer take a
// Snapshot and nothing else, so they are testable without a kernel.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uringscope/histogram.h"

namespace uringscope {

// Counters that exist per ring and for all rings together. The JSON key of each field
// is its name in kCounterFields; fields are only ever added (schema stability).
struct Counters {
  uint64_t enter_calls = 0;            // io_uring_enter() calls
  uint64_t enter_submit_calls = 0;     // ... of which with to_submit > 0
  uint64_t to_submit_sum = 0;          // sum of to_submit
  uint64_t submissions = 0;            // SQEs seen at the submit tracepoint
  uint64_t completions = 0;            // CQEs posted (overflowed ones included)
  uint64_t punted = 0;                 // requests handed to io-wq
  uint64_t errors = 0;                 // CQEs with res < 0, -EAGAIN excluded
  uint64_t cq_overflows = 0;           // CQEs that overflowed the CQ ring
  uint64_t multishot_cqes = 0;         // CQEs with IORING_CQE_F_MORE
  uint64_t untracked_completions = 0;  // CQEs of requests never seen submitted
  uint64_t inflight_map_drops = 0;     // tracked requests evicted from the in-flight table
  uint64_t rings_created = 0;          // rings whose io_uring_create fell in the window

  Counters& operator+=(const Counters& other);
};

struct CounterField {
  std::string_view name;
  uint64_t Counters::*member;
};
extern const std::array<CounterField, 12> kCounterFields;

// One opcode's numbers on one ring (or merged over rings).
struct OpStats {
  uint32_t opcode = 0;
  uint64_t submitted = 0;
  uint64_t completed = 0;       // CQEs, multishot intermediates and untracked included
  uint64_t untracked = 0;       // CQEs whose submit we did not see
  uint64_t punted = 0;
  uint64_t errors = 0;
  uint64_t multishot_cqes = 0;
  Histogram latency;            // submit -> final CQE, tracked requests only

  double punt_pct() const;      // punted / submitted, 0 when nothing was submitted
  OpStats& operator+=(const OpStats& other);
};

enum class RingSource { Create, FdTable, Submit, CatchAll };

struct Ring {
  uint32_t id = 0;             // report id: order of first sight, from 0
  uint64_t ctx = 0;            // kernel address of the io_ring_ctx (identity only)
  uint32_t pid = 0;
  std::string comm;
  int32_t fd = -1;             // -1 when unknown
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
  uint32_t setup_flags = 0;    // IORING_SETUP_*
  RingSource source = RingSource::Submit;
  Counters counters;
  std::vector<OpStats> ops;    // ascending opcode, only opcodes that saw activity

  bool sqpoll() const;
  double avg_batch() const;    // SQEs per submitting enter call, 0 when no such call
};

struct FeatureState {
  std::string name;     // e.g. "submit"
  bool enabled = false;
  std::string detail;   // the variant in use, or why the feature is off
};

struct KernelInfo {
  std::string release;
  std::string tier;     // "full" | "legacy"
  std::vector<FeatureState> features;
};

enum class TargetMode { Command, Pid, All };

struct TargetInfo {
  TargetMode mode = TargetMode::All;
  std::vector<int> pids;
  std::vector<std::string> command;
};

// The tool's own losses; each one degrades what the numbers mean.
struct ToolStats {
  uint64_t rings_full = 0;         // events lumped into the catch-all ring
  uint64_t opstats_full = 0;       // events lumped into the catch-all opstat row
  uint64_t op_out_of_range = 0;    // opcodes beyond the table
  uint64_t enter_no_ring = 0;      // enter calls whose ring we could not resolve
  uint64_t overflow_no_req = 0;    // overflowed CQEs of untracked requests
};

struct Snapshot {
  std::string tool_version;
  uint64_t wall_ns = 0;       // length of the observation window
  unsigned ncpus = 0;
  KernelInfo kernel;
  TargetInfo target;
  std::vector<Ring> rings;    // ascending id
  ToolStats tool;

  // All rings together; filled by aggregate().
  Counters totals;
  std::vector<OpStats> ops;
};

// Fills snapshot.totals and snapshot.ops from the rings.
void aggregate(Snapshot& snapshot);

std::string_view target_mode_name(TargetMode mode);
std::string_view ring_source_name(RingSource source);

}  // namespace uringscope
