// SPDX-License-Identifier: MIT
// The ring's "boundary" block of the text report: the SQ and CQ rings between the kernel
// and the program (bpf/boundary.bpf.h), what waits there and for how long.
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "report/report.h"
#include "report/text_layout.h"
#include "uringscope/abi.h"
#include "uringscope/findings.h"
#include "util/format.h"

namespace uringscope {

using Align = TextTable::Align;

namespace {

std::string percentiles(const Histogram& h) {
  return fmt::format("p50 {}  p99 {}  max {}", format_duration(h.quantile_ns(0.5)),
                     format_duration(h.quantile_ns(0.99)), format_duration(h.max_ns));
}

// How close the SQ waits are: of the SQEs seen waiting, how much earlier they could have
// been written; the ones taken before any look saw them count as 0.
std::string sq_wait_resolution(const RingBoundary& b) {
  const uint64_t seen_waiting = b.sq_wait.count() - std::min(b.sq_wait.count(), b.sq_taken_unseen);
  std::string out;
  if (b.sq_taken_unseen)
    out = fmt::format("; {} taken before a look saw them, counted as 0", format_count(b.sq_taken_unseen));
  if (seen_waiting)
    out += fmt::format("; {} seen waiting, each written up to {} before it was seen on average, {} at most",
                       format_count(seen_waiting), format_duration(b.sq_res_mean_ns()),
                       format_duration(b.sq_res_max_ns));
  return out;
}

// What the uprobes saw: submit batching as the program asked for it, and the exact reap
// lag of the CQEs that a waiting or batch call handed over.
std::string liburing_row(const RingBoundary& b) {
  std::string out = fmt::format("{} io_uring_submit*() calls, {} SQEs per call (max {}); {} CQEs handed over by waiting calls",
                                format_count(b.lu_submit_calls), format_fixed(b.lu_sqes_per_submit(), 1),
                                format_count(b.lu_submit_max), format_count(b.lu_cqes_handed));
  const Histogram& lag = b.lu_reap_lag;
  if (lag.count())
    out += fmt::format(", exact reap lag {} ({} CQEs timed)", percentiles(lag), format_count(lag.count()));
  return out;
}

// Reaps the lag leaves out, and why: a reap that passed more CQEs than the ring keeps
// post times for, or CQEs that came through the overflow list.
std::string untimed_note(const RingBoundary& b) {
  if (!b.reap_untimed) return "";
  return fmt::format("; {} more reaped without a post time: more than {} waited at once, or "
                     "they overflowed",
                     format_count(b.reap_untimed), US_CQ_POSTS);
}

}  // namespace

std::string boundary_sources_line(const Snapshot& snap) {
  const LiburingUprobes& lu = snap.liburing;
  if (!lu.tried) return "boundary: the rings' indices (--liburing adds uprobes on a shared liburing)";
  if (!lu.attached()) return "boundary: the rings' indices only; liburing uprobes: " + lu.why_not;
  const bool called = std::any_of(snap.rings.begin(), snap.rings.end(), [](const Ring& r) {
    return r.boundary.liburing_seen();
  });
  if (!called)
    return fmt::format("boundary: the rings' indices only; liburing uprobes on {} saw no call "
                       "(liburing linked statically, inlined, or not used)",
                       fmt::join(lu.libraries, ", "));
  return fmt::format("boundary: the rings' indices, and uprobes on {} ({} liburing calls)",
                     fmt::join(lu.libraries, ", "), lu.functions);
}

void render_boundary(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent) {
  const RingBoundary& b = ring.boundary;
  const Histogram& wait = b.sq_wait;
  if (b.cq_depth_samples == 0 && wait.count() == 0 && !b.liburing_seen()) return;
  out << indent << "boundary (from the rings' indices)\n";
  TextTable table({Align::Left, Align::Left}, std::string(indent) + "  ");
  if (wait.count() > 0) {
    table.add_row(
        {"SQ wait",
         fmt::format("{} ({} SQEs watched until the SQPOLL thread took them{})", percentiles(wait),
                     format_count(wait.count()), sq_wait_resolution(b))},
        marker_if(finding_concerns(findings, {kTagSqWait}, ring.id, std::nullopt)));
  }
  if (b.liburing_seen()) table.add_row({"liburing", liburing_row(b)});
  if (b.cq_depth_samples == 0) {
    table.write(out);
    return;
  }
  table.add_row({"CQ depth", fmt::format("avg {}, max {} CQEs ready and not reaped ({} CQEs)",
                                         format_fixed(b.cq_depth_avg(), 1),
                                         format_count(b.cq_depth_max),
                                         format_count(b.cq_depth_samples))});
  const Histogram& lag = b.reap_lag;
  const std::string marker = marker_if(finding_concerns(findings, {kTagReapLag}, ring.id, std::nullopt));
  if (lag.count() > 0) {
    table.add_row(
        {"reap lag",
         fmt::format("{} ({} CQEs reaped; each reap seen within {} on average, {} at most; "
                     "at least p99 {}{})",
                     percentiles(lag), format_count(lag.count()),
                     format_duration(b.reap_gap_mean_ns()), format_duration(b.reap_gap_max_ns),
                     format_duration(b.reap_lag_min.quantile_ns(0.99)), untimed_note(b))},
        marker);
  }
  if (b.reap_never > 0) {
    table.add_row({"never reaped",
                   fmt::format("{} CQEs still in the CQ ring when it was torn down, the oldest "
                               "posted {} before",
                               format_count(b.reap_never), format_duration(b.reap_never_max_ns))},
                  marker);
  }
  table.write(out);
}

}  // namespace uringscope
