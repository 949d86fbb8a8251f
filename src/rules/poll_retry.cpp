// SPDX-License-Identifier: MIT
// POLL-RETRY: requests that found their file not ready and had to wait on poll.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "rules/file_blame.h"
#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

namespace {

bool opcode_is_send(uint32_t opcode) {
  return opcode == op::kSend || opcode == op::kSendmsg || opcode == op::kSendZc ||
         opcode == op::kSendmsgZc || opcode_is_write(opcode);
}

struct PollAdvice {
  std::string_view missing;  // what the request found missing at submit
  std::string_view suggestion;
};

PollAdvice poll_advice(uint32_t opcode) {
  if (opcode == op::kAccept) {
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

}  // namespace

// One finding per (ring, op): WARN for regular files (a storage path that waits on
// poll), else INFO for a large share on sockets and pipes (what network I/O looks like).
void rule_poll_retry(const Snapshot& snapshot, std::vector<Finding>& out) {
  for (const Ring& ring : snapshot.rings) {
    for (const OpStats& op : ring.ops) {
      const std::string name = opcode_name(op.opcode);
      if (at_least(op.poll_armed_regular, ThresholdId::PollRetryRegularMin)) {
        const FileBlame blame =
            blame_files(ring, op.opcode, &FileStats::poll_armed, FileKind::File);
        Finding f{
            .tag = kTagPollRetry,
            .severity = Severity::Warn,
            .ring = ring.id,
            .opcode = op.opcode,
            .message = fmt::format(
                "{}: {} {} requests on regular files had to wait on poll: the file system "
                "(FUSE, a network file system, or a procfs/sysfs/tracefs-like file) has no "
                "nowait I/O, so each one waited on poll and then went to io-wq.{}",
                ring_label(ring), format_count(op.poll_armed_regular), name,
                blame_sentence(blame, "waited on poll")),
            .suggestion =
                "Expected if the program waits on such a file on purpose (tracefs trace_pipe, "
                "a sysfs attribute); for data files it is news: keep the data on a local block "
                "file system with nowait I/O (ext4, xfs, btrfs), use O_DIRECT where the file "
                "system supports it, or keep these requests off the latency-sensitive ring.",
            .evidence = {count_evidence("poll_armed_regular", op.poll_armed_regular),
                         count_evidence("poll_armed", op.poll_armed),
                         count_evidence("submitted", op.submitted)},
        };
        add_file_evidence(f.evidence, blame);
        out.push_back(std::move(f));
        continue;
      }
      if (!at_least(op.submitted, ThresholdId::PollRetryMinSubmitted)) continue;
      const double pct = pct_of(op.poll_armed, op.submitted);
      if (pct < thr(ThresholdId::PollRetryMinPct)) continue;
      const PollAdvice advice = poll_advice(op.opcode);
      const FileBlame blame = blame_files(ring, op.opcode, &FileStats::poll_armed);
      Finding f{
          .tag = kTagPollRetry,
          .severity = Severity::Info,
          .ring = ring.id,
          .opcode = op.opcode,
          .message = fmt::format(
              "{}: {} of {} {} requests ({}) had to wait on poll: {} was not there at submit, "
              "so each was armed on the file's wait queue and retried when it became ready. "
              "Normal for sockets and pipes.{}",
              ring_label(ring), format_count(op.poll_armed), format_count(op.submitted), name,
              format_percent(pct), advice.missing, blame_sentence(blame, "waited on poll")),
          .suggestion = std::string(advice.suggestion),
          .evidence = {real_evidence("poll_pct", pct), count_evidence("poll_armed", op.poll_armed),
                       count_evidence("submitted", op.submitted)},
      };
      add_file_evidence(f.evidence, blame);
      out.push_back(std::move(f));
    }
  }
}

}  // namespace uringscope::rules
