// SPDX-License-Identifier: MIT
#include "cli/report_output.h"

#include <iostream>
#include <sstream>
#include <string>

#include "util/format.h"
#include "util/output.h"
#include "report/flamegraph_svg.h"
#include "report/folded.h"
#include "report/report.h"
#include "report/views.h"

namespace uringscope {
namespace {

// The human report: full or compact, narrowed by -e (text only: JSON, baselines and
// --fail-on always see everything), then the diff against a baseline.
void render_human(std::ostream& out, const Options& opts, const Snapshot& snap,
                  const std::vector<Finding>& findings, const std::optional<Diff>& delta) {
  const DisplayFilter& filter = opts.display_filter;
  const std::string filter_text = filter.empty() ? "" : display_filter_text(filter);
  const Snapshot shown = filter.empty() ? snap : filter_snapshot(snap, filter);
  const std::vector<Finding> shown_findings =
      filter.empty() ? findings : filter_findings(findings, filter, snap);
  if (opts.compact) {
    render_compact(out, shown, shown_findings, !opts.no_findings, filter_text, opts.histograms);
  } else {
    render_text(out, shown, shown_findings,
                TextOptions{.show_findings = !opts.no_findings,
                            .files = opts.file_table,
                            .display_filter = filter_text,
                            .full_rings = opts.full_rings});
  }
  if (delta) {
    out << '\n';
    render_diff_text(out, *delta);
  }
}

// Like the JSON, the stacks ignore -e: they are data for another tool, whole.
void write_flame_outputs(const Options& opts, const Snapshot& snap) {
  if (!opts.folded && !opts.flamegraph) return;
  const std::vector<FoldedStack> stacks = folded_stacks(snap, opts.flame_weight);
  if (opts.folded) {
    std::ostringstream folded;
    render_folded(folded, stacks);
    write_file_atomic(*opts.folded, folded.str());
  }
  if (opts.flamegraph) {
    FlameGraphOptions look;
    look.subtitle = target_line(snap.target) + ", " + format_duration(snap.wall_ns);
    look.weight = opts.flame_weight;
    std::ostringstream svg;
    render_flamegraph_svg(svg, stacks, look);
    write_file_atomic(*opts.flamegraph, svg.str());
  }
}

}  // namespace

std::ostream& human_stream(const Options& opts) {
  return opts.json && *opts.json == "-" ? std::cerr : std::cout;
}

void emit_reports(const Options& opts, const Snapshot& snap, const std::vector<Finding>& findings,
                  const std::optional<Baseline>& baseline) {
  std::optional<Diff> delta;
  if (baseline) delta = diff(*baseline, baseline_of(snap, findings));
  if (opts.json || opts.baseline_out) {
    nlohmann::ordered_json report = render_json(snap, findings);
    if (delta) report["diff"] = diff_json(*delta);
    const std::string doc = report.dump(2) + "\n";
    if (opts.baseline_out) write_file_atomic(*opts.baseline_out, doc);
    if (opts.json && *opts.json == "-") {
      std::cout << doc << std::flush;
    } else if (opts.json) {
      write_file_atomic(*opts.json, doc);
    }
  }
  write_flame_outputs(opts, snap);
  std::ostream& text = human_stream(opts);
  render_human(text, opts, snap, findings, delta);
  text.flush();
}

}  // namespace uringscope
