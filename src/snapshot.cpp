// SPDX-License-Identifier: MIT
#include "uringscope/snapshot.h"

#include <algorithm>
#include <map>

#include "uringscope/opcodes.h"

namespace uringscope {

const std::array<CounterField, 12> kCounterFields = {{
    {"enter_calls", &Counters::enter_calls},
    {"enter_submit_calls", &Counters::enter_submit_calls},
    {"to_submit_sum", &Counters::to_submit_sum},
    {"submissions", &Counters::submissions},
    {"completions", &Counters::completions},
    {"punted", &Counters::punted},
    {"errors", &Counters::errors},
    {"cq_overflows", &Counters::cq_overflows},
    {"multishot_cqes", &Counters::multishot_cqes},
    {"untracked_completions", &Counters::untracked_completions},
    {"inflight_map_drops", &Counters::inflight_map_drops},
    {"rings_created", &Counters::rings_created},
}};

Counters& Counters::operator+=(const Counters& other) {
  for (const auto& field : kCounterFields) this->*field.member += other.*field.member;
  return *this;
}

double OpStats::punt_pct() const {
  return submitted ? 100.0 * static_cast<double>(punted) / static_cast<double>(submitted) : 0.0;
}

OpStats& OpStats::operator+=(const OpStats& other) {
  submitted += other.submitted;
  completed += other.completed;
  untracked += other.untracked;
  punted += other.punted;
  errors += other.errors;
  multishot_cqes += other.multishot_cqes;
  latency += other.latency;
  return *this;
}

bool Ring::sqpoll() const { return setup_flags & kSetupSqpoll; }

double Ring::avg_batch() const {
  if (counters.enter_submit_calls == 0) return 0.0;
  return static_cast<double>(counters.submissions) /
         static_cast<double>(counters.enter_submit_calls);
}

void aggregate(Snapshot& snapshot) {
  snapshot.totals = {};
  std::map<uint32_t, OpStats> by_opcode;
  for (const Ring& ring : snapshot.rings) {
    snapshot.totals += ring.counters;
    for (const OpStats& op : ring.ops) {
      OpStats& merged = by_opcode[op.opcode];
      merged.opcode = op.opcode;
      merged += op;
    }
  }
  snapshot.ops.clear();
  for (auto& [opcode, op] : by_opcode) snapshot.ops.push_back(op);
}

std::string_view target_mode_name(TargetMode mode) {
  switch (mode) {
    case TargetMode::Command: return "command";
    case TargetMode::Pid: return "pid";
    case TargetMode::All: return "all";
  }
  return "all";
}

std::string_view ring_source_name(RingSource source) {
  switch (source) {
    case RingSource::Create: return "create";
    case RingSource::FdTable: return "fd_table";
    case RingSource::Submit: return "first_submit";
    case RingSource::CatchAll: return "catch_all";
  }
  return "first_submit";
}

}  // namespace uringscope
