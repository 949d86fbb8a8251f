// SPDX-License-Identifier: MIT
// OVERFLOW: rings whose CQ filled up, so completions took the kernel's overflow path.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"

namespace uringscope::rules {

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
        .tag = kTagOverflow,
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

}  // namespace uringscope::rules
