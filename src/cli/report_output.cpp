// SPDX-License-Identifier: MIT
#include "cli/report_output.h"

#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

#include "diff/visible_diff.h"
#include "util/format.h"
#include "util/json_text.h"
#include "util/output.h"
#include "util/untrusted_text.h"
#include "report/flamegraph_svg.h"
#include "report/folded.h"
#include "report/report.h"
#include "report/views.h"
#include "report/visible_copy.h"

namespace uringscope {
namespace {

// The human report: full or compact, narrowed by -e (text only: JSON, baselines and
// --fail-on always see everything), then the diff against a baseline. The filter sees
// the names as they are; the renderers get them visible.
void render_human(std::ostream& out, const Options& opts, const Snapshot& snap,
                  const std::vector<Finding>& findings, const std::optional<Diff>& delta) {
  const DisplayFilter& filter = opts.display_filter;
  const std::string filter_text = filter.empty() ? "" : visible_text(display_filter_text(filter));
  const Snapshot shown = visible_copy(filter.empty() ? snap : filter_snapshot(snap, filter));
  const std::vector<Finding> shown_findings =
      visible_copy(filter.empty() ? findings : filter_findings(findings, filter, snap));
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
    render_diff_text(out, visible_copy(*delta));
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
    look.subtitle = visible_text(target_line(snap.target)) + ", " + format_duration(snap.wall_ns);
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

bool emit_reports(const Options& opts, const Snapshot& snap, const std::vector<Finding>& findings,
                  const std::optional<Baseline>& baseline) {
  bool all_written = true;
  // Each output on its own: whatever stops one (a full disk, a bug in one renderer) must
  // not cost the user the others, the text report least of all.
  auto attempt = [&](const char* what, const std::function<void()>& write) {
    try {
      write();
    } catch (const std::exception& e) {
      all_written = false;
      std::cerr << "uringscope: " << what << " was not written: " << visible_text(e.what())
                << std::endl;
    }
  };
  std::optional<Diff> delta;
  attempt("the diff", [&] {
    if (baseline) delta = diff(*baseline, baseline_of(snap, findings));
  });
  std::optional<nlohmann::ordered_json> diff_doc;
  if (delta) attempt("the diff", [&] { diff_doc = diff_json(*delta); });
  const nlohmann::ordered_json* diff_part = diff_doc ? &*diff_doc : nullptr;
  // A baseline is compared ring by ring (by owner) with a later run: it keeps every ring.
  if (opts.baseline_out) {
    attempt("the --baseline copy", [&] {
      write_file_atomic(*opts.baseline_out, [&](std::ostream& out) {
        write_json_report(out, snap, findings, {.rings = std::nullopt, .diff = diff_part});
      });
    });
  }
  if (opts.json) {
    const JsonReportOptions json_opts{.rings = opts.full_rings, .diff = diff_part};
    attempt("the JSON report", [&] {
      if (*opts.json == "-") {
        write_json_report(std::cout, snap, findings, json_opts);
        std::cout << std::flush;
      } else {
        write_file_atomic(*opts.json, [&](std::ostream& out) {
          write_json_report(out, snap, findings, json_opts);
        });
      }
    });
  }
  attempt("--folded/--flamegraph", [&] { write_flame_outputs(opts, snap); });
  attempt("the text report", [&] {
    std::ostream& text = human_stream(opts);
    render_human(text, opts, snap, findings, delta);
    text.flush();
  });
  return all_written;
}

}  // namespace uringscope
