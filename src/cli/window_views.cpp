// SPDX-License-Identifier: MIT
#include "cli/window_views.h"

#include <ostream>
#include <utility>

#include "cli/report_output.h"
#include "metrics/file_metrics.h"
#include "report/live.h"
#include "report/visible_copy.h"
#include "snapshot/delta.h"

namespace uringscope {
namespace {

// How often the run loop looks for keys typed into top and for scrapes waiting on a
// reading: often enough that neither feels late, rarely enough to cost nothing.
constexpr double kPollEvery = 0.05;

top::TopSettings top_settings(const Options& opts) {
  return {.interval_s = opts.interval_s.value_or(1.0),
          .files_on = opts.files,
          .flame_weight = opts.flame_weight,
          .findings = !opts.no_findings};
}

}  // namespace

// -i: per-interval deltas, each against the previous reading.
class LiveView {
 public:
  LiveView(std::ostream& out, const SnapshotSource& source, uint64_t start_ns)
      : out_(out), source_(source), start_ns_(start_ns) {}
  void start(double interval_s) {
    render_live_header(out_, interval_s);
    previous_ = source_.take(false);
  }
  void interval() {
    Snapshot now = source_.take(false);
    render_live_interval(out_, visible_copy(snapshot_delta(now, *previous_)),
                         monotonic_ns() - start_ns_);
    out_.flush();
    previous_ = std::move(now);
  }

 private:
  std::ostream& out_;
  const SnapshotSource& source_;
  uint64_t start_ns_;
  std::optional<Snapshot> previous_;
};

WindowViews::WindowViews(const Options& opts, const SnapshotSource& source, ScrapeDemand* demand,
                         uint64_t start_ns)
    : opts_(opts), source_(source), demand_(demand), start_ns_(start_ns) {}

WindowViews::~WindowViews() = default;

Snapshot WindowViews::for_metrics(Snapshot snap) {
  return metrics_rings_.apply(with_file_series(std::move(snap), opts_.metrics_files));
}

Snapshot WindowViews::metrics_reading() { return for_metrics(source_.take(true)); }

void WindowViews::schedule(std::vector<PeriodicTask>& tasks) {
  if (demand_) {
    demand_->publish(metrics_reading());
    tasks.push_back({kPollEvery, [this] { demand_->serve([this] { return metrics_reading(); }); }});
  }
  if (opts_.top) {
    top_.emplace(top_settings(opts_), [this] { return source_.take(false); });
    tasks.push_back({*opts_.interval_s, [this] { top_->tick(); }});
    tasks.push_back({kPollEvery, [this] { top_->poll_keys(); }});
  } else if (opts_.interval_s) {
    live_ = std::make_unique<LiveView>(human_stream(opts_), source_, start_ns_);
    live_->start(*opts_.interval_s);
    tasks.push_back({*opts_.interval_s, [this] { live_->interval(); }});
  }
}

void WindowViews::observe(const SignalChannel& signals, Targets& targets,
                          const std::vector<PeriodicTask>& tasks) {
  try {
    run_window(signals, targets, opts_.duration_s, tasks);
  } catch (const top::QuitRequested&) {
    // q: the window ends as when -d expires.
  }
  top_.reset();
}

void WindowViews::after_detach() {
  // The last, partial interval, read after detaching like the final report, so the
  // intervals add up to it exactly.
  if (live_) live_->interval();
}

void WindowViews::finish(const Snapshot& last) {
  if (demand_) demand_->finish(for_metrics(last));
}

}  // namespace uringscope
