// SPDX-License-Identifier: MIT
#include <algorithm>
#include <ostream>
#include <set>
#include <string>

#include <fmt/format.h>

#include "util/format.h"
#include "report/report.h"
#include "report/views.h"

namespace uringscope {
namespace {

std::string plural(uint64_t n, std::string_view one, std::string_view many) {
  return format_count(n) + " " + std::string(n == 1 ? one : many);
}

// "uringscope 12.4s: 3 rings, 2 processes, all rings merged". The catch-all ring stands
// for rings the tool had no room for, so neither count is exact then: "2+".
std::string coverage_line(const Snapshot& snap) {
  uint64_t rings = 0;
  bool catch_all = false;
  std::set<uint32_t> pids;
  for (const Ring& ring : snap.rings) {
    if (ring.source == RingSource::CatchAll) {
      catch_all = true;
      continue;
    }
    ++rings;
    if (ring.pid != 0) pids.insert(ring.pid);
  }
  std::string line = "uringscope " + format_duration(snap.wall_ns) + ": ";
  if (snap.rings.empty()) return line + "no io_uring activity seen";
  if (catch_all) {
    line += format_count(rings) + "+ rings (ring table full), " + format_count(pids.size()) +
            "+ processes";
  } else {
    line += plural(rings, "ring", "rings") + ", " + plural(pids.size(), "process", "processes");
  }
  // The full report shows ops per ring; say that these rows are sums.
  if (rings + (catch_all ? 1 : 0) > 1) line += ", all rings merged";
  return line;
}

}  // namespace

void render_compact(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                    bool show_findings, std::string_view display_filter, bool histograms) {
  out << coverage_line(snap) << '\n';
  if (!display_filter.empty())
    out << "display filter: " << display_filter << " (text only; the JSON report is complete)\n";
  // A feature that is off zeroes whole columns (punted %, for one); the compact view has
  // no room for why, but must not let the zeros pass for measurements.
  std::string off;
  for (const FeatureState& feature : snap.kernel.features) {
    if (feature.enabled) continue;
    off += (off.empty() ? "" : ", ") + feature.name;
  }
  if (!off.empty()) out << "kernel features off: " << off << " (the full report says why)\n";

  if (!snap.rings.empty()) {
    out << '\n';
    if (!snap.ops.empty()) {
      render_op_table(out, snap.ops, std::nullopt, findings, snap.wall_ns, "");
      if (histograms && std::any_of(snap.ops.begin(), snap.ops.end(), wants_histogram)) {
        out << "\nlatency distribution\n";
        render_latency_histograms(out, snap.ops, "  ");
      }
    } else if (!display_filter.empty()) {
      out << "(no op matches the display filter)\n";
    } else {
      out << "(no requests seen)\n";
    }
    render_untracked_note(out, snap.totals, "");
  }
  if (show_findings) {
    out << '\n';
    render_findings(out, findings);
  }
}

}  // namespace uringscope
