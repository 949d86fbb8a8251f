// SPDX-License-Identifier: MIT
// LEAK: requests in flight past the leak age, stuck or abandoned at exit.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/file_blame.h"
#include "rules/leak_growth.h"
#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

namespace {

// A request counts as suspected when it was not waiting on an event: stuck (in io-wq, or
// issued and never seen again) or abandoned at exit. Waiting ones (armed poll, ops that
// wait by design) are an idle socket as often as a hang.
bool leak_suspected(const PendingRequest& r) { return !r.waiting; }

std::string hex_list(const std::vector<uint64_t>& values) {
  std::string text;
  for (uint64_t v : values) text += (text.empty() ? "" : ", ") + format_hex(v);
  return text;
}

// "1 request was", "3 requests were"
std::string were(uint64_t n) {
  return fmt::format("{} request{}", format_count(n), n == 1 ? " was" : "s were");
}

struct LeakGroup {
  uint32_t ring = 0;
  uint32_t opcode = 0;
  uint64_t count = 0;
  uint64_t oldest_ns = 0;
  uint64_t abandoned = 0;
  std::vector<uint64_t> user_data;  // the oldest four
  std::map<RequestWhere, uint64_t> where;
  std::map<std::string, uint64_t> files;  // of the records whose file is known (--files)
};

// " On pipe:[4711] (3), /var/lib/x (1)." — the files behind the records, the most
// requests first, at most kFilesNamed named; "" when no record's file is known.
std::string files_sentence(const std::map<std::string, uint64_t>& files) {
  if (files.empty()) return {};
  if (files.size() == 1) return fmt::format(" On {}.", files.begin()->first);
  std::vector<std::pair<std::string, uint64_t>> by_count(files.begin(), files.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::size_t named = std::min(by_count.size(), kFilesNamed);
  std::string text = " On ";
  for (std::size_t i = 0; i < named; ++i)
    text += fmt::format("{}{} ({})", i ? ", " : "", by_count[i].first,
                        format_count(by_count[i].second));
  if (by_count.size() > named)
    text += fmt::format(" and {} more files", format_count(by_count.size() - named));
  return text + ".";
}

std::string top_file(const std::map<std::string, uint64_t>& files) {
  auto top = std::max_element(files.begin(), files.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  return top == files.end() ? std::string() : top->first;
}

std::string where_list(const std::map<RequestWhere, uint64_t>& where) {
  std::string text;
  for (const auto& [w, n] : where)
    text +=
        fmt::format("{}{} {}", text.empty() ? "" : ", ", request_where_name(w), format_count(n));
  return text;
}

Finding leak_detail(const LeakGroup& g) {
  const std::string name = opcode_name(g.opcode);
  std::string message = fmt::format(
      "ring #{}: {} {} in flight for up to {} without waiting on any event (last seen: {}); "
      "user_data {}.",
      g.ring, format_count(g.count), name + (g.count == 1 ? " request" : " requests"),
      format_duration(g.oldest_ns), where_list(g.where), hex_list(g.user_data));
  message += files_sentence(g.files);
  if (g.abandoned > 0) {
    const std::string who = g.abandoned == g.count
                                ? std::string(g.count == 1 ? "It was" : "All were")
                                : fmt::format("{} of them were", format_count(g.abandoned));
    message += fmt::format(" {} abandoned: the program exited and the kernel cancelled {}.", who,
                           g.abandoned == 1 ? "it" : "them");
  }

  std::string suggestion;
  if (g.abandoned < g.count) {
    suggestion = fmt::format(
        "Find what the {} requests are blocked on (an open of a FIFO with no writer, a read on "
        "a hung network or FUSE file system): a stuck request holds an io-wq worker and keeps "
        "its buffers pinned. Cancel it with io_uring_prep_cancel64() and its user_data, or "
        "bound it with a linked timeout (IOSQE_IO_LINK on the request, then "
        "io_uring_prep_link_timeout()).",
        name);
  }
  if (g.abandoned > 0) {
    if (!suggestion.empty()) suggestion += " ";
    suggestion +=
        "The program exited with requests in flight: before exit, cancel outstanding "
        "requests (io_uring_prep_cancel64(), or io_uring_prep_cancel_fd() with "
        "IORING_ASYNC_CANCEL_ALL) and reap their completions.";
  }
  Finding f{
      .tag = kTagLeak,
      .severity = Severity::Warn,
      .ring = g.ring,
      .opcode = g.opcode,
      .message = std::move(message),
      .suggestion = std::move(suggestion),
      .evidence = {count_evidence("count", g.count), count_evidence("oldest_ns", g.oldest_ns),
                   text_evidence("user_data", hex_list(g.user_data)),
                   text_evidence("where", where_list(g.where)),
                   count_evidence("abandoned", g.abandoned)},
  };
  if (!g.files.empty()) f.evidence.push_back(text_evidence("file", top_file(g.files)));
  return f;
}

std::string leak_age(uint64_t threshold_ns) {
  return threshold_ns ? fmt::format("the leak age ({})", format_duration(threshold_ns))
                      : std::string("the leak age");
}

// Only waiting requests: one INFO about them all.
Finding leak_pending_only(const LeakInfo& leak) {
  uint64_t oldest = 0;
  std::map<uint32_t, uint64_t> by_op;
  std::map<std::string, uint64_t> files;
  uint64_t recorded = 0;
  for (const PendingRequest& r : leak.requests) {
    if (leak_suspected(r)) continue;
    oldest = std::max(oldest, r.age_ns);
    ++by_op[r.opcode];
    if (!r.file.empty()) ++files[r.file];
    ++recorded;
  }
  if (oldest == 0) oldest = leak.oldest_ns;
  const std::string ops = op_count_list({by_op.begin(), by_op.end()}, 4);
  std::string message =
      fmt::format("{} still waiting on events past {}, the oldest for {}", were(leak.pending),
                  leak_age(leak.threshold_ns), format_duration(oldest));
  message += recorded_ops_suffix(ops, recorded < leak.pending);
  message += ".";
  message += files_sentence(files);
  message +=
      " Expected for idle sockets or pipes with no peer activity; a hang if the "
      "program is waiting on them.";
  return Finding{
      .tag = kTagLeak,
      .severity = Severity::Info,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message),
      .suggestion =
          "If the program is stuck waiting for one of these completions, the event it waits "
          "for never came: check the peer, and bound the wait with a linked timeout "
          "(IOSQE_IO_LINK + io_uring_prep_link_timeout()) or io_uring_wait_cqe_timeout().",
      .evidence = {count_evidence("pending", leak.pending), count_evidence("oldest_ns", oldest),
                   count_evidence("threshold_ns", leak.threshold_ns), text_evidence("ops", ops)},
  };
}

// The suspected records by (ring, op).
struct SuspectedGroups {
  std::map<std::pair<uint32_t, uint32_t>, LeakGroup> groups;
  uint64_t oldest = 0;
  uint64_t recorded = 0;
};

SuspectedGroups group_suspected(const LeakInfo& leak) {
  SuspectedGroups out;
  for (const PendingRequest& r : leak.requests) {
    if (!leak_suspected(r)) continue;
    LeakGroup& g = out.groups[{r.ring, r.opcode}];
    g.ring = r.ring;
    g.opcode = r.opcode;
    ++g.count;
    g.oldest_ns = std::max(g.oldest_ns, r.age_ns);
    if (r.abandoned) ++g.abandoned;
    if (g.user_data.size() < 4) g.user_data.push_back(r.user_data);
    ++g.where[r.where];
    if (!r.file.empty()) ++g.files[r.file];
    out.oldest = std::max(out.oldest, r.age_ns);
    ++out.recorded;
  }
  // No record of a suspected one (older waiting requests filled the records): the
  // overall oldest is the best bound there is.
  if (out.oldest == 0) out.oldest = leak.oldest_ns;
  return out;
}

std::string leak_parent_suggestion(const LeakInfo& leak, const SuspectedGroups& suspected) {
  if (suspected.groups.empty())
    return "The tool kept no details of them: its records hold the oldest requests, and "
           "older ones waiting on events filled them. The leaks_suspected counter of each "
           "ring shows where they are.";
  return fmt::format(
      "The LEAK findings that follow name the ring, op, user_data and where each request "
      "was last seen{}.",
      suspected.recorded < leak.suspected
          ? fmt::format(" ({} of {} recorded)", format_count(suspected.recorded),
                        format_count(leak.suspected))
          : std::string());
}

Finding leak_parent(const LeakInfo& leak, const SuspectedGroups& suspected) {
  std::string message = fmt::format(
      "{} in flight longer than {} without waiting on any event, when the window ended or "
      "their program exited; the oldest for {}. A request that never completes keeps its "
      "buffers pinned, and a program waiting for its completion hangs.",
      were(leak.suspected), leak_age(leak.threshold_ns), format_duration(suspected.oldest));
  if (leak.pending > 0)
    message += fmt::format(" {} more {} waiting on events (idle sockets, polls).",
                           format_count(leak.pending), leak.pending == 1 ? "was" : "were");
  return Finding{
      .tag = kTagLeak,
      .severity = Severity::Warn,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message),
      .suggestion = leak_parent_suggestion(leak, suspected),
      .evidence = {count_evidence("suspected", leak.suspected),
                   count_evidence("pending", leak.pending),
                   count_evidence("oldest_ns", suspected.oldest),
                   count_evidence("threshold_ns", leak.threshold_ns)},
  };
}

}  // namespace

// One parent with the totals, then one row per (ring, op) from the records the tool
// kept (at most kMaxLeakRecords, oldest first). Only waiting requests: one INFO, or one
// WARN when their number grew steadily through the window.
void rule_leak(const Snapshot& snapshot, std::vector<Finding>& out) {
  const LeakInfo& leak = snapshot.leak;
  std::optional<Finding> growing = growing_set_finding(leak);
  if (leak.suspected == 0) {
    if (growing) out.push_back(std::move(*growing));
    else if (leak.pending > 0) out.push_back(leak_pending_only(leak));
    return;
  }
  const SuspectedGroups suspected = group_suspected(leak);
  out.push_back(leak_parent(leak, suspected));
  if (growing) out.push_back(std::move(*growing));
  for (const auto& [key, group] : suspected.groups) out.push_back(leak_detail(group));
}

}  // namespace uringscope::rules
