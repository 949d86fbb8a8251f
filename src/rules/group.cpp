// SPDX-License-Identifier: MIT
// One cause on many rings, one finding. A test suite or a server with a ring per worker
// repeats the same problem on hundreds of rings; each rule judges its rings one by one,
// and this pass, after every rule, folds findings that share their tag, op and fix (a
// rule's fix text names the cause it addresses) into one that lists every ring, keeps the
// worst few in full, and carries the worst severity.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {
namespace {

using CauseKey = std::tuple<std::string, std::optional<uint32_t>, std::string>;

struct RingWeight {
  uint64_t time_ns = 0;
  uint64_t completed = 0;
};

RingWeight weight_of(const Ring* ring) {
  RingWeight w;
  if (!ring) return w;
  for (const OpStats& op : ring->ops) {
    w.time_ns += op.latency.sum_ns;
    w.completed += op.completed;
  }
  return w;
}

// "inject, t_send and 3 other commands": the names owning most rings first.
std::string command_list(const std::map<std::string, std::size_t>& rings_by_comm) {
  std::vector<std::pair<std::string, std::size_t>> names(rings_by_comm.begin(), rings_by_comm.end());
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  constexpr std::size_t kNamed = 3;
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kNamed; ++i)
    text += (i ? ", " : "") + (names[i].first.empty() ? std::string("?") : names[i].first);
  if (names.size() > kNamed) {
    const std::size_t rest = names.size() - kNamed;
    text += fmt::format(" and {} other command{}", rest, rest == 1 ? "" : "s");
  }
  return text;
}

Finding group_of(std::vector<Finding> members, const std::map<uint32_t, const Ring*>& rings) {
  std::map<uint32_t, RingWeight> weight;
  for (const Finding& f : members) weight.try_emplace(*f.ring, weight_of(rings.at(*f.ring)));
  std::stable_sort(members.begin(), members.end(), [&](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    const RingWeight& wa = weight.at(*a.ring);
    const RingWeight& wb = weight.at(*b.ring);
    if (wa.time_ns != wb.time_ns) return wa.time_ns > wb.time_ns;
    if (wa.completed != wb.completed) return wa.completed > wb.completed;
    return *a.ring < *b.ring;
  });
  Finding group{.tag = members.front().tag,
                .severity = members.front().severity,
                .ring = std::nullopt,
                .opcode = members.front().opcode,
                .message = {},
                .suggestion = members.front().suggestion,
                .evidence = {}};
  std::set<std::pair<uint32_t, std::string>> owners;
  std::map<std::string, std::size_t> rings_by_comm;
  for (const Finding& f : members) {
    group.rings.push_back(*f.ring);
    if (const Ring* ring = rings.at(*f.ring)) {
      // A fold of a command name or of all other processes owns many processes, whose
      // pids it no longer has: it counts as one.
      owners.emplace(ring->pid, ring->comm);
      ++rings_by_comm[ring->comm];
    }
  }
  std::sort(group.rings.begin(), group.rings.end());
  group.processes = static_cast<uint32_t>(owners.size());

  const auto shown = static_cast<std::size_t>(thr(ThresholdId::GroupShown));
  const std::size_t written = std::min(shown, members.size());
  const std::string op = group.opcode ? " " + opcode_name(*group.opcode) : std::string();
  group.message = fmt::format(
      "{} rings of {} process{} ({}) have the same {}{} finding, one cause and one fix; the "
      "worst {} follow{}{}.",
      format_count(members.size()), format_count(group.processes),
      group.processes == 1 ? "" : "es", command_list(rings_by_comm), group.tag, op, written,
      written == 1 ? "s" : "", members.size() > written ? ", and the JSON report lists every ring" : "");
  group.evidence = {count_evidence("ring_count", members.size()),
                    count_evidence("process_count", group.processes)};
  members.resize(written);
  group.worst = std::move(members);
  return group;
}

}  // namespace

void group_by_cause(const Snapshot& snapshot, std::vector<Finding>& findings) {
  std::map<CauseKey, std::vector<std::size_t>> by_cause;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (f.ring) by_cause[CauseKey{f.tag, f.opcode, f.suggestion}].push_back(i);
  }
  std::map<uint32_t, const Ring*> rings;
  for (const Ring& ring : snapshot.rings) rings.emplace(ring.id, &ring);

  std::vector<Finding> out;
  std::vector<bool> taken(findings.size(), false);
  for (const auto& [cause, indexes] : by_cause) {
    if (!at_least(indexes.size(), ThresholdId::GroupMinRings)) continue;
    std::vector<Finding> members;
    for (std::size_t i : indexes) {
      // A finding names a ring the snapshot has (rules read only snapshot.rings).
      rings.try_emplace(*findings[i].ring, nullptr);
      members.push_back(std::move(findings[i]));
      taken[i] = true;
    }
    out.push_back(group_of(std::move(members), rings));
  }
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (!taken[i]) out.push_back(std::move(findings[i]));
  }
  findings = std::move(out);
}

}  // namespace uringscope::rules
