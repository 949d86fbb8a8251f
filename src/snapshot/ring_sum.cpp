// SPDX-License-Identifier: MIT
#include "snapshot/ring_sum.h"

#include <algorithm>

namespace uringscope {

namespace {

void add_boundary(RingBoundary& into, const RingBoundary& from) {
  into.cq_depth_samples += from.cq_depth_samples;
  into.cq_depth_sum += from.cq_depth_sum;
  into.cq_depth_max = std::max(into.cq_depth_max, from.cq_depth_max);
  into.reap_lag += from.reap_lag;
  into.reap_lag_min += from.reap_lag_min;
  into.reap_gap_sum_ns += from.reap_gap_sum_ns;
  into.reap_gap_max_ns = std::max(into.reap_gap_max_ns, from.reap_gap_max_ns);
  into.timer_looks += from.timer_looks;
  into.sq_wait += from.sq_wait;
  into.sq_taken_unseen += from.sq_taken_unseen;
  into.sq_res_sum_ns += from.sq_res_sum_ns;
  into.sq_res_max_ns = std::max(into.sq_res_max_ns, from.sq_res_max_ns);
  into.sq_timer_looks += from.sq_timer_looks;
  into.lu_submit_calls += from.lu_submit_calls;
  into.lu_submit_sqes += from.lu_submit_sqes;
  into.lu_submit_max = std::max(into.lu_submit_max, from.lu_submit_max);
  into.lu_cqes_handed += from.lu_cqes_handed;
  into.lu_reap_lag += from.lu_reap_lag;
}

}  // namespace

void add_op(std::vector<OpStats>& ops, const OpStats& op) {
  auto it = std::find_if(ops.begin(), ops.end(), [&](const OpStats& o) { return o.opcode == op.opcode; });
  if (it == ops.end()) {
    ops.push_back(op);
  } else {
    *it += op;
  }
}

void add_ring(Ring& into, const Ring& from) {
  into.counters += from.counters;
  add_boundary(into.boundary, from.boundary);
  for (const OpStats& op : from.ops) add_op(into.ops, op);
}

}  // namespace uringscope
