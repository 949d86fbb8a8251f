// SPDX-License-Identifier: MIT
// What each tab of `uringscope top` shows, as tables built from two filtered snapshots:
// the last interval (its rates: the "/s" columns) and everything since the baseline
// (the start of the run, or the last `r`): counts, latency, punts, batch, CQ depth.
// Pure functions, tested without a terminal.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "top/table.h"
#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope::top {

enum class Tab { Rings, Ops, Files, Processes, Findings, Flame };
inline constexpr std::array<Tab, 6> kTabs = {Tab::Rings, Tab::Ops, Tab::Files,
                                             Tab::Processes, Tab::Findings, Tab::Flame};
std::string_view tab_title(Tab tab);  // "rings", "ops", ...

// An interval's length in seconds, for the per-second columns.
inline double seconds_of(const Snapshot& interval) {
  return static_cast<double>(interval.wall_ns) / 1e9;
}
// The ring with report id `id` in `snap`, or nullptr: the interval and the total are
// deltas ending at the same reading, so a ring has the same id in each.
const Ring* ring_by_id(const Snapshot& snap, uint32_t id);

struct TabData {
  const Snapshot& interval;  // the last interval, filtered
  const Snapshot& total;     // since the baseline, filtered
  bool files_on = false;     // --files: the kernel keeps per-file rows
};

// Per ring: "#id comm[pid]", cqe/s, CQEs, batch, p99, punt %, average CQ depth,
// overflows, the SQPOLL thread's state in the interval.
Table rings_table(const TabData& data);
// Per process: its rings, cqe/s, CQEs, p99, punt %, errors, B/s, io-wq workers.
Table processes_table(const TabData& data);
// Per op over all rings: cqe/s, CQEs, p50, p99, punt %, errors, B/s, bytes.
Table ops_table(const TabData& data);
// Per (file, op) over all rings, with --files; without, no rows and a note saying so.
Table files_table(const TabData& data);

// The findings of the rules run on the last interval and on everything since the
// baseline.
struct FindingsData {
  const std::vector<Finding>& interval;  // the rules run on the whole, unfiltered interval
  const std::vector<Finding>& total;
  // The filtered snapshots: a finding shows when its ring and op survive the filters.
  const Snapshot& filtered_interval;
  const Snapshot& filtered_total;
};
Table findings_table(const FindingsData& data);

// The state of a ring's SQPOLL thread in an interval: "-" (no SQPOLL), "woken" (the
// program had to wake it), "slept", "polling" (it submitted), "idle".
std::string sqpoll_state(const Ring& interval_ring);

}  // namespace uringscope::top
