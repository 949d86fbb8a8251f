// SPDX-License-Identifier: MIT
#include "uringscope/snapshot.h"

#include <algorithm>
#include <map>

#include "uringscope/fields.h"
#include "uringscope/opcodes.h"

namespace uringscope {

const std::array<CounterField, 35> kCounterFields = {{
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
    {"failed_requests", &Counters::failed_requests},
    {"poll_armed", &Counters::poll_armed},
    {"poll_armed_regular", &Counters::poll_armed_regular},
    {"short_writes", &Counters::short_writes},
    {"task_adds", &Counters::task_adds},
    {"task_work_runs", &Counters::task_work_runs},
    {"task_work_items", &Counters::task_work_items},
    {"local_task_work_runs", &Counters::local_task_work_runs},
    {"local_task_work_items", &Counters::local_task_work_items},
    {"local_task_work_max_lag_ns", &Counters::local_task_work_max_lag_ns, CounterMerge::Max},
    {"local_task_work_pending_ns", &Counters::local_task_work_pending_ns, CounterMerge::Max},
    {"sqpoll_offcpu_ns", &Counters::sqpoll_offcpu_ns},
    {"sqpoll_sleeps", &Counters::sqpoll_sleeps},
    {"sqpoll_preempts", &Counters::sqpoll_preempts},
    {"sqpoll_wakeups", &Counters::sqpoll_wakeups},
    {"workers_distinct", &Counters::workers_distinct, CounterMerge::PerProcess},
    {"cancelled_at_exit", &Counters::cancelled_at_exit},
    {"leaks_suspected", &Counters::leaks_suspected},
    {"leaks_pending", &Counters::leaks_pending},
    {"aux_cqes_by_request", &Counters::aux_cqes_by_request},
    {"hazard_overlaps", &Counters::hazard_overlaps},
    {"hazard_bufreg", &Counters::hazard_bufreg},
    {"hazard_unmap", &Counters::hazard_unmap},
}};

// PerProcess counters are not summed here: the same process's value sits on each of its
// rings, so only aggregate(), which knows the processes, can combine them.
Counters& Counters::operator+=(const Counters& other) {
  for (const auto& field : kCounterFields) {
    uint64_t& mine = this->*field.member;
    const uint64_t theirs = other.*field.member;
    switch (field.merge) {
      case CounterMerge::Sum: mine += theirs; break;
      case CounterMerge::Max: mine = std::max(mine, theirs); break;
      case CounterMerge::PerProcess: break;
    }
  }
  return *this;
}

PuntReasons& PuntReasons::operator+=(const PuntReasons& other) {
  for (const PuntReasonField& field : kPuntReasonFields) this->*field.member += other.*field.member;
  return *this;
}

namespace {

void merge_errnos(std::vector<ErrnoCount>& into, const std::vector<ErrnoCount>& from) {
  for (const ErrnoCount& e : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const ErrnoCount& x) { return x.err == e.err; });
    if (it == into.end()) {
      into.push_back(e);
    } else {
      it->count += e.count;
    }
  }
  std::stable_sort(into.begin(), into.end(), [](const ErrnoCount& a, const ErrnoCount& b) {
    return a.count != b.count ? a.count > b.count : a.err < b.err;
  });
}

}  // namespace

std::string_view request_where_name(RequestWhere where) {
  switch (where) {
    case RequestWhere::Issued: return "issued";
    case RequestWhere::Poll: return "poll";
    case RequestWhere::IoWq: return "io-wq";
    case RequestWhere::TaskWork: return "task-work";
    case RequestWhere::Notification: return "zc-notification";
  }
  return "issued";
}

double OpStats::punt_pct() const {
  return submitted ? 100.0 * static_cast<double>(punted) / static_cast<double>(submitted) : 0.0;
}

double OpStats::bytes_per_request() const {
  const uint64_t requests = submitted ? submitted : completed;
  return requests ? static_cast<double>(bytes) / static_cast<double>(requests) : 0.0;
}

OpStats& OpStats::operator+=(const OpStats& other) {
  for (const OpCounterField& field : kOpCounterFields) this->*field.member += other.*field.member;
  punt_reasons += other.punt_reasons;
  merge_errnos(errnos, other.errnos);
  latency += other.latency;
  return *this;
}

bool Ring::sqpoll() const { return setup_flags & kSetupSqpoll; }

double RingBoundary::cq_depth_avg() const {
  return cq_depth_samples ? static_cast<double>(cq_depth_sum) / static_cast<double>(cq_depth_samples) : 0.0;
}

uint64_t RingBoundary::reap_gap_mean_ns() const {
  const uint64_t reaps = reap_lag.count();
  return reaps ? reap_gap_sum_ns / reaps : 0;
}

double RingBoundary::lu_sqes_per_submit() const {
  return lu_submit_calls ? static_cast<double>(lu_submit_sqes) / static_cast<double>(lu_submit_calls)
                         : 0.0;
}

uint64_t RingBoundary::sq_res_mean_ns() const {
  const uint64_t all = sq_wait.count();
  const uint64_t seen_waiting = all > sq_taken_unseen ? all - sq_taken_unseen : 0;
  return seen_waiting ? sq_res_sum_ns / seen_waiting : 0;
}

bool Ring::sqpoll_thread_seen_running() const {
  return counters.submissions > 0 || counters.sqpoll_sleeps > 0 ||
         counters.sqpoll_preempts > 0 || counters.sqpoll_offcpu_ns > 0;
}

double Ring::avg_batch() const {
  // On an SQPOLL ring the thread submits; an enter with to_submit > 0 (fio passes it
  // with SQ_WAKEUP) only wakes it, so dividing by those calls gives nonsense like 26k.
  if (sqpoll() || counters.enter_submit_calls == 0) return 0.0;
  return static_cast<double>(counters.submissions) /
         static_cast<double>(counters.enter_submit_calls);
}

void aggregate(Snapshot& snapshot) {
  snapshot.totals = {};
  for (const ProcessWorkers& w : snapshot.workers) snapshot.totals.workers_distinct += w.distinct;
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

std::string_view fold_scope_name(FoldScope scope) {
  switch (scope) {
    case FoldScope::Ring: return "ring";
    case FoldScope::Process: return "process";
    case FoldScope::Command: return "command";
    case FoldScope::All: return "all";
  }
  return "ring";
}

}  // namespace uringscope
