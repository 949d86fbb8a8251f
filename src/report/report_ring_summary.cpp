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

std::string owner_text(uint32_t pid, const std::string& comm) {
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
  for (const ProcessRings& process : idle) {
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
               fmt::format("{}: {} ring{}: ", owner_text(process.pid, process.comm),
                           process.rings.size(), process.rings.size() == 1 ? "" : "s"),
               items);
  }
}

void render_hidden_rings(std::ostream& out, const RingLayout& layout) {
  if (layout.hidden.empty()) return;
  out << fmt::format(
      "{} more active ring{} of {} process{}, by process (--rings N or --rings all draws "
      "them; the JSON report has every ring)\n",
      format_count(layout.hidden_rings), layout.hidden_rings == 1 ? "" : "s",
      format_count(layout.hidden.size()), layout.hidden.size() == 1 ? "" : "es");
  const std::size_t shown = std::min(layout.hidden.size(), kHiddenProcessRows);
  TextTable table({Align::Left}, "  ");
  table.add_row({"process", "rings", "reqs", "p50", "p99", "max", "punted", "errors", "bytes"});
  for (std::size_t i = 0; i < shown; ++i) {
    const HiddenProcess& p = layout.hidden[i];
    const OpStats& t = p.total;
    const Histogram& h = t.latency;
    auto latency = [&](uint64_t ns) { return h.count() ? format_duration(ns) : std::string("-"); };
    table.add_row({owner_text(p.pid, p.comm), format_count(p.rings), format_count(t.submitted),
                   latency(h.quantile_ns(0.5)), latency(h.quantile_ns(0.99)), latency(h.max_ns),
                   t.submitted ? format_percent(t.punt_pct()) : std::string("-"),
                   format_count(t.errors), format_bytes(t.bytes)});
  }
  table.write(out);
  if (shown < layout.hidden.size()) {
    std::size_t rings = 0;
    for (std::size_t i = shown; i < layout.hidden.size(); ++i) rings += layout.hidden[i].rings;
    out << fmt::format("  ... {} more processes ({} rings)\n",
                       format_count(layout.hidden.size() - shown), format_count(rings));
  }
}

}  // namespace uringscope
