// SPDX-License-Identifier: MIT
#include "cli/run.h"

#include <bpf/btf.h>
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "diff/baseline.h"
#include "util/error.h"
#include "cli/exit_status.h"
#include "probe/fentry_trial.h"
#include "loader/libbpf_log.h"
#include "report/list_ops.h"
#include "report/live.h"
#include "snapshot/delta.h"
#include "metrics/metrics.h"
#include "probe/probe.h"
#include "report/report.h"
#include "cli/report_output.h"
#include "os/ring_fds.h"
#include "os/signals.h"
#include "snapshot/snapshot_builder.h"
#include "os/system.h"
#include "os/targets.h"
#include "trace/trace_writer.h"
#include "loader/tracer.h"
#include "os/window.h"

namespace uringscope {
namespace {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

KernelSupport probe_this_kernel() {
  BtfPtr btf = load_kernel_btf();
  ProbeEnvironment env{kernel_release(), syscall_tracepoint_available(),
                       try_fentry(btf.get(), kEnterFentryFunction)};
  return probe_kernel(btf.get(), env);
}

// The non-empty names of a comma-separated environment variable; none when it is unset.
std::vector<std::string> env_list(const char* variable) {
  std::vector<std::string> names;
  const char* env = std::getenv(variable);
  std::string_view list = env ? env : "";
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (comma != 0) names.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return names;
}

// URINGSCOPE_FORCE_PROGRAMS=usc_a,usc_b overrides the probe for the features those
// programs serve: for trying a variant by hand, and for testing what a verifier
// rejection looks like to the user.
void apply_forced_programs(KernelSupport& support) {
  for (const std::string& name : env_list("URINGSCOPE_FORCE_PROGRAMS")) {
    const std::string feature = feature_of_program(name);
    std::erase_if(support.programs,
                  [&](const std::string& p) { return feature_of_program(p) == feature; });
    support.programs.push_back(name);
  }
}

// URINGSCOPE_SKIP_FEATURES=io_threads,poll_arm turns optional features off before
// loading: to measure what each costs (bench/), or to shed a tracepoint that fires too
// often on a given box. submit and complete are the spine and cannot be skipped.
void apply_skipped_features(KernelSupport& support) {
  for (const std::string& name : env_list("URINGSCOPE_SKIP_FEATURES")) {
    if (required_feature(name))
      throw Error(fmt::format("URINGSCOPE_SKIP_FEATURES: '{}' is required and cannot be skipped", name));
    auto feature = std::find_if(support.features.begin(), support.features.end(),
                                [&](const FeatureState& f) { return f.name == name; });
    if (feature == support.features.end())
      throw Error(fmt::format("URINGSCOPE_SKIP_FEATURES: no feature '{}' (uringscope --version lists them)", name));
    feature->enabled = false;
    feature->detail = "skipped (URINGSCOPE_SKIP_FEATURES)";
    std::erase_if(support.programs,
                  [&](const std::string& p) { return feature_of_program(p) == name; });
  }
}

std::string disabled_features(const KernelSupport& support) {
  std::string text;
  for (const auto& f : support.features) {
    if (!f.enabled) text += fmt::format("\n  {}: {}", f.name, f.detail);
  }
  return text;
}

bool feature_enabled(const KernelSupport& support, std::string_view name) {
  for (const auto& f : support.features) {
    if (f.name == name) return f.enabled;
  }
  return false;
}

bool feature_on(const KernelInfo& kernel, std::string_view name) {
  for (const auto& f : kernel.features) {
    if (f.name == name) return f.enabled;
  }
  return false;
}

void disable_failed_features(KernelInfo& kernel, const std::vector<AttachFailure>& failures) {
  for (const auto& failure : failures) {
    for (auto& f : kernel.features) {
      if (f.name != failure.feature) continue;
      f.enabled = false;
      f.detail = fmt::format("{}: {}", failure.program, failure.error);
    }
  }
}

// Turns the tracer's tables into snapshots for the whole run: periodically (live mode,
// metrics) without the leak scan, and once at the end with it.
class SnapshotSource {
 public:
  SnapshotSource(const Tracer& tracer, KernelInfo kernel, TargetInfo target, uint64_t start_ns,
                 double leak_age_s)
      : tracer_(tracer), kernel_(std::move(kernel)), target_(std::move(target)),
        start_ns_(start_ns), leak_age_ns_(static_cast<uint64_t>(leak_age_s * 1e9)) {}

  // `with_leaks` copies the in-flight table (2 MiB by default) for the leak scan: the end
  // of the run and the metrics endpoint need it, live intervals do not.
  Snapshot take(bool with_leaks, bool final_reading = false) const {
    const uint64_t now = monotonic_ns();
    SnapshotContext context{.tool_version = URINGSCOPE_VERSION,
                            .wall_ns = now - start_ns_,
                            .ncpus = online_cpus(),
                            .kernel = kernel_,
                            .target = target_,
                            .end_ns = now,
                            .leak_age_ns = leak_age_ns_};
    Snapshot snap = build_snapshot(tracer_.read_tables(with_leaks), std::move(context));
    if (final_reading) resolve_ring_fds_from_proc(snap.rings);
    return snap;
  }
  void add_followed(const std::vector<uint32_t>& tgids) {
    for (uint32_t tgid : tgids) {
      if (std::find(target_.pids.begin(), target_.pids.end(), static_cast<int>(tgid)) ==
          target_.pids.end()) {
        target_.pids.push_back(static_cast<int>(tgid));
      }
    }
  }

 private:
  const Tracer& tracer_;
  KernelInfo kernel_;
  TargetInfo target_;
  uint64_t start_ns_;
  uint64_t leak_age_ns_;
};

// The newest snapshot for the metrics endpoint: published by the run loop, read by the
// server thread, so the server never touches the tracer and never blocks it.
class Publication {
 public:
  void publish(Snapshot snap) {
    auto fresh = std::make_shared<const Snapshot>(std::move(snap));
    std::lock_guard lock(mutex_);
    latest_ = std::move(fresh);
  }
  std::shared_ptr<const Snapshot> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> latest_;
};

// Trace records carry the kernel table row of their ring; the report calls it by id.
std::map<uint32_t, std::string> ring_track_names(const Snapshot& snap) {
  std::map<uint32_t, std::string> names;
  for (const Ring& ring : snap.rings) {
    names[ring.bpf_row] =
        ring.source == RingSource::CatchAll
            ? std::string("other rings")
            : fmt::format("ring #{} fd={} ({} {})", ring.id, ring.fd >= 0 ? std::to_string(ring.fd) : "?",
                          ring.comm, ring.pid);
  }
  return names;
}

}  // namespace

int print_version(bool as_json) {
  // tracefs is needed to tell whether the syscall tracepoint exists; without root it may
  // be unreadable, and the enter feature then shows as off.
  std::optional<TracefsMount> tracefs;
  if (has_bpf_privileges()) tracefs.emplace();
  KernelSupport support = probe_this_kernel();
  if (as_json) {
    nlohmann::ordered_json doc = {{"tool", "uringscope"},
                                  {"tool_version", URINGSCOPE_VERSION},
                                  {"kernel", kernel_json(kernel_info(support, kernel_release()))}};
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << "uringscope " << URINGSCOPE_VERSION << "\n";
  std::cout << "kernel   " << kernel_release() << "\n";
  std::cout << "tier     " << tier_name(support.tier) << "\n";
  std::cout << "features\n";
  for (const auto& f : support.features) {
    std::cout << fmt::format("  {:<11} {:<4} {}\n", f.name, f.enabled ? "on" : "off", f.detail);
  }
  return 0;
}

int print_list_ops(bool as_json) {
  // The BTF file is world-readable: no privileges needed. Without it, the built-in table.
  BtfPtr btf(btf__load_vmlinux_btf());
  const std::vector<OpcodeRow> rows = opcode_table(btf.get());
  const bool from_btf = opcode_table_from_btf(rows);
  if (as_json) {
    std::cout << list_ops_json(rows, kernel_release(), from_btf).dump(2) << "\n";
  } else {
    render_list_ops(std::cout, rows, kernel_release(), from_btf);
  }
  return 0;
}

int run(const Options& opts) {
  if (opts.help) {
    std::cout << opts.help_text;
    return 0;
  }
  if (opts.version) return print_version(opts.json.has_value());
  if (opts.list_ops) return print_list_ops(opts.json.has_value());
  // A bad baseline must fail before anything is attached, and without root.
  std::optional<Baseline> baseline;
  if (opts.diff_against) baseline = load_baseline(*opts.diff_against);

  libbpf_log_install(opts.verbose);
  require_bpf_privileges();
  TracefsMount tracefs;
  KernelSupport support = probe_this_kernel();
  apply_forced_programs(support);
  apply_skipped_features(support);
  if (support.tier == Tier::Unsupported) {
    throw Error("this kernel's io_uring tracepoints are not usable:" + disabled_features(support));
  }
  if (opts.follow && !feature_enabled(support, "fork")) {
    throw Error("-f needs the sched_process_fork tracepoint, which this kernel lacks");
  }
  // Bound (and refused when taken) before anything is attached.
  Publication publication;
  std::optional<MetricsServer> metrics;
  if (opts.metrics) {
    metrics.emplace(parse_listen_address(*opts.metrics), [&] { return publication.latest(); });
  }
  std::optional<TraceWriter> trace;
  if (opts.trace) trace.emplace(*opts.trace);

  SignalChannel signals({SIGINT, SIGTERM, SIGHUP});
  Targets targets;
  open_targets({opts.command, opts.pids, opts.keep_root}, signals, targets);

  TracerConfig config;
  config.filter_tgids = targets.info.mode != TargetMode::All;
  config.pid_max = pid_max();
  if (const PidNamespace ns = own_pid_namespace(); !ns.initial) config.pidns_inode = ns.inode;
  config.trace = opts.trace.has_value();
  config.follow = opts.follow;
  Tracer tracer(support, config);
  for (pid_t pid : targets.info.pids) tracer.add_target(static_cast<uint32_t>(pid));
  if (targets.info.mode != TargetMode::Command) tracer.walk_ring_fds();
  KernelInfo kernel = kernel_info(support, kernel_release());
  disable_failed_features(kernel, tracer.load_rejections());
  disable_failed_features(kernel, tracer.attach());
  // The way io_uring_enter is really counted; a probe detail that already names it (with
  // the reason fentry was refused) says more and stays.
  if (const std::string& taken = tracer.enter_detail(); !taken.empty()) {
    for (FeatureState& f : kernel.features)
      if (f.name == "enter" && f.enabled && !f.detail.starts_with(taken)) f.detail = taken;
  }
  // The tier promised punt attribution; a rejected or detached punt program takes it back.
  if (kernel.tier == tier_name(Tier::Full) && !feature_on(kernel, "punt")) {
    kernel.tier = std::string(tier_name(Tier::Legacy));
  }
  check_still_running(targets);
  std::cerr << fmt::format("uringscope: attached {} programs (tier {}); {}{}{}",
                           tracer.attached_count(), tier_name(support.tier),
                           describe_targets(targets),
                           metrics ? fmt::format("; metrics at {}", metrics->url()) : "",
                           targets.info.mode == TargetMode::Command ? "" : "; Ctrl-C ends the run")
            << std::endl;

  const uint64_t start_ns = monotonic_ns();
  SnapshotSource source(tracer, kernel, targets.info, start_ns, opts.leak_age_s);
  std::ostream& human = human_stream(opts);
  std::vector<PeriodicTask> tasks;
  // Ten drains a second of at most 100,000 records each: about what the writer turns into
  // JSON in that time. A faster producer fills the buffer, and its drops are counted.
  constexpr uint64_t kDrainBudget = 100000;
  const auto drain = [&] {
    tracer.drain_trace([&](const us_trace_event& e) { trace->add(e); }, kDrainBudget);
  };
  if (trace) tasks.push_back({0.1, drain});
  if (metrics) {
    publication.publish(source.take(true));
    tasks.push_back({1.0, [&] { publication.publish(source.take(true)); }});
  }
  std::optional<Snapshot> previous;
  const auto live_interval = [&] {
    Snapshot now = source.take(false);
    render_live_interval(human, snapshot_delta(now, *previous), monotonic_ns() - start_ns);
    human.flush();
    previous = std::move(now);
  };
  if (opts.interval_s) {
    render_live_header(human, *opts.interval_s);
    previous = source.take(false);
    tasks.push_back({*opts.interval_s, live_interval});
  }
  if (targets.child) targets.child->release();
  run_window(signals, targets, opts.duration_s, tasks);

  tracer.detach();
  // The last, partial interval, read after detaching like the final report, so the
  // intervals add up to it exactly.
  if (opts.interval_s) live_interval();
  if (opts.follow) source.add_followed(tracer.target_tgids());
  Snapshot snap = source.take(true, true);
  if (metrics) publication.publish(snap);
  if (trace) {
    // Everything left, unbounded: the programs are detached, nothing more arrives.
    tracer.drain_trace([&](const us_trace_event& e) { trace->add(e); });
    trace->set_dropped(snap.tool.trace_drops);
    trace->finish(monotonic_ns(), ring_track_names(snap));
  }
  const std::vector<Finding> findings = opts.no_findings ? std::vector<Finding>{} : evaluate(snap);
  emit_reports(opts, snap, findings, baseline);

  std::optional<int> command_status;
  if (targets.child) command_status = wait_for_command(signals, *targets.child);
  return exit_status(command_status, opts.fail_on, findings);
}

}  // namespace uringscope
