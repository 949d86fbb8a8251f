// SPDX-License-Identifier: MIT
// The sections of a ring's block in the text report: its header, the submission block,
// the per-op table and the per-op details under it.
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "util/errno_name.h"
#include "util/format.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"
#include "report/report.h"
#include "report/text_layout.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

// Error codes named per op; the rest are summed into "other", which is rarely worth more.
constexpr std::size_t kTopErrnos = 3;

bool created_before_attach(const Ring& ring) {
  return ring.source == RingSource::FdTable || ring.source == RingSource::Submit;
}

// "690,000 regular file (likely page-cache miss)", ... for the non-zero reasons.
std::vector<std::string> punt_reason_items(const OpStats& op, bool iopoll_ring) {
  std::vector<std::string> items;
  auto add = [&](uint64_t n, std::string_view label) {
    if (n) items.push_back(format_count(n) + " " + std::string(label));
  };
  for (const PuntReasonField& field : kPuntReasonFields) {
    add(op.punt_reasons.*field.member, field.reason == PuntReason::Hashed
                                           ? hashed_punt_label(op.opcode, iopoll_ring)
                                           : field.text);
  }
  // The legacy tier sees punts but not their reasons; a bare total would read as if the
  // listed reasons were all of them.
  uint64_t classified = classified_punts(op.punt_reasons);
  if (op.punted > classified) add(op.punted - classified, "unclassified");
  return items;
}

// "EBADF 48", "EINVAL 2", "3 other": the top codes, then whatever they leave unexplained
// (codes past the top few, and errors the errno table had no room for).
std::vector<std::string> errno_items(const OpStats& op) {
  std::vector<ErrnoCount> errnos = op.errnos;
  // Snapshot promises largest first; a merged or hand-built one may not keep it.
  std::stable_sort(errnos.begin(), errnos.end(),
                   [](const ErrnoCount& a, const ErrnoCount& b) { return a.count > b.count; });
  std::vector<std::string> items;
  uint64_t shown = 0;
  for (std::size_t i = 0; i < errnos.size() && i < kTopErrnos; ++i) {
    items.push_back(errno_name(errnos[i].err) + " " + format_count(errnos[i].count));
    shown += errnos[i].count;
  }
  if (shown > 0 && op.errors > shown) items.push_back(format_count(op.errors - shown) + " other");
  return items;
}

void render_op_errors(std::ostream& out, const OpStats& op, std::string_view indent) {
  std::string name = opcode_name(op.opcode);
  std::string rejected = format_count(op.failed) + " rejected before issue";
  if (op.errors == 0) {
    out << indent << name << ' ' << rejected << '\n';
    return;
  }
  std::vector<std::string> items = errno_items(op);
  std::string lead = name + " errors " + format_count(op.errors);
  if (op.failed > 0) {
    if (items.empty()) {
      lead += "; " + rejected;
    } else {
      items.back() += "; " + rejected;
    }
  }
  if (!items.empty()) lead += ": ";
  write_list(out, indent, lead, items);
}

// "RECV 900 of 5,000 waited on poll (12 on regular files)".
void render_op_poll(std::ostream& out, const OpStats& op, std::string_view indent) {
  std::string line =
      std::string(indent) + opcode_name(op.opcode) + " " + format_count(op.poll_armed);
  if (op.submitted > 0) line += " of " + format_count(op.submitted);
  line += " waited on poll";
  if (op.poll_armed_regular > 0)
    line += " (" + format_count(op.poll_armed_regular) + " on regular files)";
  out << line << '\n';
}

// Whose rings a fold sums, for its heading.
std::string fold_owner(const Ring& ring) {
  switch (ring.fold) {
    case FoldScope::Process: return fmt::format("of {} pid {}", ring.comm, ring.pid);
    case FoldScope::Command: return fmt::format("of processes named {}", ring.comm);
    case FoldScope::All: return "of other processes";
    case FoldScope::Ring: break;
  }
  return {};
}

}  // namespace

bool has_op_details(const OpStats& op) {
  return op.punted || op.poll_armed || op.poll_armed_regular || op.errors || op.failed;
}

void render_ring_header(std::ostream& out, const Ring& ring) {
  if (ring.source == RingSource::CatchAll) {
    out << "other rings (ring table full)\n";
    return;
  }
  auto size = [](uint32_t n) { return n ? std::to_string(n) : std::string("?"); };
  std::vector<std::string> flags = setup_flag_names(ring.setup_flags);
  const std::string shape = fmt::format("sq={} cq={}  flags: {}", size(ring.sq_entries),
                                        size(ring.cq_entries),
                                        flags.empty() ? std::string("(none)")
                                                      : fmt::format("{}", fmt::join(flags, "|")));
  if (ring.folded_rings) {
    out << fmt::format("ring #{}: {} destroyed ring{} {}, summed  {}", ring.id,
                       format_count(ring.folded_rings), ring.folded_rings == 1 ? "" : "s",
                       fold_owner(ring), shape)
        << '\n';
    return;
  }
  std::string fd = ring.fd < 0 ? std::string("?") : std::to_string(ring.fd);
  std::string line = fmt::format("ring #{} fd={}  {}", ring.id, fd, shape);
  std::string owner = ring.comm;
  if (ring.pid != 0) owner += (owner.empty() ? "" : " ") + fmt::format("pid {}", ring.pid);
  if (!owner.empty()) line += "   " + owner;
  if (created_before_attach(ring)) line += "  (created before attach)";
  if (ring.destroyed) line += "  (destroyed)";
  out << line << '\n';
}

void render_submission(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                       std::string_view indent) {
  const Counters& c = ring.counters;
  std::string batch;
  if (ring.sqpoll()) {
    if (c.submissions > 0) batch = "submitted by the SQPOLL thread";
  } else if (c.enter_submit_calls > 0) {
    batch = "avg batch " + format_fixed(ring.avg_batch(), 1) + "/enter";
  }
  TextTable table({Align::Left, Align::Right, Align::Left}, std::string(indent));
  table.add_row({"io_uring_enter() calls", format_count(c.enter_calls)});
  table.add_row({"SQEs submitted", format_count(c.submissions), batch},
                marker_if(finding_concerns(findings, {kTagBatch}, ring.id, std::nullopt)));
  table.add_row({"completions", format_count(c.completions)});
  table.write(out);
}

void render_op_table(std::ostream& out, std::span<const OpStats> ops,
                     std::optional<uint32_t> ring, const std::vector<Finding>& findings,
                     uint64_t window_ns, std::string_view indent) {
  TextTable table({Align::Left}, std::string(indent));
  table.add_row({"op", "reqs", "p50", "p99", "max", "punted", "errors", "bytes", "B/s", "B/req"});
  for (const OpStats& op : ops) {
    const Histogram& h = op.latency;
    bool timed = h.count() > 0;
    auto latency = [&](uint64_t ns) { return timed ? format_duration(ns) : std::string("-"); };
    const bool moves = opcode_moves_data(op.opcode);
    bool marked =
        finding_concerns(findings, {kTagPunt, kTagErrors, kTagPollRetry}, ring, op.opcode);
    table.add_row({opcode_name(op.opcode), format_count(op.submitted), latency(h.quantile_ns(0.5)),
                   latency(h.quantile_ns(0.99)), latency(h.max_ns),
                   op.submitted ? format_percent(op.punt_pct()) : std::string("-"),
                   format_count(op.errors), moves ? format_bytes(op.bytes) : std::string("-"),
                   moves && window_ns ? format_bytes(static_cast<uint64_t>(
                                            bytes_per_second(op.bytes, window_ns)))
                                      : std::string("-"),
                   moves ? format_bytes(static_cast<uint64_t>(op.bytes_per_request())) : std::string("-")},
                  marker_if(marked));
  }
  table.write(out);
}

void render_op_details(std::ostream& out, std::span<const OpStats> ops, bool iopoll_ring,
                       std::string_view indent) {
  for (const OpStats& op : ops) {
    if (!has_op_details(op)) continue;
    if (op.punted > 0)
      write_list(out, indent,
                 opcode_name(op.opcode) + " punted " + format_count(op.punted) + ": ",
                 punt_reason_items(op, iopoll_ring));
    if (op.poll_armed > 0 || op.poll_armed_regular > 0) render_op_poll(out, op, indent);
    if (op.errors > 0 || op.failed > 0) render_op_errors(out, op, indent);
  }
}

}  // namespace uringscope
