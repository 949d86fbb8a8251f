// SPDX-License-Identifier: MIT
// The difference of two snapshots: what happened between two readings of the kernel
// tables, for live mode (-i), live metrics and anything else that shows an interval.
//
// The kernel maps only ever grow (counters, log2 latency buckets), so an interval is the
// difference of two full readings (snapshot-and-subtract): an event counted just after
// one read is in the next read, so nothing is lost or counted twice, and the intervals
// add up exactly to the whole run. The maps are never reset or swapped, which keeps the
// BPF side untouched and the final report identical with or without -i. docs/live.md
// has the method and what is exact and what is not.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "uringscope/snapshot.h"

namespace uringscope {

// What happened between two readings: counters and histograms subtracted ring by ring
// (matched by ctx), op by op (matched by opcode); rings new since `before` count from zero.
// wall_ns = after.wall_ns - before.wall_ns. Pure.
//
// The result is a Snapshot of the interval, with aggregate() already applied:
// - rings are matched by Ring::ctx, not by id (ids are renumbered between readings).
//   A freed ring keeps its row and ctx while a new ring at the same address gets a new
//   row, so a ctx can appear twice in one reading: rings sharing a ctx pair up in id
//   order (rows never move). The catch-all ring pairs with the catch-all ring.
//   Metadata (id, comm, pid, fd, flags, ...) is `after`'s, so ring ids are those of the
//   newer reading;
// - only rings and ops where something changed are kept (all-zero rows carry nothing,
//   so dropping them loses no count); a ring or op missing from `after` is dropped;
// - every Sum counter, ToolStats counter, op counter, errno count, histogram bucket and
//   sum_ns is after - before, clamped at 0 (a torn read must not wrap around);
// - maxima (Histogram::max_ns, Counters::local_task_work_max_lag_ns): the interval's
//   own maximum is not recoverable from two cumulative maxima. They are `after`'s value
//   when the interval had a sample (histogram: a count; lag: a local task-work run) or
//   set a new maximum, else 0. When the maximum grew the value is exact; otherwise it is
//   an upper bound, which is what Histogram::quantile_ns needs to cap at;
// - gauges are `after`'s value: local_task_work_pending_ns (age of local work waiting at
//   the end of the interval), workers_distinct and Snapshot::workers (io-wq workers seen
//   so far: a worker that ran before and runs again is not distinguishable);
// - leaks are a scan of what is in flight at the end of the run, not a flow: the delta
//   has none (leak counters 0, LeakInfo empty but for threshold_ns).
Snapshot snapshot_delta(const Snapshot& after, const Snapshot& before);

}  // namespace uringscope
