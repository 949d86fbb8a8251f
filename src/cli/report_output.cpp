// SPDX-License-Identifier: MIT
#include "cli/report_output.h"

#include <iostream>
#include <string>

#include "util/output.h"
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
    render_compact(out, shown, shown_findings, !opts.no_findings, filter_text);
  } else {
    render_text(out, shown, shown_findings,
                TextOptions{.show_findings = !opts.no_findings,
                            .files = opts.file_table,
                            .display_filter = filter_text});
  }
  if (delta) {
    out << '\n';
    render_diff_text(out, *delta);
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
  std::ostream& text = human_stream(opts);
  render_human(text, opts, snap, findings, delta);
  text.flush();
}

}  // namespace uringscope
