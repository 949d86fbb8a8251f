// SPDX-License-Identifier: MIT
// Comparing a baseline with the current run: ops by opcode (names may improve between
// versions, UAPI numbers never change), rings by owner, findings by (tag, op).
#include <algorithm>
#include <map>
#include <utility>

#include "diff/baseline.h"

namespace uringscope {
namespace {

std::vector<OpDiff> diff_ops(const std::vector<BaselineOp>& before,
                             const std::vector<BaselineOp>& after) {
  std::map<uint32_t, OpDiff> rows;  // ascending opcode, like the report
  for (const BaselineOp& op : before) {
    OpDiff& row = rows[op.opcode];
    row.opcode = op.opcode;
    row.op = op.op;
    row.before = op;
  }
  for (const BaselineOp& op : after) {
    OpDiff& row = rows[op.opcode];
    row.opcode = op.opcode;
    row.op = op.op;  // the current run's name wins
    row.after = op;
  }
  std::vector<OpDiff> out;
  for (auto& [opcode, row] : rows) out.push_back(std::move(row));
  return out;
}

// By (name, op), busiest first: the larger of the two sides' requests.
std::vector<FileDiff> diff_files(const std::vector<BaselineFile>& before,
                                 const std::vector<BaselineFile>& after) {
  std::map<std::pair<std::string, std::string>, FileDiff> rows;
  for (const BaselineFile& f : before) {
    FileDiff& row = rows[{f.name, f.op}];
    row.name = f.name;
    row.op = f.op;
    row.before = f;
  }
  for (const BaselineFile& f : after) {
    FileDiff& row = rows[{f.name, f.op}];
    row.name = f.name;
    row.op = f.op;
    row.after = f;
  }
  std::vector<FileDiff> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  auto busiest = [](const FileDiff& r) {
    return std::max(r.before ? r.before->requests : 0, r.after ? r.after->requests : 0);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const FileDiff& a, const FileDiff& b) { return busiest(a) > busiest(b); });
  return out;
}

std::vector<const BaselineRing*> in_id_order(const std::vector<BaselineRing>& rings) {
  std::vector<const BaselineRing*> out;
  for (const BaselineRing& ring : rings) out.push_back(&ring);
  std::stable_sort(out.begin(), out.end(),
                   [](const BaselineRing* a, const BaselineRing* b) { return a->id < b->id; });
  return out;
}

bool same_owner(const BaselineRing& a, const BaselineRing& b) {
  return a.catch_all == b.catch_all && a.comm == b.comm;
}

// Two known, different fds are two different rings, whatever their order says.
bool fds_conflict(const BaselineRing& a, const BaselineRing& b) {
  return a.fd && b.fd && *a.fd != *b.fd;
}

std::vector<RingDiff> diff_rings(const std::vector<BaselineRing>& before_rings,
                                 const std::vector<BaselineRing>& after_rings) {
  std::vector<const BaselineRing*> before = in_id_order(before_rings);
  std::vector<const BaselineRing*> after = in_id_order(after_rings);
  std::vector<bool> taken(before.size(), false);
  std::vector<std::optional<std::size_t>> match(after.size());

  auto pair_up = [&](auto&& fits) {
    for (std::size_t a = 0; a < after.size(); ++a) {
      if (match[a]) continue;
      for (std::size_t b = 0; b < before.size(); ++b) {
        if (taken[b] || !same_owner(*before[b], *after[a]) || !fits(*before[b], *after[a]))
          continue;
        taken[b] = true;
        match[a] = b;
        break;
      }
    }
  };
  // Same comm and the same known fd first (several processes of one program often all
  // have their ring at the same fd: those pair in order), then the rest of each comm in
  // order, as long as their fds do not contradict it.
  pair_up([](const BaselineRing& b, const BaselineRing& a) { return a.fd && b.fd == a.fd; });
  pair_up([](const BaselineRing& b, const BaselineRing& a) { return !fds_conflict(b, a); });

  std::vector<RingDiff> out;
  for (std::size_t a = 0; a < after.size(); ++a) {
    RingDiff row;
    if (match[a]) row.before = *before[*match[a]];
    row.after = *after[a];
    out.push_back(std::move(row));
  }
  for (std::size_t b = 0; b < before.size(); ++b) {
    if (!taken[b]) out.push_back({.before = *before[b], .after = std::nullopt});
  }
  return out;
}

using FindingKey = std::pair<std::string, std::optional<std::string>>;

FindingKey key_of(const BaselineFinding& f) { return {f.tag, f.op}; }

int severity_rank(const std::string& severity) {
  if (severity == "CRIT") return 2;
  if (severity == "WARN") return 1;
  if (severity == "INFO") return 0;
  return -1;  // a name this version does not know ranks lowest
}

// The worst severity of each key.
std::map<FindingKey, std::string> worst_by_key(const std::vector<BaselineFinding>& findings) {
  std::map<FindingKey, std::string> out;
  for (const BaselineFinding& f : findings) {
    auto [it, inserted] = out.emplace(key_of(f), f.severity);
    if (!inserted && severity_rank(f.severity) > severity_rank(it->second)) it->second = f.severity;
  }
  return out;
}

}  // namespace

std::optional<double> relative_change_pct(double before, double after) {
  if (before == after) return 0.0;
  if (before == 0.0) return std::nullopt;
  return (after - before) / before * 100.0;
}

std::optional<double> per_second(uint64_t count, uint64_t wall_ns) {
  if (wall_ns == 0) return std::nullopt;
  return static_cast<double>(count) / (static_cast<double>(wall_ns) / 1e9);
}

bool windows_differ(uint64_t a_ns, uint64_t b_ns) {
  uint64_t shorter = std::min(a_ns, b_ns);
  uint64_t longer = std::max(a_ns, b_ns);
  if (shorter == longer) return false;
  if (shorter == 0) return true;
  // Integer and exact: longer - shorter > shorter / divisor, floor included.
  return longer - shorter > shorter / kWindowMismatchDivisor;
}

Diff diff(const Baseline& before, const Baseline& after) {
  Diff d;
  d.before = {before.source, before.tool_version, before.wall_ns};
  d.after = {after.source, after.tool_version, after.wall_ns};
  d.windows_differ = windows_differ(before.wall_ns, after.wall_ns);
  d.ops = diff_ops(before.ops, after.ops);
  // A report without the per-ring breakdown would make every ring look added or removed.
  d.rings_compared = before.has_rings && after.has_rings;
  if (d.rings_compared) d.rings = diff_rings(before.rings, after.rings);
  d.files = diff_files(before.files, after.files);

  std::map<FindingKey, std::string> worst_before = worst_by_key(before.findings);
  std::map<FindingKey, std::string> worst_after = worst_by_key(after.findings);
  for (const BaselineFinding& f : after.findings) {
    if (!worst_before.contains(key_of(f))) d.appeared.push_back(f);
  }
  for (const BaselineFinding& f : before.findings) {
    if (!worst_after.contains(key_of(f))) d.disappeared.push_back(f);
  }
  for (const auto& [key, severity] : worst_after) {
    auto it = worst_before.find(key);
    if (it != worst_before.end() && it->second != severity)
      d.severity_changed.push_back({key.first, key.second, it->second, severity});
  }
  return d;
}

}  // namespace uringscope
