// SPDX-License-Identifier: MIT
// SHORT-WRITE: nonblocking buffered writes that wrote only part of their data inline.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

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
        .tag = kTagShortWrite,
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

}  // namespace uringscope::rules
