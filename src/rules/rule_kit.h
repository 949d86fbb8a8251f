// SPDX-License-Identifier: MIT
// The rules engine's internals. Each rule is a pure function of the Snapshot that appends
// its findings; kRules (evaluate.cpp) lists them, so a new rule is one file, one
// declaration here and one line there. Rules read the rings (and the snapshot's own
// workers and leak records), never Snapshot::totals or Snapshot::ops, so they work on
// snapshots that were not run through aggregate() (hand-built tests, partial baselines).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "uringscope/findings.h"
#include "rules/thresholds.h"

namespace uringscope::rules {

// --- constants ----------------------------------------------------------------------

inline constexpr double kNsPerMs = 1e6;
inline constexpr double kNsPerS = 1e9;

// --- helpers more than one rule uses (rule_kit.cpp) ---------------------------------

std::string ring_label(const Ring& ring);

double pct_of(uint64_t part, uint64_t whole);

Evidence count_evidence(std::string key, uint64_t value);

Evidence real_evidence(std::string key, double value);

Evidence text_evidence(std::string key, std::string value);

// A watched lag's histogram as evidence: `<prefix>p50_ns`, `p99_ns`, `max_ns`, `watched`,
// appended to `out` in that order (REAP-LAG, SQ-WAIT and the SQPOLL finding share it).
void add_lag_evidence(std::vector<Evidence>& out, const std::string& prefix, const Histogram& h);

double thr(ThresholdId id);

bool at_least(uint64_t value, ThresholdId id);

// "READ 1,200, FSYNC 30": (opcode, count) pairs, largest first, at most `limit` of them.
std::string op_count_list(std::vector<std::pair<uint32_t, uint64_t>> counts, std::size_t limit);

// " (READ 64)", or " (of those recorded: READ 64)" when the leak records (which keep the
// oldest kMaxLeakRecords) hold only part of the requests; "" without ops.
std::string recorded_ops_suffix(const std::string& ops, bool partial);

// --- the rules, one file each -------------------------------------------------------

void rule_nodata(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_overflow(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_punt(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_workers(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_batch(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_sqpoll(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_defer_tw(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_short_write(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_poll_retry(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_errors(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_leak(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_tool(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_hazard(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_reap_lag(const Snapshot& snapshot, std::vector<Finding>& out);
void rule_sq_wait(const Snapshot& snapshot, std::vector<Finding>& out);

// After every rule: the same tag, op and fix on group_min_rings rings or more becomes one
// finding naming them all (group.cpp).
void group_by_cause(const Snapshot& snapshot, std::vector<Finding>& findings);

}  // namespace uringscope::rules
