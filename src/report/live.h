// SPDX-License-Identifier: MIT
// Live mode (-i SECONDS): every interval, what happened since the previous reading
// (snapshot/delta.h), as one compact iostat-style block; the full report and findings
// still come at the end. docs/live.md has the method.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "uringscope/snapshot.h"

namespace uringscope {

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
