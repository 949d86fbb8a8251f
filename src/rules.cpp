// SPDX-License-Identifier: MIT
// The rules engine. Each rule is a pure function of the Snapshot that appends its
// findings; kRules lists them, so a new rule is one function and one line. Rules read
// the rings, never Snapshot::totals/ops, so they work on snapshots that were not run
// through aggregate() (hand-built tests, partial baselines).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "uringscope/findings.h"
#include "uringscope/format.h"
#include "uringscope/opcodes.h"
#include "uringscope/thresholds.h"

namespace uringscope {

namespace {

std::string ring_label(const Ring& ring) { return fmt::format("ring #{}", ring.id); }

double pct_of(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Evidence count_evidence(std::string key, uint64_t value) {
  return {std::move(key), static_cast<int64_t>(value)};
}

Evidence real_evidence(std::string key, double value) { return {std::move(key), value}; }

double thr(ThresholdId id) { return threshold_value(id); }

// --- PUNT ---------------------------------------------------------------------------

// Ops that have no inline path on any supported kernel: their prep sets
// REQ_F_FORCE_ASYNC or their issue returns -EAGAIN under IO_URING_F_NONBLOCK
// (io_uring/sync.c, fs.c, statx.c, advise.c, splice.c, xattr.c, truncate.c). A 100 %
// punt share is their normal state and nothing the program can change, so counting
// them would make every fsync-heavy program a PUNT. Ops that block only sometimes
// (OPENAT with O_CREAT, FADVISE WILLNEED, SHUTDOWN on some kernels) stay in.
bool always_punted(uint32_t opcode) {
  switch (opcode) {
    case 3:   // FSYNC
    case 8:   // SYNC_FILE_RANGE
    case 17:  // FALLOCATE
    case 21:  // STATX
    case 25:  // MADVISE
    case 30:  // SPLICE
    case 33:  // TEE
    case 35:  // RENAMEAT
    case 36:  // UNLINKAT
    case 37:  // MKDIRAT
    case 38:  // SYMLINKAT
    case 39:  // LINKAT
    case 41:  // FSETXATTR
    case 42:  // SETXATTR
    case 43:  // FGETXATTR
    case 44:  // GETXATTR
    case 55:  // FTRUNCATE
      return true;
    default:
      return false;
  }
}

bool punt_share_crosses(uint64_t punted, uint64_t submitted) {
  return static_cast<double>(submitted) >= thr(ThresholdId::PuntMinSubmitted) &&
         pct_of(punted, submitted) >= thr(ThresholdId::PuntMinPct);
}

// Punt *reasons* are not classified yet, hence "likely": the advice follows from what
// usually sends that kind of op to io-wq.
std::string punt_suggestion(uint32_t opcode) {
  const std::string op = opcode_name(opcode);
  if (opcode_is_read(opcode)) {
    return fmt::format(
        "Likely buffered reads that missed the page cache. Read with O_DIRECT into "
        "registered buffers (READ_FIXED), or get the data cached ahead of the reads with "
        "readahead(2) or posix_fadvise(POSIX_FADV_WILLNEED). If the program sets IOSQE_ASYNC "
        "on its {} requests, drop it.",
        op);
  }
  if (opcode_is_write(opcode)) {
    return fmt::format(
        "Likely buffered writes to regular files: io-wq runs buffered writes to the same "
        "inode one at a time (hashed work), so they queue behind each other. Write with "
        "O_DIRECT, or spread the writes over several files. If the program sets IOSQE_ASYNC "
        "on its {} requests, drop it.",
        op);
  }
  return fmt::format(
      "Likely IOSQE_ASYNC set on {} requests that could have completed inline, or the op "
      "returned -EAGAIN where no poll could be armed. Set IOSQE_ASYNC only on requests that "
      "would block anyway.",
      op);
}

struct PuntRow {
  const Ring* ring;
  const OpStats* op;
};

Finding punt_detail(const PuntRow& row) {
  const OpStats& op = *row.op;
  const std::string name = opcode_name(op.opcode);
  const uint64_t p99 = op.latency.quantile_ns(0.99);
  std::string message = fmt::format(
      "{}: {} of {} {} requests were punted to io-wq worker threads ({}) instead of "
      "completing inline; io-wq is where the tail latency comes from",
      ring_label(*row.ring), format_count(op.punted), format_count(op.submitted), name,
      format_percent(op.punt_pct()));
  // No latency sample (all completions untracked) must not print as "p99 0ns".
  message += op.latency.count() ? fmt::format(" ({} p99 {}).", name, format_duration(p99)) : ".";
  return Finding{
      .tag = "PUNT",
      .severity = Severity::Warn,
      .ring = row.ring->id,
      .opcode = op.opcode,
      .message = std::move(message),
      .suggestion = punt_suggestion(op.opcode),
      .evidence = {real_evidence("punt_pct", op.punt_pct()),
                   count_evidence("punted", op.punted),
                   count_evidence("submitted", op.submitted),
                   count_evidence("p99_ns", p99)},
  };
}

void rule_punt(const Snapshot& snapshot, std::vector<Finding>& out) {
  std::vector<PuntRow> rows;
  uint64_t punted = 0;
  uint64_t submitted = 0;
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      if (always_punted(op.opcode)) continue;
      punted += op.punted;
      submitted += op.submitted;
      if (punt_share_crosses(op.punted, op.submitted)) rows.push_back({&ring, &op});
    }
  }

  // The all-rings parent comes first. It is dropped when it would only repeat its one
  // detail row (one ring, one op): the same numbers twice are noise, not detail.
  const bool repeats_only_row =
      rows.size() == 1 && rows[0].op->punted == punted && rows[0].op->submitted == submitted;
  if (punt_share_crosses(punted, submitted) && !repeats_only_row) {
    const double pct = pct_of(punted, submitted);
    std::string suggestion =
        rows.empty()
            ? fmt::format("No single op on a ring reaches {}% of at least {} requests on its "
                          "own; the punted column of the per-op table shows which ops feed "
                          "io-wq.",
                          thr(ThresholdId::PuntMinPct), thr(ThresholdId::PuntMinSubmitted))
            : std::string("The per-op PUNT findings that follow name the likely cause for "
                          "each op.");
    out.push_back(Finding{
        .tag = "PUNT",
        .severity = Severity::Warn,
        .ring = std::nullopt,
        .opcode = std::nullopt,
        .message = fmt::format(
            "{} of {} requests over all rings (ops that can complete inline) were punted to "
            "io-wq worker threads ({}) instead; io-wq is where the tail latency comes from.",
            format_count(punted), format_count(submitted), format_percent(pct)),
        .suggestion = std::move(suggestion),
        .evidence = {real_evidence("punt_pct", pct), count_evidence("punted", punted),
                     count_evidence("submitted", submitted)},
    });
  }
  for (const PuntRow& row : rows) out.push_back(punt_detail(row));
}

// --- BATCH --------------------------------------------------------------------------

void rule_batch(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    // An SQPOLL ring's kernel thread submits without io_uring_enter().
    if (ring.sqpoll()) continue;
    const uint64_t calls = ring.counters.enter_submit_calls;
    const uint64_t sqes = ring.counters.submissions;
    if (static_cast<double>(calls) < thr(ThresholdId::BatchMinEnterCalls) ||
        static_cast<double>(sqes) < thr(ThresholdId::BatchMinSqes))
      continue;
    const double seconds = static_cast<double>(snapshot.wall_ns) / 1e9;
    const double rate = seconds > 0 ? static_cast<double>(calls) / seconds : 0.0;
    if (seconds > 0 && rate < thr(ThresholdId::BatchMinEnterRate)) continue;

    const double avg = ring.avg_batch();
    if (avg >= thr(ThresholdId::BatchInfoBelow)) continue;
    const bool warn = avg < thr(ThresholdId::BatchWarnBelow);

    std::string message = fmt::format(
        "{} submits {:.2f} SQEs per io_uring_enter() call on average ({} SQEs over {} "
        "submitting calls): ",
        ring_label(ring), avg, format_count(sqes), format_count(calls));
    message += warn ? "close to one syscall per request, the cost io_uring's shared rings "
                      "exist to avoid."
                    : "many calls carry a single SQE, so part of the syscall cost that "
                      "batching removes is still paid per request.";
    Finding finding{
        .tag = "BATCH",
        .severity = warn ? Severity::Warn : Severity::Info,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion =
            "Queue several SQEs before submitting: call io_uring_submit() once per batch "
            "rather than after every io_uring_get_sqe(), or io_uring_submit_and_wait() to "
            "submit and wait in one call. At very high request rates, IORING_SETUP_SQPOLL "
            "removes submit syscalls altogether.",
        .evidence = {real_evidence("avg_batch", avg), count_evidence("enter_submit_calls", calls),
                     count_evidence("sqes", sqes)},
    };
    if (seconds > 0) finding.evidence.push_back(real_evidence("enter_submit_per_s", rate));
    out.push_back(std::move(finding));
  }
}

// --- TOOL ---------------------------------------------------------------------------

// One finding per cause: each degrades a different part of the report and has its own
// remedy. All are INFO: they qualify the numbers, they are not problems of the target.
void rule_tool(const Snapshot& snapshot, std::vector<Finding>& out) {
  constexpr std::string_view kTrackedOnly = " Latency statistics cover tracked requests only.";
  auto add = [&out, kTrackedOnly](std::string message, std::string suggestion,
                                   std::vector<Evidence> evidence) {
    message += kTrackedOnly;
    out.push_back(Finding{
        .tag = "TOOL",
        .severity = Severity::Info,
        .ring = std::nullopt,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion = std::move(suggestion),
        .evidence = std::move(evidence),
    });
  };

  uint64_t completions = 0;
  uint64_t untracked = 0;
  uint64_t drops = 0;
  for (const Ring& ring : snapshot.rings) {
    completions += ring.counters.completions;
    untracked += ring.counters.untracked_completions;
    drops += ring.counters.inflight_map_drops;
  }

  const double untracked_pct = pct_of(untracked, completions);
  if (completions > 0 && untracked_pct >= thr(ThresholdId::ToolUntrackedMinPct)) {
    add(fmt::format("{} of {} completions ({}) belong to requests whose submission the tool "
                    "did not see: submitted before attach, or evicted from its in-flight "
                    "table. They count in the totals but carry no latency.",
                    format_count(untracked), format_count(completions), format_percent(untracked_pct)),
        "Run the program under uringscope from its start instead of attaching with -p, or "
        "use a longer window (-d) so requests already in flight at attach weigh less.",
        {count_evidence("untracked_completions", untracked),
         count_evidence("completions", completions),
         real_evidence("untracked_pct", untracked_pct)});
  }
  if (drops > 0) {
    add(fmt::format("{} tracked requests were evicted from the tool's in-flight table (more "
                    "requests in flight at once than its buckets hold); their completions "
                    "count as untracked.",
                    format_count(drops)),
        "Counts are unaffected. With very many requests in flight at once (deep queues, "
        "long-lived poll or multishot requests), read the latency percentiles as a sample.",
        {count_evidence("inflight_map_drops", drops)});
  }

  const ToolStats& tool = snapshot.tool;
  if (tool.rings_full > 0) {
    add(fmt::format("The tool's ring table was full: {} events of rings it had no row for "
                    "were counted under the catch-all ring, so per-ring numbers are "
                    "incomplete.",
                    format_count(tool.rings_full)),
        "Narrow the target (-p PID instead of -a) so fewer rings compete for the table.",
        {count_evidence("rings_full", tool.rings_full)});
  }
  if (tool.opstats_full > 0) {
    add(fmt::format("The tool's per-op table was full: {} events were counted under a "
                    "catch-all row, so per-op numbers are incomplete.",
                    format_count(tool.opstats_full)),
        "Narrow the target (-p PID instead of -a) so fewer (ring, op) pairs compete for "
        "the table.",
        {count_evidence("opstats_full", tool.opstats_full)});
  }
  if (tool.op_out_of_range > 0) {
    add(fmt::format("{} requests had opcodes beyond the tool's opcode table and were "
                    "counted together in one row.",
                    format_count(tool.op_out_of_range)),
        "The kernel is newer than this uringscope; upgrade uringscope to see those ops by "
        "name.",
        {count_evidence("op_out_of_range", tool.op_out_of_range)});
  }
  if (tool.overflow_no_req > 0) {
    add(fmt::format("{} overflowed CQEs belonged to requests the tool did not track: the "
                    "overflow count is exact, but those CQEs are not attributed to an op.",
                    format_count(tool.overflow_no_req)),
        "Run the program under uringscope from its start so its requests are tracked.",
        {count_evidence("overflow_no_req", tool.overflow_no_req)});
  }
  if (static_cast<double>(tool.enter_no_ring) > thr(ThresholdId::ToolEnterNoRingMin)) {
    add(fmt::format("{} io_uring_enter() calls could not be matched to a ring: the rings "
                    "they belong to show too few enter calls, so their average batch reads "
                    "high.",
                    format_count(tool.enter_no_ring)),
        "Run the program under uringscope from its start, so every ring is seen when it is "
        "created.",
        {count_evidence("enter_no_ring", tool.enter_no_ring)});
  }
}

// --- NODATA -------------------------------------------------------------------------

bool ring_saw_activity(const Ring& ring) {
  const Counters& c = ring.counters;
  if (c.enter_calls || c.submissions || c.completions) return true;
  return std::any_of(ring.ops.begin(), ring.ops.end(),
                     [](const OpStats& op) { return op.submitted || op.completed; });
}

void rule_nodata(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (std::any_of(snapshot.rings.begin(), snapshot.rings.end(), ring_saw_activity)) return;
  // Enter calls on a ring the tool could not resolve are still io_uring activity.
  if (snapshot.tool.enter_no_ring > 0) return;

  const double seconds = static_cast<double>(snapshot.wall_ns) / 1e9;
  const std::string window = snapshot.wall_ns ? fmt::format("the {:.1f} s window", seconds)
                                              : std::string("the window");
  std::string message = fmt::format(
      "No io_uring activity in the target during {}: no submissions, completions or "
      "io_uring_enter() calls on any ring",
      window);
  message += snapshot.rings.empty()
                 ? "."
                 : fmt::format(" ({} ring{} found, all idle).", snapshot.rings.size(),
                               snapshot.rings.size() == 1 ? "" : "s");
  message += " An empty report here means nothing was measured, not that io_uring is healthy.";
  out.push_back(Finding{
      .tag = "NODATA",
      .severity = Severity::Info,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message),
      .suggestion =
          "Check the pid (and -f for children), and that the program really uses io_uring: "
          "Docker's default seccomp profile blocks the io_uring syscalls, many runtimes fall "
          "back to epoll or thread pools when io_uring is unavailable or off by default "
          "(Node.js/libuv needs UV_USE_IO_URING=1). If it does I/O in bursts, widen the "
          "window with -d.",
      .evidence = {count_evidence("rings", snapshot.rings.size()),
                   count_evidence("wall_ns", snapshot.wall_ns)},
  });
}

// --- the rule list ------------------------------------------------------------------

using Rule = void (*)(const Snapshot&, std::vector<Finding>&);
constexpr std::array<Rule, 4> kRules = {&rule_nodata, &rule_punt, &rule_batch, &rule_tool};

}  // namespace

std::vector<Finding> evaluate(const Snapshot& snapshot) {
  std::vector<Finding> findings;
  for (Rule rule : kRules) rule(snapshot, findings);

  // Stable, so a rule's own order (parent before detail rows, ascending opcode) survives
  // among findings with equal keys.
  auto key = [](const Finding& f) {
    return std::make_tuple(-static_cast<int>(f.severity), f.ring.has_value(), f.ring.value_or(0),
                           std::string_view(f.tag), f.opcode.has_value(), f.opcode.value_or(0));
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&key](const Finding& a, const Finding& b) { return key(a) < key(b); });
  return findings;
}

}  // namespace uringscope
