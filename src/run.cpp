// SPDX-License-Identifier: MIT
#include "uringscope/run.h"

#include <bpf/btf.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/timerfd.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <vector>

#include "uringscope/baseline.h"
#include "uringscope/error.h"
#include "uringscope/exit_status.h"
#include "uringscope/list_ops.h"
#include "uringscope/findings.h"
#include "uringscope/libbpf_log.h"
#include "uringscope/output.h"
#include "uringscope/probe.h"
#include "uringscope/process.h"
#include "uringscope/report.h"
#include "uringscope/ring_fds.h"
#include "uringscope/signals.h"
#include "uringscope/snapshot_builder.h"
#include "uringscope/system.h"
#include "uringscope/tracer.h"
#include "uringscope/views.h"

namespace uringscope {
namespace {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

KernelSupport probe_this_kernel() {
  BtfPtr btf = load_kernel_btf();
  ProbeEnvironment env{kernel_release(), syscall_tracepoint_available()};
  return probe_kernel(btf.get(), env);
}

// URINGSCOPE_FORCE_PROGRAMS=usc_a,usc_b overrides the probe for the features those
// programs serve: for trying a variant by hand, and for testing what a verifier
// rejection looks like to the user.
void apply_forced_programs(KernelSupport& support) {
  const char* env = std::getenv("URINGSCOPE_FORCE_PROGRAMS");
  if (!env || !*env) return;
  std::string list = env;
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string feature = feature_of_program(name);
    std::erase_if(support.programs,
                  [&](const std::string& p) { return feature_of_program(p) == feature; });
    support.programs.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

std::string disabled_features(const KernelSupport& support) {
  std::string text;
  for (const auto& f : support.features) {
    if (!f.enabled) text += fmt::format("\n  {}: {}", f.name, f.detail);
  }
  return text;
}

// The processes of the run: a command we start, or pids we watch.
struct Targets {
  std::optional<Child> child;
  std::vector<WatchedProcess> processes;
  TargetInfo info;
};

// Filled in place: a Child is neither copyable nor movable.
void open_targets(const Options& opts, const SignalChannel& signals, Targets& t) {
  if (!opts.command.empty()) {
    resolve_command(opts.command.front());
    t.child.emplace(opts.command, child_credentials(opts.keep_root), signals.original_mask());
    t.info.mode = TargetMode::Command;
    t.info.command = opts.command;
    t.info.pids = {t.child->pid()};
  } else if (!opts.pids.empty()) {
    t.info.mode = TargetMode::Pid;
    for (int pid : opts.pids) {
      WatchedProcess proc = watch_process(pid);
      bool seen = false;
      for (const auto& p : t.processes) seen |= p.tgid == proc.tgid;
      if (seen) continue;
      t.info.pids.push_back(proc.tgid);
      t.processes.push_back(std::move(proc));
    }
  } else {
    t.info.mode = TargetMode::All;
  }
}

bool fd_readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP));
}

// Every watched pid must still be alive once we are attached; otherwise there is
// nothing to watch and an empty report would mislead.
void check_still_running(const Targets& t) {
  for (const auto& proc : t.processes) {
    if (fd_readable(proc.pidfd.get())) {
      throw Error(fmt::format("process {} ({}) exited before uringscope attached", proc.tgid,
                              proc.comm));
    }
  }
}

UniqueFd make_timer(double seconds) {
  UniqueFd fd(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!fd) throw Error(fmt::format("timerfd_create: {}", strerror(errno)));
  itimerspec spec{};
  double whole = std::floor(seconds);
  spec.it_value.tv_sec = static_cast<time_t>(whole);
  spec.it_value.tv_nsec = static_cast<long>((seconds - whole) * 1e9);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  if (timerfd_settime(fd.get(), 0, &spec, nullptr) != 0) {
    throw Error(fmt::format("timerfd_settime: {}", strerror(errno)));
  }
  return fd;
}

// Forwards a SIGINT/SIGTERM/SIGHUP to the command unless the terminal already sent it
// to the whole process group.
void pass_on(const signalfd_siginfo& info, const Targets& t) {
  if (t.child && !sent_by_terminal(info)) t.child->signal(static_cast<int>(info.ssi_signo));
}

enum class WindowEnd { CommandExited, TargetsExited, Duration, Signal };

// Waits until the observation window is over: the command exits, every watched pid
// exits, -d expires, or a signal asks us to stop.
WindowEnd wait_for_window_end(const Options& opts, const SignalChannel& signals, Targets& t) {
  UniqueFd timer;
  if (opts.duration_s) timer = make_timer(*opts.duration_s);
  std::vector<bool> exited(t.processes.size(), false);
  for (;;) {
    std::vector<pollfd> fds{{signals.fd(), POLLIN, 0}};
    if (timer) fds.push_back({timer.get(), POLLIN, 0});
    if (t.child) fds.push_back({t.child->pidfd(), POLLIN, 0});
    std::vector<std::size_t> proc_of_slot(fds.size(), SIZE_MAX);
    for (std::size_t i = 0; i < t.processes.size(); ++i) {
      if (exited[i]) continue;
      fds.push_back({t.processes[i].pidfd.get(), POLLIN, 0});
      proc_of_slot.push_back(i);
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("poll: {}", strerror(errno)));
    }
    if (fds[0].revents) {
      if (auto info = signals.read()) {
        pass_on(*info, t);
        return WindowEnd::Signal;
      }
    }
    if (timer && fds[1].revents) return WindowEnd::Duration;
    if (t.child && fds[timer ? 2 : 1].revents) {
      t.child->reap(true);
      return WindowEnd::CommandExited;
    }
    for (std::size_t slot = 0; slot < fds.size(); ++slot) {
      if (proc_of_slot[slot] != SIZE_MAX && fds[slot].revents) exited[proc_of_slot[slot]] = true;
    }
    if (!t.processes.empty() && std::all_of(exited.begin(), exited.end(), [](bool e) { return e; })) {
      return WindowEnd::TargetsExited;
    }
  }
}

// After the report: the command keeps running unwatched until it exits; its status is
// ours. Signals sent to us in the meantime are passed on.
int wait_for_command(const SignalChannel& signals, Child& child) {
  while (!child.exited()) {
    pollfd fds[2] = {{signals.fd(), POLLIN, 0}, {child.pidfd(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      if (auto info = signals.read(); info && !sent_by_terminal(*info)) {
        child.signal(static_cast<int>(info->ssi_signo));
      }
    }
    if (fds[1].revents) child.reap(true);
  }
  return child.reap(true).value_or(1);
}

void disable_failed_features(KernelInfo& kernel, const std::vector<AttachFailure>& failures) {
  for (const auto& failure : failures) {
    for (auto& f : kernel.features) {
      if (f.name != failure.feature) continue;
      f.enabled = false;
      f.detail = fmt::format("{} did not attach: {}", failure.program, failure.error);
    }
  }
}

std::string attached_message(const Targets& t, const Tracer& tracer, const KernelSupport& support) {
  std::string who;
  switch (t.info.mode) {
    case TargetMode::Command:
      who = fmt::format("running {} (pid {})", t.info.command.front(), t.child->pid());
      break;
    case TargetMode::Pid: {
      std::string pids;
      for (const auto& p : t.processes) {
        pids += fmt::format("{}{} ({})", pids.empty() ? "" : ", ", p.tgid, p.comm);
      }
      who = "watching " + pids;
      break;
    }
    case TargetMode::All:
      who = "watching every process";
      break;
  }
  return fmt::format("uringscope: attached {} programs (tier {}); {}{}", tracer.attached_count(),
                     tier_name(support.tier), who,
                     t.info.mode == TargetMode::Command ? "" : "; Ctrl-C ends the run");
}

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
                TextOptions{.show_findings = !opts.no_findings, .display_filter = filter_text});
  }
  if (delta) {
    out << '\n';
    render_diff_text(out, *delta);
  }
}

void emit_reports(const Options& opts, const Snapshot& snap, const std::vector<Finding>& findings,
                  const std::optional<Baseline>& baseline) {
  std::optional<Diff> delta;
  if (baseline) delta = diff(*baseline, baseline_of(snap, findings));
  const bool json_to_stdout = opts.json && *opts.json == "-";
  if (opts.json || opts.baseline_out) {
    nlohmann::ordered_json report = render_json(snap, findings);
    if (delta) report["diff"] = diff_json(*delta);
    const std::string doc = report.dump(2) + "\n";
    if (opts.baseline_out) write_file_atomic(*opts.baseline_out, doc);
    if (json_to_stdout) {
      std::cout << doc << std::flush;
    } else if (opts.json) {
      write_file_atomic(*opts.json, doc);
    }
  }
  std::ostream& text = json_to_stdout ? std::cerr : std::cout;
  render_human(text, opts, snap, findings, delta);
  text.flush();
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
    std::cout << fmt::format("  {:<10} {:<4} {}\n", f.name, f.enabled ? "on" : "off", f.detail);
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
  if (support.tier == Tier::Unsupported) {
    throw Error("this kernel's io_uring tracepoints are not usable:" + disabled_features(support));
  }

  SignalChannel signals({SIGINT, SIGTERM, SIGHUP});
  Targets targets;
  open_targets(opts, signals, targets);

  TracerConfig config;
  config.filter_tgids = targets.info.mode != TargetMode::All;
  config.pid_max = pid_max();
  if (const PidNamespace ns = own_pid_namespace(); !ns.initial) config.pidns_inode = ns.inode;
  Tracer tracer(support, config);
  for (pid_t pid : targets.info.pids) tracer.add_target(static_cast<uint32_t>(pid));
  if (targets.info.mode != TargetMode::Command) tracer.walk_ring_fds();
  KernelInfo kernel = kernel_info(support, kernel_release());
  disable_failed_features(kernel, tracer.attach());
  check_still_running(targets);
  std::cerr << attached_message(targets, tracer, support) << std::endl;

  const uint64_t start_ns = monotonic_ns();
  if (targets.child) targets.child->release();
  wait_for_window_end(opts, signals, targets);
  const uint64_t end_ns = monotonic_ns();

  tracer.detach();
  SnapshotContext context{.tool_version = URINGSCOPE_VERSION,
                          .wall_ns = end_ns - start_ns,
                          .ncpus = online_cpus(),
                          .kernel = std::move(kernel),
                          .target = targets.info,
                          .end_ns = end_ns,
                          .leak_age_ns = static_cast<uint64_t>(opts.leak_age_s * 1e9)};
  Snapshot snap = build_snapshot(tracer.read_tables(), std::move(context));
  resolve_ring_fds_from_proc(snap.rings);
  const std::vector<Finding> findings = opts.no_findings ? std::vector<Finding>{} : evaluate(snap);
  emit_reports(opts, snap, findings, baseline);

  std::optional<int> command_status;
  if (targets.child) command_status = wait_for_command(signals, *targets.child);
  return exit_status(command_status, opts.fail_on, findings);
}

}  // namespace uringscope
