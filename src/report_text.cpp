// SPDX-License-Identifier: MIT
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "uringscope/format.h"
#include "uringscope/opcodes.h"
#include "uringscope/report.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

constexpr std::string_view kMarker = "<-- !";
constexpr std::size_t kLineWidth = 76;
// Wrapping to a sliver of a line is worse than running past kLineWidth.
constexpr std::size_t kMinWrap = 30;

std::string marker_if(bool marked) { return marked ? std::string(kMarker) : std::string(); }

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string target_line(const TargetInfo& target) {
  switch (target.mode) {
    case TargetMode::Command: {
      std::string line = "target: command";
      for (const std::string& arg : target.command) line += " " + arg;
      return line;
    }
    case TargetMode::Pid: {
      std::vector<std::string> pids;
      for (int pid : target.pids) pids.push_back(std::to_string(pid));
      return "target: pid " + join(pids, ",");
    }
    case TargetMode::All: return "target: all processes";
  }
  return "target: all processes";
}

bool created_before_attach(const Ring& ring) {
  return ring.source == RingSource::FdTable || ring.source == RingSource::Submit;
}

void render_ring(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings) {
  render_ring_header(out, ring);
  out << "  submission\n";
  render_submission(out, ring, findings);
  out << "  per-op latency (submit -> complete)\n";
  if (ring.ops.empty()) {
    out << "    (no requests seen)\n";
  } else {
    render_op_table(out, ring.ops, ring.id, findings);
  }
  render_counters(out, ring, findings);
  render_untracked_note(out, ring.counters);
}

}  // namespace

bool finding_concerns(const std::vector<Finding>& findings,
                      std::initializer_list<std::string_view> tags,
                      std::optional<uint32_t> ring, std::optional<uint32_t> opcode) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    if (std::find(tags.begin(), tags.end(), f.tag) == tags.end()) return false;
    if (!f.ring) return false;
    if (ring && *f.ring != *ring) return false;
    if (opcode && f.opcode != opcode) return false;
    return true;
  });
}

void render_text_header(std::ostream& out, const Snapshot& snap) {
  std::vector<std::string> facts{format_duration(snap.wall_ns)};
  if (snap.ncpus > 0) facts.push_back(fmt::format("{} cpu{}", snap.ncpus, snap.ncpus == 1 ? "" : "s"));
  if (!snap.kernel.release.empty()) facts.push_back("kernel " + snap.kernel.release);
  if (!snap.kernel.tier.empty()) facts.push_back("tier " + snap.kernel.tier);
  std::string title = "uringscope report (" + join(facts, ", ") + ")";
  out << title << '\n' << std::string(title.size(), '=') << '\n';
  out << target_line(snap.target) << '\n';

  // A degraded kernel must be visible next to the numbers it degrades, not only in
  // --version.
  TextTable off({Align::Left, Align::Left}, "  ");
  for (const FeatureState& feature : snap.kernel.features) {
    if (!feature.enabled) off.add_row({feature.name, feature.detail});
  }
  if (!off.empty()) {
    out << "kernel features off:\n";
    off.write(out);
  }
}

void render_ring_header(std::ostream& out, const Ring& ring) {
  if (ring.source == RingSource::CatchAll) {
    out << "other rings (ring table full)\n";
    return;
  }
  std::string fd = ring.fd < 0 ? std::string("?") : std::to_string(ring.fd);
  auto size = [](uint32_t n) { return n ? std::to_string(n) : std::string("?"); };
  std::vector<std::string> flags = setup_flag_names(ring.setup_flags);
  std::string line = fmt::format("ring #{} fd={}  sq={} cq={}  flags: {}", ring.id, fd,
                                 size(ring.sq_entries), size(ring.cq_entries),
                                 flags.empty() ? std::string("(none)") : join(flags, "|"));
  std::string owner = ring.comm;
  if (ring.pid != 0) owner += (owner.empty() ? "" : " ") + fmt::format("pid {}", ring.pid);
  if (!owner.empty()) line += "   " + owner;
  if (created_before_attach(ring)) line += "  (created before attach)";
  out << line << '\n';
}

void render_submission(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                       std::string_view indent) {
  const Counters& c = ring.counters;
  std::string batch;
  if (c.enter_submit_calls > 0) {
    batch = "avg batch " + format_fixed(ring.avg_batch(), 1) + "/enter";
  } else if (ring.sqpoll() && c.submissions > 0) {
    batch = "submitted by the SQPOLL thread";
  }
  TextTable table({Align::Left, Align::Right, Align::Left}, std::string(indent));
  table.add_row({"io_uring_enter() calls", format_count(c.enter_calls)});
  table.add_row({"SQEs submitted", format_count(c.submissions), batch},
                marker_if(finding_concerns(findings, {"BATCH"}, ring.id, std::nullopt)));
  table.add_row({"completions", format_count(c.completions)});
  table.write(out);
}

void render_op_table(std::ostream& out, std::span<const OpStats> ops,
                     std::optional<uint32_t> ring, const std::vector<Finding>& findings,
                     std::string_view indent) {
  TextTable table({Align::Left}, std::string(indent));
  table.add_row({"op", "reqs", "p50", "p99", "max", "punted", "errors"});
  for (const OpStats& op : ops) {
    const Histogram& h = op.latency;
    bool timed = h.count() > 0;
    auto latency = [&](uint64_t ns) { return timed ? format_duration(ns) : std::string("-"); };
    bool marked = finding_concerns(findings, {"PUNT", "ERRORS"}, ring, op.opcode);
    table.add_row({opcode_name(op.opcode), format_count(op.submitted), latency(h.quantile_ns(0.5)),
                   latency(h.quantile_ns(0.99)), latency(h.max_ns),
                   op.submitted ? format_percent(op.punt_pct()) : std::string("-"),
                   format_count(op.errors)},
                  marker_if(marked));
  }
  table.write(out);
}

void render_counters(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent) {
  const Counters& c = ring.counters;
  TextTable table({Align::Left, Align::Right}, std::string(indent) + "  ");
  if (c.cq_overflows)
    table.add_row({"CQ overflows", format_count(c.cq_overflows)},
                  marker_if(finding_concerns(findings, {"OVERFLOW"}, ring.id, std::nullopt)));
  if (c.multishot_cqes) table.add_row({"multishot CQEs", format_count(c.multishot_cqes)});
  if (c.untracked_completions)
    table.add_row({"untracked completions", format_count(c.untracked_completions)});
  if (c.inflight_map_drops)
    table.add_row({"in-flight table drops", format_count(c.inflight_map_drops)});
  if (table.empty()) return;
  out << indent << "counters\n";
  table.write(out);
}

void render_untracked_note(std::ostream& out, const Counters& counters, std::string_view indent) {
  if (counters.untracked_completions == 0) return;
  uint64_t n = counters.untracked_completions;
  std::string body = fmt::format(
      "{} completion{} untracked (submitted before attach, or dropped from the in-flight "
      "table); latency statistics cover tracked requests only.",
      format_count(n), n == 1 ? " was" : "s were");
  std::string label = std::string(indent) + "note: ";
  std::string hang(label.size(), ' ');
  std::vector<std::string> lines =
      wrap_words(body, std::max(kMinWrap, kLineWidth - std::min(kLineWidth, label.size())));
  for (std::size_t i = 0; i < lines.size(); ++i) out << (i == 0 ? label : hang) << lines[i] << '\n';
}

void render_tool_stats(std::ostream& out, const ToolStats& tool) {
  TextTable table({Align::Left, Align::Right}, "  ");
  auto row = [&](uint64_t value, std::string label) {
    if (value) table.add_row({std::move(label), format_count(value)});
  };
  row(tool.rings_full, "events counted under \"other rings\" (ring table full)");
  row(tool.opstats_full, "events counted in a catch-all op row (op table full)");
  row(tool.op_out_of_range, "requests with an opcode beyond the table");
  row(tool.enter_no_ring, "io_uring_enter() calls not matched to a ring");
  row(tool.overflow_no_req, "overflowed CQEs of untracked requests");
  if (table.empty()) return;
  out << "tool losses\n";
  table.write(out);
}

void render_findings(std::ostream& out, const std::vector<Finding>& findings) {
  out << "findings\n";
  if (findings.empty()) {
    out << "  no findings\n";
    return;
  }
  // One tag column for all findings so severities and texts line up.
  std::size_t tag_width = 0;
  for (const Finding& f : findings) tag_width = std::max(tag_width, f.tag.size() + 2);
  std::string hang(2 + tag_width + 1, ' ');  // under the severity
  std::string text_indent = hang + "      ";  // under the message

  for (const Finding& f : findings) {
    // Messages name their ring and op themselves (rules.cpp), so no scope is added here.
    std::size_t width =
        std::max(kMinWrap, kLineWidth - std::min(kLineWidth, text_indent.size()));
    std::vector<std::string> lines = wrap_words(f.message, width);
    std::string tag = "[" + f.tag + "]";
    tag.resize(tag_width, ' ');
    std::string lead = fmt::format("  {} {:<4}  ", tag, severity_name(f.severity));
    if (lines.empty()) lines.emplace_back();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string line = (i == 0 ? lead : text_indent) + lines[i];
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
    std::vector<std::string> fix = wrap_words(f.suggestion, width);
    for (std::size_t i = 0; i < fix.size(); ++i)
      out << (i == 0 ? hang + "fix:  " : text_indent) << fix[i] << '\n';
  }
}

void render_text(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                 const TextOptions& opts) {
  render_text_header(out, snap);
  if (snap.rings.empty()) {
    out << "\nno io_uring activity seen\n";
  } else {
    // Snapshot promises ascending ids; sort anyway, a merged or filtered snapshot may not.
    std::vector<const Ring*> rings;
    for (const Ring& ring : snap.rings) rings.push_back(&ring);
    std::stable_sort(rings.begin(), rings.end(),
                     [](const Ring* a, const Ring* b) { return a->id < b->id; });
    for (const Ring* ring : rings) {
      out << '\n';
      render_ring(out, *ring, findings);
    }
  }
  const ToolStats& t = snap.tool;
  if (t.rings_full || t.opstats_full || t.op_out_of_range || t.enter_no_ring || t.overflow_no_req) {
    out << '\n';
    render_tool_stats(out, t);
  }
  if (opts.show_findings) {
    out << '\n';
    render_findings(out, findings);
  }
}

}  // namespace uringscope
