// SPDX-License-Identifier: MIT
#include "cli/run.h"

#include <bpf/btf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

#include "cli/exit_status.h"
#include "cli/report_output.h"
#include "cli/snapshot_source.h"
#include "cli/table_sizes.h"
#include "cli/terminal_stdio.h"
#include "cli/window_views.h"
#include "cli/window_work.h"
#include "diff/baseline.h"
#include "loader/libbpf_log.h"
#include "loader/load_outcome.h"
#include "loader/tracer.h"
#include "metrics/metrics.h"
#include "metrics/scrape_demand.h"
#include "os/shared_libraries.h"
#include "os/kallsyms.h"
#include "os/signals.h"
#include "os/system.h"
#include "os/targets.h"
#include "os/window.h"
#include "probe/fentry_trial.h"
#include "probe/kernel_opcodes.h"
#include "probe/overrides.h"
#include "probe/probe.h"
#include "report/list_ops.h"
#include "report/report.h"
#include "top/terminal.h"
#include "trace/trace_writer.h"
#include "util/error.h"
#include "util/json_text.h"
#include "util/untrusted_text.h"

namespace uringscope {
namespace {

KernelSupport probe_this_kernel() {
  BtfPtr btf = load_kernel_btf();
  ProbeEnvironment env{kernel_release(), syscall_tracepoint_available(),
                       try_fentry(btf.get(), kEnterFentryFunction),
                       kallsyms_address(kRingExitFunction)};
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

// The probe's answer with the user's overrides (probe/overrides.h), checked runnable.
KernelSupport support_for_this_run(bool follow) {
  KernelSupport support = probe_this_kernel();
  force_programs(support, env_list("URINGSCOPE_FORCE_PROGRAMS"));
  force_features(support, env_list("URINGSCOPE_FORCE_FEATURES"));
  skip_features(support, env_list("URINGSCOPE_SKIP_FEATURES"));
  check_runnable(support, follow);
  return support;
}

TracerConfig tracer_config(const Options& opts, const Targets& targets, const TableSizes& sizes) {
  TracerConfig config;
  config.sizes = sizes;
  config.filter_tgids = targets.info.mode != TargetMode::All;
  config.pid_max = pid_max();
  if (const PidNamespace ns = own_pid_namespace(); !ns.initial) config.pidns_inode = ns.inode;
  config.trace = opts.trace.has_value();
  config.follow = opts.follow;
  config.check = opts.check;
  config.boundary = opts.boundary;
  config.files = opts.files;
  config.liburing = opts.liburing;
  config.folds.rings = opts.keep_rings.value_or(FoldLimits::kUnbounded);
  config.folds.leak_age_ns = static_cast<uint64_t>(opts.leak_age_s * 1e9);
  return config;
}

// Seeds the target filter, finds the rings that exist already, attaches, and says what
// this run really observes.
KernelInfo attach(Tracer& tracer, const KernelSupport& support, const Targets& targets) {
  for (pid_t pid : targets.info.pids) tracer.add_target(static_cast<uint32_t>(pid));
  if (targets.info.mode != TargetMode::Command) tracer.walk_ring_fds();
  LoadOutcome outcome{tracer.load_rejections(), tracer.attach(), {}};
  outcome.enter_detail = tracer.enter_detail();
  tracer.learn_cqe_order();
  std::vector<uint32_t> pids(targets.info.pids.begin(), targets.info.pids.end());
  tracer.attach_liburing(find_liburing(pids));  // with --liburing only
  return kernel_after_load(kernel_info(support, kernel_release()), outcome);
}

// What the run feeds while it observes. Declared before anything attaches, so that a
// taken metrics port or an unwritable trace file fails first.
struct Outputs {
  explicit Outputs(const Options& opts) {
    if (opts.metrics) metrics.emplace(*opts.metrics, demand);
    if (opts.trace) trace.emplace(*opts.trace);
  }
  // A scrape still waiting when the run fails is answered at once.
  ~Outputs() { demand.close(); }
  ScrapeDemand demand;  // before `metrics`, whose thread asks it for snapshots
  std::optional<MetricsServer> metrics;
  std::optional<TraceWriter> trace;
};

// The observation window with its periodic work, then the final snapshot, read after
// detaching so that nothing changes under it.
Snapshot observe(const Options& opts, Tracer& tracer, SnapshotSource& source, Outputs& outputs,
                 Targets& targets, const SignalChannel& signals, uint64_t start_ns) {
  WindowWork work(opts, tracer, outputs.trace, start_ns);
  WindowViews views(opts, source, outputs.metrics ? &outputs.demand : nullptr, start_ns);
  std::vector<PeriodicTask> tasks;
  work.schedule(tasks);
  views.schedule(tasks);
  if (targets.child) targets.child->release();
  views.observe(signals, targets, tasks);

  work.await_teardowns();
  tracer.detach();
  work.after_detach();
  views.after_detach();
  if (opts.follow) source.add_followed(tracer.target_tgids());
  Snapshot snap = source.take_final(work.hazards(), work.waiting_samples());
  work.complete(snap);
  views.finish(snap);
  return snap;
}

int trace_run(const Options& opts) {
  // A bad baseline must fail before anything is attached, and without root.
  std::optional<Baseline> baseline;
  if (opts.diff_against) baseline = load_baseline(*opts.diff_against);

  // top without a terminal to draw on is refused before anything is attached.
  if (opts.top) top::Terminal::check_usable();
  libbpf_log_install(opts.verbose);
  require_bpf_privileges();
  TracefsMount tracefs;
  const KernelSupport support = support_for_this_run(opts.follow);
  const char* sizes_env = std::getenv("URINGSCOPE_TABLE_SIZES");
  const TableSizes sizes = sizes_env ? table_sizes_from(sizes_env) : TableSizes{};
  Outputs outputs(opts);
  // SIGPIPE too: `uringscope ... | head` ends the window when head has gone, and still
  // detaches and undoes what the run changed.
  SignalChannel signals({SIGINT, SIGTERM, SIGHUP, SIGPIPE});
  Targets targets;
  {
    std::optional<TerminalStdioAway> away;
    if (opts.top && !opts.command.empty()) away.emplace();
    open_targets({opts.command, opts.pids, opts.keep_root}, signals, targets);
  }

  Tracer tracer(support, tracer_config(opts, targets, sizes));
  const KernelInfo kernel = attach(tracer, support, targets);
  check_still_running(targets);
  // The targets' names are theirs to choose: shown escaped like every name.
  std::cerr << visible_text(fmt::format(
                   "uringscope: attached {} programs (tier {}); {}{}{}", tracer.attached_count(),
                   tier_name(support.tier), describe_targets(targets),
                   outputs.metrics ? fmt::format("; metrics at {}", outputs.metrics->url()) : "",
                   targets.info.mode == TargetMode::Command ? "" : "; Ctrl-C ends the run"))
            << std::endl;
  if (opts.verbose) {
    std::cerr << fmt::format("uringscope: programs: {}", fmt::join(tracer.attached_programs(), ",")) << std::endl;
  }

  const uint64_t start_ns = monotonic_ns();
  SnapshotSource source(tracer, kernel, targets.info, start_ns, opts.leak_age_s);
  const Snapshot snap = observe(opts, tracer, source, outputs, targets, signals, start_ns);
  const std::vector<Finding> findings = opts.no_findings ? std::vector<Finding>{} : evaluate(snap);
  const bool reports_written = emit_reports(opts, snap, findings, baseline);

  std::optional<int> command_status;
  if (targets.child) command_status = wait_for_command(signals, *targets.child);
  if (!reports_written) return 1;
  return exit_status(command_status, opts.fail_on, findings);
}

}  // namespace

int print_version(bool as_json) {
  // tracefs is needed to tell whether the syscall tracepoint exists; without root it may
  // be unreadable, and the enter feature then shows as off.
  std::optional<TracefsMount> tracefs;
  if (has_bpf_privileges()) tracefs.emplace();
  KernelSupport support = probe_this_kernel();
  // The boundary's sources: the rings' indices always; uprobes where a target maps a
  // shared liburing, found again at each run (this is the one a new command would map).
  const std::vector<std::string> liburing = find_liburing({});
  const std::string uprobes = liburing.empty() ? "none found (static, inlined or no liburing: the rings' indices alone)"
                                               : visible_text(fmt::format("{}", fmt::join(liburing, ", ")));
  if (as_json) {
    nlohmann::ordered_json doc = {{"tool", "uringscope"},
                                  {"tool_version", URINGSCOPE_VERSION},
                                  {"kernel", kernel_json(kernel_info(support, kernel_release()))},
                                  {"boundary", {{"sources", {"ring_index", "liburing_uprobes"}},
                                                {"liburing", liburing}}}};
    std::cout << json_document(doc) << "\n";
    return 0;
  }
  std::cout << "uringscope " << URINGSCOPE_VERSION << "\n";
  std::cout << "kernel   " << kernel_release() << "\n";
  std::cout << "tier     " << tier_name(support.tier) << "\n";
  std::cout << "features\n";
  for (const auto& f : support.features) {
    std::cout << fmt::format("  {:<13} {:<4} {}\n", f.name, f.enabled ? "on" : "off", f.detail);
  }
  std::cout << "boundary sources\n";
  std::cout << "  ring indices  every program: SQ wait (SQPOLL), CQ depth, reap lag\n";
  std::cout << "  liburing      uprobes at run time on the shared liburing a target maps: submit\n"
               "                batching, exact reap of CQEs handed over by waiting calls; here: "
            << uprobes << "\n";
  return 0;
}

int print_list_ops(bool as_json) {
  // The BTF file is world-readable: no privileges needed. Without it, the built-in table.
  BtfPtr btf(btf__load_vmlinux_btf());
  const std::vector<OpcodeRow> rows = opcode_table(kernel_opcodes(btf.get()));
  const bool from_btf = opcode_table_from_btf(rows);
  if (as_json) {
    std::cout << json_document(list_ops_json(rows, kernel_release(), from_btf)) << "\n";
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
  return trace_run(opts);
}

}  // namespace uringscope
