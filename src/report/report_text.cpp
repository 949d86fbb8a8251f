// SPDX-License-Identifier: MIT
// The full text report: its header, the rings in id order, the run-level sections and
// the findings. The per-ring sections are in report_ring.cpp and report_counters.cpp,
// the run-level ones in report_run.cpp.
#include <algorithm>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "util/format.h"
#include "util/strings.h"
#include "uringscope/fields.h"
#include "uringscope/opcodes.h"
#include "report/report.h"
#include "report/text_layout.h"

namespace uringscope {

std::string target_line(const TargetInfo& target) {
  switch (target.mode) {
    case TargetMode::Command: {
      std::string line = "target: command";
      for (const std::string& arg : target.command) line += " " + arg;
      return line;
    }
    case TargetMode::Pid: {
      std::string line = fmt::format("target: pid {}", fmt::join(target.pids, ","));
      if (target.pids_omitted) line += fmt::format(" and {} more", target.pids_omitted);
      return line;
    }
    case TargetMode::All: return "target: all processes";
  }
  return "target: all processes";
}

namespace {

using Align = TextTable::Align;

void render_ring(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                 uint64_t window_ns, bool filtered, const FileTableOptions& files) {
  render_ring_header(out, ring);
  out << "  submission\n";
  render_submission(out, ring, findings);
  out << "  per-op latency (submit -> complete)\n";
  if (ring.ops.empty()) {
    out << (filtered ? "    (no op matches the display filter)\n" : "    (no requests seen)\n");
  } else {
    // A ring destroyed mid-window moved its bytes while it lived.
    render_op_table(out, ring.ops, ring.id, findings, ring.observed_ns ? ring.observed_ns : window_ns);
    // A heading of their own: under the table at its indent they would read as rows.
    if (std::any_of(ring.ops.begin(), ring.ops.end(), has_op_details)) {
      out << "  per-op punts, errors, poll waits\n";
      render_op_details(out, ring.ops, ring.setup_flags & kSetupIopoll);
    }
    if (std::any_of(ring.ops.begin(), ring.ops.end(), wants_histogram)) {
      out << "  per-op latency distribution\n";
      render_latency_histograms(out, ring.ops);
    }
  }
  render_file_table(out, ring.files, files);
  render_counters(out, ring, findings, "  ", window_ns);
  render_boundary(out, ring, findings);
  render_untracked_note(out, ring.counters);
}

// The busiest rings in full, under their process when the report spans several; then
// the idle rings and the rest, summed up (ring_layout.h).
void render_rings(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                  bool filtered, const TextOptions& opts) {
  const RingLayout layout = layout_rings(snap, findings, opts.full_rings);
  for (const ProcessRings& process : layout.full) {
    const bool catch_all = process.rings.front()->source == RingSource::CatchAll;
    if (layout.many_processes && !catch_all) {
      out << '\n';
      render_process_heading(out, process);
    }
    for (const Ring* ring : process.rings) {
      out << '\n';
      render_ring(out, *ring, findings, snap.wall_ns, filtered, opts.files);
    }
  }
  if (!layout.idle.empty()) {
    out << '\n';
    render_idle_rings(out, layout.idle);
  }
  if (!layout.hidden.empty()) {
    out << '\n';
    render_hidden_rings(out, layout);
  }
}

}  // namespace

bool finding_concerns(const std::vector<Finding>& findings,
                      std::initializer_list<std::string_view> tags,
                      std::optional<uint32_t> ring, std::optional<uint32_t> opcode) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    if (std::find(tags.begin(), tags.end(), f.tag) == tags.end()) return false;
    if (!f.ring && !f.grouped()) return false;
    if (ring && !f.names_ring(*ring)) return false;
    if (opcode && f.opcode != opcode) return false;
    return true;
  });
}

void render_text_header(std::ostream& out, const Snapshot& snap) {
  std::vector<std::string> facts{format_duration(snap.wall_ns)};
  if (snap.ncpus > 0) facts.push_back(fmt::format("{} cpu{}", snap.ncpus, snap.ncpus == 1 ? "" : "s"));
  if (!snap.kernel.release.empty()) facts.push_back("kernel " + snap.kernel.release);
  if (snap.kernel.tier) facts.push_back("tier " + std::string(tier_name(*snap.kernel.tier)));
  std::string title = fmt::format("uringscope report ({})", fmt::join(facts, ", "));
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
  if (snap.boundary_measured) out << boundary_sources_line(snap) << '\n';
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
    // Messages name their ring and op themselves (src/rules/), so no scope is added here.
    std::string tag = "[" + f.tag + "]";
    tag.resize(tag_width, ' ');
    write_wrapped(out, fmt::format("  {} {:<4}  ", tag, severity_name(f.severity)), text_indent,
                  f.message);
    // A group's worst members, each as its rule wrote it (their fix is the group's).
    for (const Finding& member : f.worst)
      write_wrapped(out, text_indent + "- ", text_indent + "  ", member.message);
    if (!trim(f.suggestion).empty()) write_wrapped(out, hang + "fix:  ", text_indent, f.suggestion);
  }
}

void render_text(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                 const TextOptions& opts) {
  render_text_header(out, snap);
  const bool filtered = !opts.display_filter.empty();
  if (filtered) {
    out << "display filter: " << opts.display_filter
        << " (text only; the JSON report is complete)\n";
  }
  if (snap.rings.empty()) {
    out << "\nno io_uring activity seen\n";
  } else {
    render_rings(out, snap, findings, filtered, opts);
  }
  if (snap.leak.suspected + snap.leak.pending > 0) {
    out << '\n';
    render_leaks(out, snap);
  }
  if (std::any_of(snap.workers.begin(), snap.workers.end(),
                  [](const ProcessWorkers& w) { return w.distinct > 0; })) {
    out << '\n';
    render_workers(out, snap, findings);
  }
  if (snap.hazards.checked) {
    out << '\n';
    render_check(out, snap.hazards);
  }
  if (any_tool_loss(snap.tool)) {
    out << '\n';
    render_tool_stats(out, snap.tool);
  }
  if (opts.show_findings) {
    out << '\n';
    render_findings(out, findings);
  }
}

}  // namespace uringscope
