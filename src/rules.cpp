// SPDX-License-Identifier: MIT
// The rules engine. Each rule is a pure function of the Snapshot that appends its
// findings; kRules lists them, so a new rule is one function and one line. Rules read
// the rings (and the snapshot's own workers and leak records), never Snapshot::totals
// or Snapshot::ops, so they work on snapshots that were not run through aggregate()
// (hand-built tests, partial baselines).
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "uringscope/errno_name.h"
#include "uringscope/findings.h"
#include "uringscope/format.h"
#include "uringscope/opcodes.h"
#include "uringscope/thresholds.h"

namespace uringscope {

namespace {

// IORING_OP_* values the rules single out (UAPI: they never change).
constexpr uint32_t kOpPollRemove = 7;
constexpr uint32_t kOpSendmsg = 9;
constexpr uint32_t kOpTimeout = 11;
constexpr uint32_t kOpTimeoutRemove = 12;
constexpr uint32_t kOpAccept = 13;
constexpr uint32_t kOpAsyncCancel = 14;
constexpr uint32_t kOpLinkTimeout = 15;
constexpr uint32_t kOpSend = 26;
constexpr uint32_t kOpSendZc = 47;
constexpr uint32_t kOpSendmsgZc = 48;

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;

std::string ring_label(const Ring& ring) { return fmt::format("ring #{}", ring.id); }

double pct_of(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

Evidence count_evidence(std::string key, uint64_t value) {
  return {std::move(key), static_cast<int64_t>(value)};
}

Evidence real_evidence(std::string key, double value) { return {std::move(key), value}; }

Evidence text_evidence(std::string key, std::string value) {
  return {std::move(key), std::move(value)};
}

double thr(ThresholdId id) { return threshold_value(id); }

bool at_least(uint64_t value, ThresholdId id) { return static_cast<double>(value) >= thr(id); }

// "READ 1,200, FSYNC 30": (opcode, count) pairs, largest first, at most `limit` of them.
std::string op_count_list(std::vector<std::pair<uint32_t, uint64_t>> counts, std::size_t limit) {
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < counts.size() && i < limit; ++i) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", opcode_name(counts[i].first), format_count(counts[i].second));
  }
  if (counts.size() > limit) text += fmt::format(" and {} more", counts.size() - limit);
  return text;
}

// --- OVERFLOW -----------------------------------------------------------------------

// Any overflow is CRIT: a ring sized for its load never overflows, and an overflowed CQE
// waits on a kernel list (or is dropped if that allocation fails) instead of being posted.
void rule_overflow(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    const Counters& c = ring.counters;
    if (c.cq_overflows == 0) continue;
    const std::string cq = ring.cq_entries
                               ? fmt::format("the {}-entry CQ ring", format_count(ring.cq_entries))
                               : std::string("the CQ ring");
    std::string message = fmt::format("{}: {} completions found {} full and overflowed",
                                      ring_label(ring), format_count(c.cq_overflows), cq);
    if (c.completions > 0)
      message += fmt::format(" ({} of {})", format_percent(pct_of(c.cq_overflows, c.completions)),
                             format_count(c.completions));
    message +=
        ": they took the slow path, held on the kernel's overflow list until the program made "
        "room (and lost if that allocation failed), so completions arrive late or not at all.";
    Finding finding{
        .tag = "OVERFLOW",
        .severity = Severity::Crit,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion =
            "Size the CQ for the requests in flight: set IORING_SETUP_CQSIZE in "
            "io_uring_params.flags with cq_entries 2-4x the SQ size "
            "(io_uring_queue_init_params()). Reap completions before submitting more "
            "(io_uring_for_each_cqe() + io_uring_cq_advance(), or io_uring_peek_batch_cqe()), "
            "and never keep more requests in flight than the CQ holds; a multishot request "
            "posts several CQEs.",
        .evidence = {count_evidence("cq_overflows", c.cq_overflows),
                     count_evidence("cq_entries", ring.cq_entries),
                     count_evidence("sq_entries", ring.sq_entries),
                     count_evidence("completions", c.completions)},
    };
    out.push_back(std::move(finding));
  }
}

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
    default: return false;
  }
}

bool punt_share_crosses(uint64_t punted, uint64_t submitted) {
  return at_least(submitted, ThresholdId::PuntMinSubmitted) &&
         pct_of(punted, submitted) >= thr(ThresholdId::PuntMinPct);
}

enum class PuntReason { Forced, Hashed, RegularFile, Eagain };

struct ReasonCount {
  PuntReason reason;
  uint64_t count;
};

// In the order ties are broken: IOSQE_ASYNC first, because it is the one cause the
// program sets itself and can simply drop.
std::array<ReasonCount, 4> reason_counts(const PuntReasons& r) {
  return {{{PuntReason::Forced, r.forced},
           {PuntReason::Hashed, r.hashed},
           {PuntReason::RegularFile, r.regular_file},
           {PuntReason::Eagain, r.eagain}}};
}

// The reason with the most punts; none when the kernel gave no reasons (legacy tier).
std::optional<PuntReason> dominant_reason(const PuntReasons& reasons) {
  std::optional<ReasonCount> best;
  for (const ReasonCount& rc : reason_counts(reasons)) {
    if (rc.count > 0 && (!best || rc.count > best->count)) best = rc;
  }
  if (!best) return std::nullopt;
  return best->reason;
}

// The evidence key, which is also the PuntReasons field name.
std::string_view reason_key(PuntReason reason) {
  switch (reason) {
    case PuntReason::Forced: return "forced";
    case PuntReason::Hashed: return "hashed";
    case PuntReason::RegularFile: return "regular_file";
    case PuntReason::Eagain: return "eagain";
  }
  return "forced";
}

std::string_view reason_label(PuntReason reason) {
  switch (reason) {
    case PuntReason::Forced: return "IOSQE_ASYNC";
    case PuntReason::Hashed: return "hashed buffered write";
    case PuntReason::RegularFile: return "regular file, would block";
    case PuntReason::Eagain: return "-EAGAIN, no poll";
  }
  return "";
}

// "IOSQE_ASYNC 40, regular file, would block 10": the nonzero reasons, largest first.
std::string reason_breakdown(const PuntReasons& reasons) {
  auto counts = reason_counts(reasons);
  std::stable_sort(counts.begin(), counts.end(),
                   [](const ReasonCount& a, const ReasonCount& b) { return a.count > b.count; });
  std::string text;
  for (const ReasonCount& rc : counts) {
    if (rc.count == 0) continue;
    if (!text.empty()) text += "; ";
    text += fmt::format("{} {}", reason_label(rc.reason), format_count(rc.count));
  }
  return text;
}

// Without reasons (a kernel whose punt event does not show them) the advice can only
// follow from what usually sends that kind of op to io-wq, hence "likely".
std::string punt_suggestion_by_kind(uint32_t opcode) {
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

// The fix for the reason the kernel showed. `opcode` is empty for the all-rings row.
std::string punt_suggestion(PuntReason reason, std::optional<uint32_t> opcode) {
  const std::string op = opcode ? opcode_name(*opcode) + " " : std::string();
  switch (reason) {
    case PuntReason::Forced:
      return fmt::format(
          "The {}requests carry IOSQE_ASYNC, so the kernel skipped the inline attempt and "
          "handed each one to a worker. Drop IOSQE_ASYNC (io_uring_sqe_set_flags()) unless "
          "the request would block anyway, such as a read that will miss the page cache.",
          op);
    case PuntReason::Hashed:
      return "Buffered writes to one file run one at a time in io-wq (hashed per inode), so "
             "they queue behind each other. Write with O_DIRECT (aligned buffers, registered "
             "with io_uring_register_buffers() for WRITE_FIXED), or spread the writes over "
             "several files.";
    case PuntReason::RegularFile:
      if (!opcode || opcode_is_read(*opcode)) {
        return "Buffered reads missed the page cache on a file without async buffered reads, "
               "so a worker blocked on each. Read with O_DIRECT into registered buffers "
               "(io_uring_register_buffers() + READ_FIXED), or bring the data into the cache "
               "ahead of the reads with readahead(2) or posix_fadvise(POSIX_FADV_WILLNEED).";
      }
      return fmt::format(
          "{}requests on regular files could not complete without blocking (for example a "
          "write that extends the file or allocates blocks, or a file system without nowait "
          "support). Preallocate with fallocate(), or use O_DIRECT on a file system that "
          "supports nowait I/O (ext4, xfs, btrfs).",
          opcode ? op : std::string("Regular-file "));
    case PuntReason::Eagain:
      return fmt::format(
          "The nonblocking attempt of the {}requests returned -EAGAIN on a file that cannot "
          "be polled (a file type or file system without nowait support), so a worker ran "
          "each one blocking. Nothing in the SQE causes it: use a file type that supports "
          "nowait I/O, or keep these requests off the latency-sensitive ring.",
          op);
  }
  return {};
}

std::vector<Evidence> punt_evidence(uint64_t punted, uint64_t submitted,
                                    const PuntReasons& reasons) {
  const std::optional<PuntReason> dominant = dominant_reason(reasons);
  std::vector<Evidence> evidence = {
      real_evidence("punt_pct", pct_of(punted, submitted)), count_evidence("punted", punted),
      count_evidence("submitted", submitted),
      text_evidence("reason", dominant ? std::string(reason_key(*dominant)) : "unknown")};
  for (const ReasonCount& rc : reason_counts(reasons))
    evidence.push_back(count_evidence(std::string(reason_key(rc.reason)), rc.count));
  return evidence;
}

struct PuntRow {
  const Ring* ring;
  const OpStats* op;
};

Finding punt_detail(const PuntRow& row) {
  const OpStats& op = *row.op;
  const std::string name = opcode_name(op.opcode);
  const uint64_t p99 = op.latency.quantile_ns(0.99);
  const std::optional<PuntReason> dominant = dominant_reason(op.punt_reasons);
  std::string message = fmt::format(
      "{}: {} of {} {} requests were punted to io-wq worker threads ({}) instead of "
      "completing inline",
      ring_label(*row.ring), format_count(op.punted), format_count(op.submitted), name,
      format_percent(op.punt_pct()));
  if (dominant) message += fmt::format(" (by reason: {})", reason_breakdown(op.punt_reasons));
  message += "; io-wq is where the tail latency comes from";
  // No latency sample (all completions untracked) must not print as "p99 0ns".
  message += op.latency.count() ? fmt::format(" ({} p99 {}).", name, format_duration(p99)) : ".";

  std::vector<Evidence> evidence = punt_evidence(op.punted, op.submitted, op.punt_reasons);
  evidence.insert(evidence.begin() + 3, count_evidence("p99_ns", p99));
  return Finding{
      .tag = "PUNT",
      .severity = Severity::Warn,
      .ring = row.ring->id,
      .opcode = op.opcode,
      .message = std::move(message),
      .suggestion =
          dominant ? punt_suggestion(*dominant, op.opcode) : punt_suggestion_by_kind(op.opcode),
      .evidence = std::move(evidence),
  };
}

void rule_punt(const Snapshot& snapshot, std::vector<Finding>& out) {
  std::vector<PuntRow> rows;
  uint64_t punted = 0;
  uint64_t submitted = 0;
  PuntReasons reasons;
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      if (always_punted(op.opcode)) continue;
      punted += op.punted;
      submitted += op.submitted;
      reasons += op.punt_reasons;
      if (punt_share_crosses(op.punted, op.submitted)) rows.push_back({&ring, &op});
    }
  }

  // The all-rings parent comes first. It is dropped when it would only repeat its one
  // detail row (one ring, one op): the same numbers twice are noise, not detail.
  const bool repeats_only_row =
      rows.size() == 1 && rows[0].op->punted == punted && rows[0].op->submitted == submitted;
  if (punt_share_crosses(punted, submitted) && !repeats_only_row) {
    const double pct = pct_of(punted, submitted);
    const std::optional<PuntReason> dominant = dominant_reason(reasons);
    std::string message = fmt::format(
        "{} of {} requests over all rings (ops that can complete inline) were punted to "
        "io-wq worker threads ({}) instead",
        format_count(punted), format_count(submitted), format_percent(pct));
    if (dominant) message += fmt::format(" (by reason: {})", reason_breakdown(reasons));
    message += "; io-wq is where the tail latency comes from.";
    std::string suggestion;
    if (!rows.empty()) {
      suggestion = dominant ? "The per-op PUNT findings that follow name the cause and its fix "
                              "for each op."
                            : "The per-op PUNT findings that follow name the likely cause for "
                              "each op.";
    } else {
      suggestion = fmt::format(
          "No single op on a ring reaches {}% of at least {} requests on its own; the punted "
          "column of the per-op table shows which ops feed io-wq.",
          thr(ThresholdId::PuntMinPct), thr(ThresholdId::PuntMinSubmitted));
      if (dominant) suggestion += " " + punt_suggestion(*dominant, std::nullopt);
    }
    out.push_back(Finding{
        .tag = "PUNT",
        .severity = Severity::Warn,
        .ring = std::nullopt,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion = std::move(suggestion),
        .evidence = punt_evidence(punted, submitted, reasons),
    });
  }
  for (const PuntRow& row : rows) out.push_back(punt_detail(row));
}

// --- WORKERS ------------------------------------------------------------------------

// io-wq workers belong to a process (its rings share them), so the finding is per pid:
// it names the process's lowest-numbered ring, or no ring when none of its rings was
// seen, and the ops that fed io-wq on all of its rings.
void rule_workers(const Snapshot& snapshot, std::vector<Finding>& out) {
  const double limit =
      std::max(thr(ThresholdId::WorkersMin), thr(ThresholdId::WorkersPerCpu) * snapshot.ncpus);
  for (const ProcessWorkers& workers : snapshot.workers) {
    if (static_cast<double>(workers.distinct) < limit) continue;

    const Ring* first = nullptr;
    std::map<uint32_t, uint64_t> punted_by_op;
    uint64_t punted = 0;
    for (const Ring& ring : snapshot.rings) {
      if (ring.pid != workers.pid) continue;
      if (!first) first = &ring;
      for (const OpStats& op : ring.ops) {
        if (op.punted == 0) continue;
        punted_by_op[op.opcode] += op.punted;
        punted += op.punted;
      }
    }
    const std::string fed_by = op_count_list({punted_by_op.begin(), punted_by_op.end()}, 4);

    const std::string who = first && !first->comm.empty()
                                ? fmt::format("pid {} ({})", workers.pid, first->comm)
                                : fmt::format("pid {}", workers.pid);
    const std::string limit_why =
        snapshot.ncpus ? fmt::format("max({}, {} x {} CPUs)", thr(ThresholdId::WorkersMin),
                                     thr(ThresholdId::WorkersPerCpu), snapshot.ncpus)
                       : std::string("the floor; CPU count unknown");
    std::string message = fmt::format(
        "{} ran {} distinct io-wq worker threads (iou-wrk) in the window, at or over the "
        "limit of {} ({}): blocking work is flooding io-wq.",
        who, format_count(workers.distinct), static_cast<uint64_t>(limit), limit_why);
    message += fed_by.empty()
                   ? " No request of its rings was seen punted in the window: the work was "
                     "queued before it, or on rings the tool did not see."
                   : fmt::format(" Requests punted on its rings: {}.", fed_by);

    const std::string cap = snapshot.ncpus ? std::to_string(snapshot.ncpus) : std::string("N");
    out.push_back(Finding{
        .tag = "WORKERS",
        .severity = Severity::Warn,
        .ring = first ? std::optional<uint32_t>(first->id) : std::nullopt,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion = fmt::format(
            "Stop blocking ops from flooding io-wq: file I/O with O_DIRECT completes without a "
            "worker, IOSQE_ASYNC belongs only on requests that would block anyway, and "
            "hundreds of fsync/openat/buffered writes queued at once each take a worker. Cap "
            "the pool with io_uring_register_iowq_max_workers() "
            "(IORING_REGISTER_IOWQ_MAX_WORKERS), e.g. unsigned max[2] = {{{0}, {0}}} for "
            "bounded (file) and unbounded (socket, pipe) workers.",
            cap),
        .evidence = {count_evidence("workers", workers.distinct),
                     count_evidence("limit", static_cast<uint64_t>(limit)),
                     count_evidence("ncpus", snapshot.ncpus), count_evidence("pid", workers.pid),
                     count_evidence("punted", punted), text_evidence("fed_by", fed_by)},
    });
  }
}

// --- BATCH --------------------------------------------------------------------------

void rule_batch(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    // An SQPOLL ring's kernel thread submits without io_uring_enter().
    if (ring.sqpoll()) continue;
    const uint64_t calls = ring.counters.enter_submit_calls;
    const uint64_t sqes = ring.counters.submissions;
    if (!at_least(calls, ThresholdId::BatchMinEnterCalls) ||
        !at_least(sqes, ThresholdId::BatchMinSqes))
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

// --- SQPOLL -------------------------------------------------------------------------

// Rings whose SQPOLL thread the tool never saw (sq_tid == 0) carry no thread numbers: a
// zero there is missing data, not a thread that never slept. Both checks need the
// window's length.
void rule_sqpoll(const Snapshot& snapshot, std::vector<Finding>& out) {
  if (snapshot.wall_ns == 0) return;
  const double seconds = static_cast<double>(snapshot.wall_ns) / kNsPerS;
  for (const Ring& ring : snapshot.rings) {
    if (!ring.sqpoll() || ring.sq_tid == 0) continue;
    const Counters& c = ring.counters;
    const double offcpu_pct = pct_of(c.sqpoll_offcpu_ns, snapshot.wall_ns);
    const double per_wakeup = c.sqpoll_wakeups ? static_cast<double>(c.submissions) /
                                                     static_cast<double>(c.sqpoll_wakeups)
                                               : 0.0;

    // Asleep most of the time and woken for small bursts: SQPOLL costs a thread and
    // still a syscall (plus a wakeup) per burst.
    if (offcpu_pct >= thr(ThresholdId::SqpollOffcpuMinPct) &&
        at_least(c.sqpoll_wakeups, ThresholdId::SqpollMinWakeups) &&
        per_wakeup < thr(ThresholdId::SqpollWakeupBatchBelow)) {
      out.push_back(Finding{
          .tag = "SQPOLL",
          .severity = Severity::Warn,
          .ring = ring.id,
          .opcode = std::nullopt,
          .message = fmt::format(
              "{}: the SQPOLL thread (tid {}) was off-CPU for {} of the {} window and the "
              "program had to wake it {} times, {:.1f} SQEs per wakeup: each burst paid an "
              "io_uring_enter() and a thread wakeup, the syscall SQPOLL is meant to remove.",
              ring_label(ring), ring.sq_tid, format_percent(offcpu_pct),
              format_duration(snapshot.wall_ns), format_count(c.sqpoll_wakeups), per_wakeup),
          .suggestion =
              "Raise sq_thread_idle (io_uring_params.sq_thread_idle, in milliseconds) above "
              "the usual gap between bursts so the thread is still polling when the next one "
              "comes, or drop IORING_SETUP_SQPOLL for bursty, low-rate traffic: a plain ring "
              "that submits each burst with one io_uring_submit() costs no more and keeps no "
              "kernel thread.",
          .evidence = {real_evidence("offcpu_pct", offcpu_pct),
                       count_evidence("sqpoll_offcpu_ns", c.sqpoll_offcpu_ns),
                       count_evidence("wall_ns", snapshot.wall_ns),
                       count_evidence("sqpoll_wakeups", c.sqpoll_wakeups),
                       real_evidence("sqes_per_wakeup", per_wakeup),
                       count_evidence("submissions", c.submissions),
                       count_evidence("sqpoll_sleeps", c.sqpoll_sleeps),
                       count_evidence("sqpoll_preempts", c.sqpoll_preempts)},
      });
      continue;
    }

    // Never idle over a window long enough for it to have gone idle: a CPU spent by
    // design. INFO, since that is what some programs buy SQPOLL for.
    if (c.sqpoll_sleeps == 0 && seconds >= thr(ThresholdId::SqpollBusyMinWindow)) {
      out.push_back(Finding{
          .tag = "SQPOLL",
          .severity = Severity::Info,
          .ring = ring.id,
          .opcode = std::nullopt,
          .message = fmt::format(
              "{}: the SQPOLL thread (tid {}) never went to sleep in the {} window: it polled "
              "the SQ the whole time, keeping one CPU busy ({} submitted SQEs, off-CPU {} "
              "only through {} preemptions).",
              ring_label(ring), ring.sq_tid, format_duration(snapshot.wall_ns),
              format_count(c.submissions), format_percent(offcpu_pct),
              format_count(c.sqpoll_preempts)),
          .suggestion =
              "That is SQPOLL's trade: a CPU for no submit syscalls. If the program does not "
              "need it, lower sq_thread_idle so the thread sleeps in the pauses, or drop "
              "IORING_SETUP_SQPOLL; to keep it, pin the thread with IORING_SETUP_SQ_AFF and "
              "sq_thread_cpu on a core the application does not use.",
          .evidence = {count_evidence("sqpoll_sleeps", c.sqpoll_sleeps),
                       count_evidence("sqpoll_preempts", c.sqpoll_preempts),
                       count_evidence("sqpoll_offcpu_ns", c.sqpoll_offcpu_ns),
                       count_evidence("wall_ns", snapshot.wall_ns),
                       count_evidence("submissions", c.submissions)},
      });
    }
  }
}

// --- DEFER-TW -----------------------------------------------------------------------

// With IORING_SETUP_DEFER_TASKRUN a completion is queued as local task work and posted
// only when the submitting thread enters the kernel to wait for completions. Work that
// never runs, or waits long, means that thread is not entering.
// Whether the kernel feature that fills a counter was on: a rule must not read "off" as
// "zero". Snapshots without feature rows (hand-built ones, old baselines) count as on.
bool feature_on(const Snapshot& snapshot, std::string_view name) {
  for (const FeatureState& f : snapshot.kernel.features) {
    if (f.name == name) return f.enabled;
  }
  return true;
}

void rule_defer_tw(const Snapshot& snapshot, std::vector<Finding>& out) {
  // Without the local-work tracepoint every run would look like one that never happened.
  if (!feature_on(snapshot, "local_work")) return;
  const double lag_ns = thr(ThresholdId::DeferTwMaxLag) * kNsPerMs;
  for (const Ring& ring : snapshot.rings) {
    if (!(ring.setup_flags & kSetupDeferTaskrun)) continue;
    const Counters& c = ring.counters;
    if (c.task_adds == 0) continue;
    const bool pending_long = static_cast<double>(c.local_task_work_pending_ns) >= lag_ns;
    // Never ran: unless the work was queued just before the window ended (pending, but
    // not yet for long), which is no sign of anything.
    const bool never_ran =
        c.local_task_work_runs == 0 && (c.local_task_work_pending_ns == 0 || pending_long);
    const bool lagged =
        c.local_task_work_runs > 0 &&
        (static_cast<double>(c.local_task_work_max_lag_ns) >= lag_ns || pending_long);
    if (!never_ran && !lagged) continue;

    std::string message;
    if (never_ran) {
      message = fmt::format(
          "{} (DEFER_TASKRUN): {} completions were queued as task work but the ring's local "
          "task work never ran in the window",
          ring_label(ring), format_count(c.task_adds));
      if (c.local_task_work_pending_ns)
        message += fmt::format(", the oldest waiting for {} at the end",
                               format_duration(c.local_task_work_pending_ns));
    } else {
      message = fmt::format(
          "{} (DEFER_TASKRUN): completions queued as task work waited up to {} before the "
          "submitting thread ran them",
          ring_label(ring), format_duration(c.local_task_work_max_lag_ns));
      if (pending_long)
        message += fmt::format(", and work queued {} before the end was still waiting",
                               format_duration(c.local_task_work_pending_ns));
    }
    message +=
        ": they reach the CQ only when that thread enters io_uring_enter() to wait for "
        "completions, so a program that only watches the CQ ring does not see them.";
    out.push_back(Finding{
        .tag = "DEFER-TW",
        .severity = Severity::Warn,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion =
            "Wait for completions from the submitting thread by entering the kernel: "
            "io_uring_submit_and_wait(), io_uring_wait_cqe() / io_uring_wait_cqes(), or "
            "io_uring_get_events() when the thread must not block. Reading the CQ ring "
            "directly (io_uring_cq_ready(), io_uring_for_each_cqe()) never runs the deferred "
            "work. If the thread must spend long stretches elsewhere, drop "
            "IORING_SETUP_DEFER_TASKRUN.",
        .evidence = {count_evidence("task_adds", c.task_adds),
                     count_evidence("local_task_work_runs", c.local_task_work_runs),
                     count_evidence("local_task_work_max_lag_ns", c.local_task_work_max_lag_ns),
                     count_evidence("local_task_work_pending_ns", c.local_task_work_pending_ns),
                     count_evidence("lag_threshold_ns", static_cast<uint64_t>(lag_ns))},
    });
  }
}

// --- SHORT-WRITE --------------------------------------------------------------------

void rule_short_write(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    const uint64_t shorts = ring.counters.short_writes;
    if (shorts == 0) continue;
    uint64_t writes = 0;
    for (const OpStats& op : ring.ops) {
      if (opcode_is_write(op.opcode)) writes += op.submitted;
    }
    std::string message =
        fmt::format("{}: {} nonblocking buffered writes wrote only part of their data inline",
                    ring_label(ring), format_count(shorts));
    if (writes > 0)
      message += fmt::format(" ({} of {} write requests)", format_percent(pct_of(shorts, writes)),
                             format_count(writes));
    message += "; the kernel wrote the rest from an io-wq worker.";
    Finding finding{
        .tag = "SHORT-WRITE",
        .severity = Severity::Info,
        .ring = ring.id,
        .opcode = std::nullopt,
        .message = std::move(message),
        .suggestion =
            "Usually nothing to do: the request still completes with the full length. If "
            "they are frequent and write latency matters, write with O_DIRECT, or issue "
            "smaller writes aligned to the page size (4 KiB) so each fits what the page cache "
            "takes without blocking.",
        .evidence = {count_evidence("short_writes", shorts), count_evidence("writes", writes)},
    };
    if (writes > 0)
      finding.evidence.push_back(real_evidence("short_write_pct", pct_of(shorts, writes)));
    out.push_back(std::move(finding));
  }
}

// --- POLL-RETRY ---------------------------------------------------------------------

bool opcode_is_send(uint32_t opcode) {
  return opcode == kOpSend || opcode == kOpSendmsg || opcode == kOpSendZc ||
         opcode == kOpSendmsgZc || opcode_is_write(opcode);
}

struct PollAdvice {
  std::string_view missing;  // what the request found missing at submit
  std::string_view suggestion;
};

PollAdvice poll_advice(uint32_t opcode) {
  if (opcode == kOpAccept) {
    return {"a pending connection",
            "Nothing to fix: a listening socket waits for clients. As an optimisation, one "
            "multishot accept (io_uring_prep_multishot_accept()) arms once for many "
            "connections."};
  }
  if (opcode_is_send(opcode)) {
    return {"buffer space",
            "Nothing to fix. If sends often find the socket buffer full, a larger SO_SNDBUF or "
            "fewer sends in flight per socket avoids the wait."};
  }
  return {"the data",
          "Nothing to fix. As an optimisation, a multishot receive with provided buffers "
          "(io_uring_prep_recv_multishot() + io_uring_setup_buf_ring()) arms once for many "
          "messages, and IORING_RECVSEND_POLL_FIRST skips the inline attempt that usually "
          "fails when data is rarely there yet."};
}

// One finding per (ring, op): WARN for regular files (a storage path that waits on
// poll), else INFO for a large share on sockets and pipes (what network I/O looks like).
void rule_poll_retry(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      const std::string name = opcode_name(op.opcode);
      if (at_least(op.poll_armed_regular, ThresholdId::PollRetryRegularMin)) {
        out.push_back(Finding{
            .tag = "POLL-RETRY",
            .severity = Severity::Warn,
            .ring = ring.id,
            .opcode = op.opcode,
            .message = fmt::format(
                "{}: {} {} requests on regular files had to wait on poll: the file system "
                "(FUSE, a network file system, or a procfs/sysfs/tracefs-like file) has no "
                "nowait I/O, so each one waited on poll and then went to io-wq.",
                ring_label(ring), format_count(op.poll_armed_regular), name),
            .suggestion =
                "Expected if the program waits on such a file on purpose (tracefs trace_pipe, "
                "a sysfs attribute); for data files it is news: keep the data on a local block "
                "file system with nowait I/O (ext4, xfs, btrfs), use O_DIRECT where the file "
                "system supports it, or keep these requests off the latency-sensitive ring.",
            .evidence = {count_evidence("poll_armed_regular", op.poll_armed_regular),
                         count_evidence("poll_armed", op.poll_armed),
                         count_evidence("submitted", op.submitted)},
        });
        continue;
      }
      if (!at_least(op.submitted, ThresholdId::PollRetryMinSubmitted)) continue;
      const double pct = pct_of(op.poll_armed, op.submitted);
      if (pct < thr(ThresholdId::PollRetryMinPct)) continue;
      const PollAdvice advice = poll_advice(op.opcode);
      out.push_back(Finding{
          .tag = "POLL-RETRY",
          .severity = Severity::Info,
          .ring = ring.id,
          .opcode = op.opcode,
          .message = fmt::format(
              "{}: {} of {} {} requests ({}) had to wait on poll: {} was not there at submit, "
              "so each was armed on the file's wait queue and retried when it became ready. "
              "Normal for sockets and pipes.",
              ring_label(ring), format_count(op.poll_armed), format_count(op.submitted), name,
              format_percent(pct), advice.missing),
          .suggestion = std::string(advice.suggestion),
          .evidence = {real_evidence("poll_pct", pct), count_evidence("poll_armed", op.poll_armed),
                       count_evidence("submitted", op.submitted)},
      });
    }
  }
}

// --- ERRORS -------------------------------------------------------------------------

// Error codes that are the op working as asked. -ECANCELED for any op: a cancellation was
// requested by the program (or by the kernel at exit, or a failed link). -ETIME is how a
// TIMEOUT or LINK_TIMEOUT reports that its time ran out; no other op has a timeout of
// its own (a request whose linked timeout fires completes with -ECANCELED). -ENOENT and
// -EALREADY on the removal ops mean the target had already completed or was running.
// -EAGAIN never reaches the error counts.
bool expected_errno(uint32_t opcode, int err) {
  if (err == ECANCELED) return true;
  if (err == ETIME) return opcode == kOpTimeout || opcode == kOpLinkTimeout;
  if (err == ENOENT || err == EALREADY)
    return opcode == kOpAsyncCancel || opcode == kOpPollRemove || opcode == kOpTimeoutRemove;
  return false;
}

// What to change for a code, or empty when there is no advice better than the generic.
std::string errno_advice(int err) {
  switch (err) {
    case EBADF:
      return "EBADF: the fd was closed (or never opened) before the request ran, or a fixed "
             "file index (IOSQE_FIXED_FILE) names an empty slot: keep fds open until their "
             "requests complete, and check the io_uring_register_files() table.";
    case EINVAL:
      return "EINVAL: the kernel rejected the SQE: an opcode, flag or field this kernel does "
             "not support, or a bad combination. Check support at startup with "
             "io_uring_get_probe() + io_uring_opcode_supported() (IORING_REGISTER_PROBE), and "
             "prepare SQEs with io_uring_prep_*(), which clears unused fields.";
    case EFAULT:
      return "EFAULT: a buffer or iovec address is not mapped: check the addresses given to "
             "io_uring_prep_*(), and keep buffers alive until their requests complete.";
    case ENOBUFS:
      return "ENOBUFS: the provided-buffer ring ran dry: give buffers back "
             "(io_uring_buf_ring_add() + io_uring_buf_ring_advance()) as soon as a "
             "completion's data is consumed, or make the buffer ring larger.";
    case ECONNRESET:
    case EPIPE:
      return "ECONNRESET/EPIPE: the peer closed or reset the connection; at this rate check "
             "the peers, and close a socket at its first such error instead of reusing it.";
    case ENOMEM:
      return "ENOMEM: the kernel could not allocate for the request: check memory pressure "
             "and the memory cgroup limit.";
    case ENOSPC:
    case EDQUOT:
      return "ENOSPC/EDQUOT: the file system or the quota is full: free space or write "
             "elsewhere.";
    case ENOENT:
      return "ENOENT: the path or target does not exist: expected if the program probes for "
             "files, else check the paths.";
    case EACCES:
    case EPERM:
      return "EACCES/EPERM: permission denied: check file modes, the ring's restrictions "
             "(IORING_REGISTER_RESTRICTIONS) and the security policy (seccomp, LSM).";
    case EOPNOTSUPP:
      return "EOPNOTSUPP: the file or socket does not support this op or flag: check the fd "
             "type against the op.";
    case EMFILE:
    case ENFILE:
      return "EMFILE/ENFILE: out of file descriptors: raise RLIMIT_NOFILE or close files "
             "sooner.";
    case ETIMEDOUT:
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH:
      return "ETIMEDOUT/ECONNREFUSED/EHOSTUNREACH: the connection could not be made: check "
             "the peer's address and reachability.";
    case EIO:
      return "EIO: the device or file system reported an I/O error: check the kernel log "
             "(dmesg).";
    case EINTR:
      return "EINTR: a blocking request was interrupted (a signal to the worker, or the ring "
             "being torn down): resubmit it.";
    default: return {};
  }
}

void rule_errors(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      if (op.errors == 0) continue;
      uint64_t expected = 0;
      std::vector<ErrnoCount> unexpected_codes;
      for (const ErrnoCount& e : op.errnos) {
        if (expected_errno(op.opcode, e.err)) {
          expected += e.count;
        } else {
          unexpected_codes.push_back(e);
        }
      }
      // Errors whose code the tool could not record (errno table full) count as
      // unexpected: nothing says they were cancellations.
      const uint64_t unexpected = op.errors > expected ? op.errors - expected : 0;
      const double pct = pct_of(unexpected, op.completed);
      if (!at_least(unexpected, ThresholdId::ErrorsMinCount) ||
          pct < thr(ThresholdId::ErrorsMinPct))
        continue;

      std::stable_sort(unexpected_codes.begin(), unexpected_codes.end(),
                       [](const ErrnoCount& a, const ErrnoCount& b) { return a.count > b.count; });
      if (unexpected_codes.size() > 3) unexpected_codes.resize(3);
      uint64_t named = 0;
      std::string top;
      for (const ErrnoCount& e : unexpected_codes) {
        if (!top.empty()) top += ", ";
        top += fmt::format("{} {}", errno_name(e.err), format_count(e.count));
        named += e.count;
      }

      const std::string name = opcode_name(op.opcode);
      std::string message = fmt::format(
          "{}: {} of {} {} completions ({}) failed with an unexpected error", ring_label(ring),
          format_count(unexpected), format_count(op.completed), name, format_percent(pct));
      if (!top.empty()) {
        message += fmt::format(": {}", top);
        if (unexpected_codes.size() == 3 && named < unexpected) message += ", ...";
      } else {
        message += " (the codes were not recorded)";
      }
      message += ".";
      if (op.failed > 0)
        message += fmt::format(" {} were rejected before issue: bad SQE fields or opcode.",
                               format_count(op.failed));

      std::vector<std::string> advice;
      for (const ErrnoCount& e : unexpected_codes) {
        std::string line = errno_advice(e.err);
        if (!line.empty() && std::find(advice.begin(), advice.end(), line) == advice.end())
          advice.push_back(std::move(line));
      }
      std::string suggestion;
      for (const std::string& line : advice) suggestion += (suggestion.empty() ? "" : " ") + line;
      if (suggestion.empty()) {
        suggestion = fmt::format(
            "Check how the {} requests are prepared against what the error means for this op "
            "(the io_uring_prep_*(3) and io_uring_enter(2) man pages list each op's errors).",
            name);
      }
      if (op.failed > 0 && std::none_of(unexpected_codes.begin(), unexpected_codes.end(),
                                        [](const ErrnoCount& e) { return e.err == EINVAL; })) {
        suggestion +=
            " The requests rejected before issue had an SQE the kernel refused outright: an "
            "opcode or flag it does not know, a bad fixed-file index, a restricted op; check "
            "with io_uring_get_probe().";
      }

      std::vector<Evidence> evidence = {
          real_evidence("error_pct", pct), count_evidence("errors", op.errors),
          count_evidence("unexpected_errors", unexpected),
          count_evidence("completed", op.completed), count_evidence("failed", op.failed)};
      if (!unexpected_codes.empty()) {
        evidence.push_back(text_evidence("top_errno", errno_name(unexpected_codes[0].err)));
        evidence.push_back(count_evidence("top_errno_count", unexpected_codes[0].count));
        evidence.push_back(text_evidence("top_errnos", top));
      }
      out.push_back(Finding{
          .tag = "ERRORS",
          .severity = Severity::Warn,
          .ring = ring.id,
          .opcode = op.opcode,
          .message = std::move(message),
          .suggestion = std::move(suggestion),
          .evidence = std::move(evidence),
      });
    }
  }
}

// --- LEAK ---------------------------------------------------------------------------

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
};

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
  return Finding{
      .tag = "LEAK",
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
}

std::string leak_age(uint64_t threshold_ns) {
  return threshold_ns ? fmt::format("the leak age ({})", format_duration(threshold_ns))
                      : std::string("the leak age");
}

// One parent with the totals, then one row per (ring, op) from the records the tool
// kept (at most kMaxLeakRecords, oldest first). Only waiting requests: one INFO.
void rule_leak(const Snapshot& snapshot, std::vector<Finding>& out) {
  const LeakInfo& leak = snapshot.leak;
  if (leak.suspected == 0 && leak.pending == 0) return;

  if (leak.suspected == 0) {
    uint64_t oldest = 0;
    std::map<uint32_t, uint64_t> by_op;
    for (const PendingRequest& r : leak.requests) {
      if (leak_suspected(r)) continue;
      oldest = std::max(oldest, r.age_ns);
      ++by_op[r.opcode];
    }
    if (oldest == 0) oldest = leak.oldest_ns;
    const std::string ops = op_count_list({by_op.begin(), by_op.end()}, 4);
    std::string message =
        fmt::format("{} still waiting on events past {}, the oldest for {}", were(leak.pending),
                    leak_age(leak.threshold_ns), format_duration(oldest));
    if (!ops.empty()) message += fmt::format(" ({})", ops);
    message +=
        ". Expected for idle sockets or pipes with no peer activity; a hang if the "
        "program is waiting on them.";
    out.push_back(Finding{
        .tag = "LEAK",
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
    });
    return;
  }

  std::map<std::pair<uint32_t, uint32_t>, LeakGroup> groups;
  uint64_t oldest = 0;
  uint64_t recorded = 0;
  for (const PendingRequest& r : leak.requests) {
    if (!leak_suspected(r)) continue;
    LeakGroup& g = groups[{r.ring, r.opcode}];
    g.ring = r.ring;
    g.opcode = r.opcode;
    ++g.count;
    g.oldest_ns = std::max(g.oldest_ns, r.age_ns);
    if (r.abandoned) ++g.abandoned;
    if (g.user_data.size() < 4) g.user_data.push_back(r.user_data);
    ++g.where[r.where];
    oldest = std::max(oldest, r.age_ns);
    ++recorded;
  }
  // No record of a suspected one (older waiting requests filled the records): the
  // overall oldest is the best bound there is.
  if (oldest == 0) oldest = leak.oldest_ns;

  std::string message = fmt::format(
      "{} in flight longer than {} without waiting on any event, when the window ended or "
      "their program exited; the oldest for {}. A request that never completes keeps its "
      "buffers pinned, and a program waiting for its completion hangs.",
      were(leak.suspected), leak_age(leak.threshold_ns), format_duration(oldest));
  if (leak.pending > 0)
    message += fmt::format(" {} more {} waiting on events (idle sockets, polls).",
                           format_count(leak.pending), leak.pending == 1 ? "was" : "were");
  std::string suggestion =
      groups.empty() ? std::string(
                           "The tool kept no details of them: its records hold the oldest "
                           "requests, and older ones waiting on events filled them. The "
                           "leaks_suspected counter of each ring shows where they are.")
                     : fmt::format(
                           "The LEAK findings that follow name the ring, op, user_data and where "
                           "each request was last seen{}.",
                           recorded < leak.suspected
                               ? fmt::format(" ({} of {} recorded)", format_count(recorded),
                                             format_count(leak.suspected))
                               : std::string());
  out.push_back(Finding{
      .tag = "LEAK",
      .severity = Severity::Warn,
      .ring = std::nullopt,
      .opcode = std::nullopt,
      .message = std::move(message),
      .suggestion = std::move(suggestion),
      .evidence = {count_evidence("suspected", leak.suspected),
                   count_evidence("pending", leak.pending), count_evidence("oldest_ns", oldest),
                   count_evidence("threshold_ns", leak.threshold_ns)},
  });
  for (const auto& [key, group] : groups) out.push_back(leak_detail(group));
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
                    format_count(untracked), format_count(completions),
                    format_percent(untracked_pct)),
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
  if (tool.errno_full > 0) {
    add(fmt::format("{} error completions had codes the tool's errno table had no room for: "
                    "they count as errors, but ERRORS cannot name their codes and counts them "
                    "as unexpected.",
                    format_count(tool.errno_full)),
        "Narrow the target (-p PID instead of -a) so fewer (ring, op, errno) triples compete "
        "for the table.",
        {count_evidence("errno_full", tool.errno_full)});
  }
  if (tool.threads_full > 0) {
    add(fmt::format("{} io threads (io-wq workers, SQPOLL threads) were not recorded because "
                    "the tool's thread table was full: worker counts read low, and SQPOLL "
                    "numbers may be missing.",
                    format_count(tool.threads_full)),
        "Narrow the target (-p PID instead of -a); a process that really runs thousands of "
        "io-wq workers is itself the problem WORKERS describes.",
        {count_evidence("threads_full", tool.threads_full)});
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
  const std::string window =
      snapshot.wall_ns ? fmt::format("the {:.1f} s window", seconds) : std::string("the window");
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
constexpr std::array<Rule, 12> kRules = {
    &rule_nodata,   &rule_overflow,    &rule_punt,       &rule_workers, &rule_batch, &rule_sqpoll,
    &rule_defer_tw, &rule_short_write, &rule_poll_retry, &rule_errors,  &rule_leak,  &rule_tool,
};

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
