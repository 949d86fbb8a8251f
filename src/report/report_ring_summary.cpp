// SPDX-License-Identifier: MIT
// The lines that stand in for ring blocks the report does not draw (ring_layout.h): the
// idle rings, one line per process, and the active rings beyond --rings, one table.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/format.h"
#include "report/report.h"
#include "report/ring_layout.h"
#include "report/text_layout.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

// Ring ids listed on an idle line before the rest are counted.
constexpr std::size_t kIdleRingsListed = 8;

std::string owner_text(uint32_t pid, const std::string& comm, std::size_t processes = 1) {
  if (processes > 1) {
    return fmt::format("{} ({} processes)", comm.empty() ? std::string("?") : comm,
                       format_count(processes));
  }
  if (pid == 0) return comm.empty() ? std::string("(unknown process)") : comm;
  return comm.empty() ? fmt::format("pid {}", pid) : fmt::format("{} pid {}", comm, pid);
}

}  // namespace

void render_process_heading(std::ostream& out, const ProcessRings& process) {
  out << fmt::format("process {}: {} ring{} below\n", owner_text(process.pid, process.comm),
                     process.rings.size(), process.rings.size() == 1 ? "" : "s");
}

void render_idle_rings(std::ostream& out, const std::vector<ProcessRings>& idle) {
  if (idle.empty()) return;
  out << "idle rings (set up, no request seen; --rings all draws them)\n";
  const std::size_t listed = std::min(idle.size(), kHiddenProcessRows);
  for (std::size_t p = 0; p < listed; ++p) {
    const ProcessRings& process = idle[p];
    std::vector<std::string> items;
    for (std::size_t i = 0; i < process.rings.size() && i < kIdleRingsListed; ++i) {
      const Ring& ring = *process.rings[i];
      items.push_back(ring.fd < 0 ? fmt::format("#{}", ring.id)
                                  : fmt::format("#{} fd={}", ring.id, ring.fd));
    }
    if (process.rings.size() > kIdleRingsListed) {
      items.push_back(fmt::format("{} more", process.rings.size() - kIdleRingsListed));
    }
    write_list(out, "  ",
               fmt::format("{}: {} ring{}: ",
                           owner_text(process.pid, process.comm, process.processes),
                           process.rings.size(), process.rings.size() == 1 ? "" : "s"),
               items);
  }
  if (listed < idle.size()) {
    std::size_t processes = 0, rings = 0;
    for (std::size_t p = listed; p < idle.size(); ++p) {
      processes += idle[p].processes;
      rings += idle[p].rings.size();
    }
    out << fmt::format("  ... {} more process{} ({} rings)\n", format_count(processes),
                       processes == 1 ? "" : "es", format_count(rings));
  }
}

void render_hidden_rings(std::ostream& out, const RingLayout& layout) {
  if (layout.hidden.empty()) return;
  std::size_t processes = 0;
  bool by_name = false;
  for (const HiddenProcess& p : layout.hidden) {
    processes += p.processes;
    by_name |= p.processes > 1;
  }
  out << fmt::format(
      "{} more active ring{} of {} process{}, by {} (--rings N or --rings all draws "
      "them, in the JSON report too)\n",
      format_count(layout.hidden_rings), layout.hidden_rings == 1 ? "" : "s",
      format_count(processes), processes == 1 ? "" : "es",
      by_name ? "command name" : "process");
  const std::size_t shown = std::min(layout.hidden.size(), kHiddenProcessRows);
  TextTable table({Align::Left}, "  ");
  table.add_row({"process", "rings", "reqs", "p50", "p99", "max", "punted", "errors", "bytes",
                 "workers"});
  for (std::size_t i = 0; i < shown; ++i) {
    const HiddenProcess& p = layout.hidden[i];
    const OpStats& t = p.total;
    const Histogram& h = t.latency;
    auto latency = [&](uint64_t ns) { return h.count() ? format_duration(ns) : std::string("-"); };
    table.add_row({owner_text(p.pid, p.comm, p.processes), format_count(p.rings),
                   format_count(t.submitted), latency(h.quantile_ns(0.5)),
                   latency(h.quantile_ns(0.99)), latency(h.max_ns),
                   t.submitted ? format_percent(t.punt_pct()) : std::string("-"),
                   format_count(t.errors), format_bytes(t.bytes), format_count(p.workers)});
  }
  table.write(out);
  if (shown < layout.hidden.size()) {
    std::size_t rings = 0, rest = 0;
    for (std::size_t i = shown; i < layout.hidden.size(); ++i) {
      rings += layout.hidden[i].rings;
      rest += layout.hidden[i].processes;
    }
    out << fmt::format("  ... {} more process{} ({} rings)\n", format_count(rest),
                       rest == 1 ? "" : "es", format_count(rings));
  }
}

}  // namespace uringscope
