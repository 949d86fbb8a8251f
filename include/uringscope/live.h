// SPDX-License-Identifier: MIT
// Live mode (-i SECONDS): every interval, what happened since the previous reading, as
// one compact iostat-style block; the full report and findings still come at the end.
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

// iostat style: a header line once, then one block per interval.
//
// The header: what the view is, its interval, a two-line legend and the column titles.
void render_live_header(std::ostream& out, double interval_s);

// One interval: a timestamp line ("+12.0s  14:03:21  interval 1s": time since the start,
// local wall clock, the interval's actual length), then one row per (ring, op) with
// activity, or "(idle)". Columns have fixed widths, the same in every block and in the
// header, so blocks compare line by line:
//   ring    "#id comm[pid]" on the ring's first row only; "other rings" for the
//           catch-all ring
//   op      IORING_OP_* name; "-" for a ring with activity but no op row (waiting in
//           io_uring_enter, task work, untracked completions)
//   cqe/s   CQEs posted per second of the interval's actual length (delta.wall_ns);
//           multishot CQEs included, like Counters::completions
//   p50 p99 latency quantiles of the requests that completed in the interval; "-" when
//           none did
//   punt    punted / submitted in the interval; "-" when nothing was submitted
//   errors  error CQEs in the interval (-EAGAIN excluded)
//   batch   ring: SQEs per submitting io_uring_enter in the interval; "sqpoll" when the
//           SQPOLL thread submitted without such calls; "-" when nothing was submitted
//   cq-ovf  ring: CQEs that overflowed the CQ ring in the interval
// Reads the wall clock (localtime).
void render_live_interval(std::ostream& out, const Snapshot& delta, uint64_t since_start_ns);
// The same with the wall-clock text given ("14:03:21"): pure, for tests.
void render_live_interval(std::ostream& out, const Snapshot& delta, uint64_t since_start_ns,
                          std::string_view wall_clock);

// Rates and counts in a bounded width (at most 6 characters below 10^15): below 1000,
// one decimal ("0.5", "999.9"); then whole numbers with separators up to 99,999; then
// three significant digits with k, M, G, T ("123k", "1.23M"). Exposed for tests.
std::string format_live_rate(double per_second);
// Counts: whole numbers up to 99,999 ("99,999"), then as format_live_rate ("1.23M").
std::string format_live_count(uint64_t n);

}  // namespace uringscope
