// SPDX-License-Identifier: MIT
// ERRORS: ops whose completions fail with unexpected error codes.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/file_blame.h"
#include "rules/rule_kit.h"
#include "util/errno_name.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

namespace {

// Error codes that are the op working as asked. -ECANCELED for any op: a cancellation was
// requested by the program (or by the kernel at exit, or a failed link). -ETIME is how a
// TIMEOUT or LINK_TIMEOUT reports that its time ran out; no other op has a timeout of
// its own (a request whose linked timeout fires completes with -ECANCELED). -ENOENT and
// -EALREADY on the removal ops mean the target had already completed or was running.
// -EAGAIN never reaches the error counts.
bool expected_errno(uint32_t opcode, int err) {
  if (err == ECANCELED) return true;
  if (err == ETIME) return opcode == op::kTimeout || opcode == op::kLinkTimeout;
  if (err == ENOENT || err == EALREADY)
    return opcode == op::kAsyncCancel || opcode == op::kPollRemove || opcode == op::kTimeoutRemove;
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

// An op's errors split into the expected ones and the rest. Errors whose code the tool
// could not record (errno table full) count as unexpected: nothing says they were
// cancellations.
struct ErrorSplit {
  uint64_t unexpected = 0;
  std::vector<ErrnoCount> top;  // the largest unexpected codes, at most kTopCodes
  std::string top_text;         // "EBADF 48, EINVAL 2"
  uint64_t named = 0;           // errors that `top` names
};
constexpr std::size_t kTopCodes = 3;

ErrorSplit split_errors(const OpStats& op) {
  ErrorSplit split;
  uint64_t expected = 0;
  for (const ErrnoCount& e : op.errnos) {
    if (expected_errno(op.opcode, e.err)) {
      expected += e.count;
    } else {
      split.top.push_back(e);
    }
  }
  split.unexpected = op.errors > expected ? op.errors - expected : 0;
  std::stable_sort(split.top.begin(), split.top.end(),
                   [](const ErrnoCount& a, const ErrnoCount& b) { return a.count > b.count; });
  if (split.top.size() > kTopCodes) split.top.resize(kTopCodes);
  for (const ErrnoCount& e : split.top) {
    if (!split.top_text.empty()) split.top_text += ", ";
    split.top_text += fmt::format("{} {}", errno_name(e.err), format_count(e.count));
    split.named += e.count;
  }
  return split;
}

std::string errors_message(const Ring& ring, const OpStats& op, const ErrorSplit& split,
                           double pct) {
  std::string message = fmt::format(
      "{}: {} of {} {} completions ({}) failed with an unexpected error", ring_label(ring),
      format_count(split.unexpected), format_count(op.completed), opcode_name(op.opcode),
      format_percent(pct));
  if (!split.top_text.empty()) {
    message += fmt::format(": {}", split.top_text);
    if (split.top.size() == kTopCodes && split.named < split.unexpected) message += ", ...";
  } else {
    message += " (the codes were not recorded)";
  }
  message += ".";
  if (op.failed > 0)
    message += fmt::format(" {} were rejected before issue: bad SQE fields or opcode.",
                           format_count(op.failed));
  return message;
}

std::string errors_suggestion(const OpStats& op, const ErrorSplit& split) {
  std::vector<std::string> advice;
  for (const ErrnoCount& e : split.top) {
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
        opcode_name(op.opcode));
  }
  if (op.failed > 0 && std::none_of(split.top.begin(), split.top.end(),
                                    [](const ErrnoCount& e) { return e.err == EINVAL; })) {
    suggestion +=
        " The requests rejected before issue had an SQE the kernel refused outright: an "
        "opcode or flag it does not know, a bad fixed-file index, a restricted op; check "
        "with io_uring_get_probe().";
  }
  return suggestion;
}

std::vector<Evidence> errors_evidence(const OpStats& op, const ErrorSplit& split, double pct) {
  std::vector<Evidence> evidence = {
      real_evidence("error_pct", pct), count_evidence("errors", op.errors),
      count_evidence("unexpected_errors", split.unexpected),
      count_evidence("completed", op.completed), count_evidence("failed", op.failed)};
  if (!split.top.empty()) {
    evidence.push_back(text_evidence("top_errno", errno_name(split.top[0].err)));
    evidence.push_back(count_evidence("top_errno_count", split.top[0].count));
    evidence.push_back(text_evidence("top_errnos", split.top_text));
  }
  return evidence;
}

}  // namespace

void rule_errors(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      if (op.errors == 0) continue;
      const ErrorSplit split = split_errors(op);
      const double pct = pct_of(split.unexpected, op.completed);
      if (!at_least(split.unexpected, ThresholdId::ErrorsMinCount) ||
          pct < thr(ThresholdId::ErrorsMinPct))
        continue;
      const FileBlame blame = blame_files(ring, op.opcode, &FileStats::errors);
      Finding finding{
          .tag = kTagErrors,
          .severity = Severity::Warn,
          .ring = ring.id,
          .opcode = op.opcode,
          .message = errors_message(ring, op, split, pct) + blame_sentence(blame, "errors"),
          .suggestion = errors_suggestion(op, split),
          .evidence = errors_evidence(op, split, pct),
      };
      add_file_evidence(finding.evidence, blame);
      out.push_back(std::move(finding));
    }
  }
}

}  // namespace uringscope::rules
