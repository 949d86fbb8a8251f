// SPDX-License-Identifier: MIT
// PUNT: ops whose requests were handed to io-wq workers instead of completing inline.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/file_blame.h"
#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

namespace {

// Ops that have no inline path on any supported kernel: their prep sets
// REQ_F_FORCE_ASYNC or their issue returns -EAGAIN under IO_URING_F_NONBLOCK
// (io_uring/sync.c, fs.c, statx.c, advise.c, splice.c, xattr.c, truncate.c). A 100 %
// punt share is their normal state and nothing the program can change, so counting
// them would make every fsync-heavy program a PUNT. Ops that block only sometimes
// (OPENAT, which punts only when it creates or truncates; FADVISE WILLNEED; SHUTDOWN on
// some kernels) stay in.
bool always_punted(uint32_t opcode) {
  switch (opcode) {
    case op::kFsync:
    case op::kSyncFileRange:
    case op::kFallocate:
    case op::kStatx:
    case op::kMadvise:
    case op::kSplice:
    case op::kTee:
    case op::kRenameat:
    case op::kUnlinkat:
    case op::kMkdirat:
    case op::kSymlinkat:
    case op::kLinkat:
    case op::kFsetxattr:
    case op::kSetxattr:
    case op::kFgetxattr:
    case op::kGetxattr:
    case op::kFtruncate:
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

// Opens that create or truncate: their prep sets REQ_F_FORCE_ASYNC itself (O_CREAT,
// O_TRUNC or O_TMPFILE in io_uring/openclose.c), the same bit IOSQE_ASYNC sets, so a
// "forced" OPENAT is as likely the kernel's doing as the program's.
bool kernel_forces_some(uint32_t opcode) {
  return opcode == op::kOpenat || opcode == op::kOpenat2;
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

// On an IOPOLL ring io-wq hashes every regular-file request per inode
// (io_prep_async_work()), reads included: "hashed" there says nothing about buffered
// writes.
bool hashed_by_iopoll(bool iopoll_ring, std::optional<uint32_t> opcode) {
  return iopoll_ring && opcode && !opcode_is_write(*opcode);
}

// Whose row a label is for: one op (on an IOPOLL ring or not), or all rings, where
// `opens_forced` says some forced punts were opens the kernel may have forced itself.
struct LabelContext {
  std::optional<uint32_t> opcode = std::nullopt;
  bool iopoll_ring = false;
  bool opens_forced = false;
};

std::string_view reason_label(PuntReason reason, const LabelContext& on) {
  const std::optional<uint32_t> opcode = on.opcode;
  const bool iopoll_ring = on.iopoll_ring;
  switch (reason) {
    case PuntReason::Forced:
      return on.opens_forced || (opcode && kernel_forces_some(*opcode))
                 ? "O_CREAT/O_TRUNC or IOSQE_ASYNC"
                 : "IOSQE_ASYNC";
    case PuntReason::Hashed:
      // The all-rings row sums ops of every kind; buffered writes are what hashes there.
      return opcode ? hashed_punt_label(*opcode, iopoll_ring) : "hashed buffered write";
    case PuntReason::RegularFile: return "regular file, would block";
    case PuntReason::Eagain: return "-EAGAIN, no poll";
  }
  return "";
}

// "IOSQE_ASYNC 40, regular file, would block 10": the nonzero reasons, largest first.
std::string reason_breakdown(const PuntReasons& reasons, const LabelContext& on) {
  auto counts = reason_counts(reasons);
  std::stable_sort(counts.begin(), counts.end(),
                   [](const ReasonCount& a, const ReasonCount& b) { return a.count > b.count; });
  std::string text;
  for (const ReasonCount& rc : counts) {
    if (rc.count == 0) continue;
    if (!text.empty()) text += "; ";
    text += fmt::format("{} {}", reason_label(rc.reason, on), format_count(rc.count));
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
std::string punt_suggestion(PuntReason reason, std::optional<uint32_t> opcode,
                            bool iopoll_ring = false) {
  const std::string op = opcode ? opcode_name(*opcode) + " " : std::string();
  if (reason == PuntReason::Hashed && hashed_by_iopoll(iopoll_ring, opcode)) {
    return fmt::format(
        "On an IOPOLL ring the nonblocking issue of these {}requests could not go ahead "
        "(typically the device's queue was full, or the device has no poll queues), and "
        "io-wq then runs IOPOLL file work one request at a time per file. Check that the "
        "device polls (/sys/block/<dev>/queue/io_poll, nvme poll_queues), keep the queue "
        "depth within what the device accepts, or drop IORING_SETUP_IOPOLL for this "
        "device.",
        op);
  }
  switch (reason) {
    case PuntReason::Forced:
      if (opcode && kernel_forces_some(*opcode)) {
        return fmt::format(
            "The kernel sends every {}with O_CREAT, O_TRUNC or O_TMPFILE to io-wq itself "
            "(it cannot create or truncate without blocking), and marks it exactly as "
            "IOSQE_ASYNC would. If these opens create files, that is the cost of creating "
            "them: create files ahead of the hot path, or reuse them. Only if they open "
            "existing files without those flags does dropping IOSQE_ASYNC help.",
            op);
      }
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

// The page cache is not the cause when the files are O_DIRECT already: the suggestion for
// a regular-file or hashed punt must not tell the program to do what it does.
bool blames_page_cache(std::optional<PuntReason> reason) {
  return reason == PuntReason::RegularFile || reason == PuntReason::Hashed;
}

std::string direct_punt_suggestion(uint32_t opcode) {
  const std::string op = opcode_name(opcode);
  if (opcode_is_write(opcode)) {
    return fmt::format(
        "These {} requests use O_DIRECT already, so the page cache is not the cause: a "
        "direct write that must allocate blocks (into a sparse file, or past its end) "
        "cannot go ahead without blocking, and the kernel hands it to a worker. Preallocate "
        "the file with fallocate() before the writes, or write over blocks written before.",
        op);
  }
  return fmt::format(
      "These {} requests use O_DIRECT already, so the page cache is not the cause: the file "
      "system or the device could not take them without blocking (no nowait support, or "
      "the device's queue was full). Keep the requests in flight within the device's queue "
      "depth, and check that the file system supports nowait direct I/O (ext4, xfs, btrfs).",
      op);
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
  const bool iopoll = row.ring->setup_flags & kSetupIopoll;
  std::string message = fmt::format(
      "{}: {} of {} {} requests were punted to io-wq worker threads ({}) instead of "
      "completing inline",
      ring_label(*row.ring), format_count(op.punted), format_count(op.submitted), name,
      format_percent(op.punt_pct()));
  if (dominant) {
    message += fmt::format(" (by reason: {})", reason_breakdown(op.punt_reasons,
                                                                {.opcode = op.opcode,
                                                                 .iopoll_ring = iopoll}));
  }
  message += "; io-wq is where the tail latency comes from";
  // No latency sample (all completions untracked) must not print as "p99 0ns".
  message += op.latency.count() ? fmt::format(" ({} p99 {}).", name, format_duration(p99)) : ".";
  const FileBlame blame = blame_files(*row.ring, op.opcode, &FileStats::punted);
  message += blame_sentence(blame, "punted");
  const bool direct = blame.all_direct && blames_page_cache(dominant);
  if (direct) message += " The files are opened O_DIRECT.";

  std::vector<Evidence> evidence = punt_evidence(op.punted, op.submitted, op.punt_reasons);
  evidence.insert(evidence.begin() + 3, count_evidence("p99_ns", p99));
  add_file_evidence(evidence, blame);
  if (!blame.empty()) evidence.push_back(count_evidence("o_direct", blame.all_direct ? 1 : 0));
  return Finding{
      .tag = kTagPunt,
      .severity = Severity::Warn,
      .ring = row.ring->id,
      .opcode = op.opcode,
      .message = std::move(message),
      .suggestion = direct     ? direct_punt_suggestion(op.opcode)
                    : dominant ? punt_suggestion(*dominant, op.opcode, iopoll)
                               : punt_suggestion_by_kind(op.opcode),
      .evidence = std::move(evidence),
  };
}

}  // namespace

void rule_punt(const Snapshot& snapshot, std::vector<Finding>& out) {
  std::vector<PuntRow> rows;
  uint64_t punted = 0;
  uint64_t submitted = 0;
  PuntReasons reasons;
  bool opens_forced = false;
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      if (always_punted(op.opcode)) continue;
      punted += op.punted;
      submitted += op.submitted;
      reasons += op.punt_reasons;
      opens_forced |= kernel_forces_some(op.opcode) && op.punt_reasons.forced > 0;
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
    if (dominant) {
      message += fmt::format(" (by reason: {})",
                             reason_breakdown(reasons, {.opens_forced = opens_forced}));
    }
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
        .tag = kTagPunt,
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

}  // namespace uringscope::rules
