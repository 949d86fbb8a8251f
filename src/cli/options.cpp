// SPDX-License-Identifier: MIT
#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "util/error.h"
#include "util/strings.h"
#include "cli/argv.h"
#include "cli/exit_status.h"
#include "metrics/metrics.h"

namespace uringscope {
namespace {

constexpr const char* kExamples = R"(
Examples:
  sudo uringscope ./myapp --my-args      run a program under the scope
  sudo uringscope top -p 31337           full-screen live view (? for its keys); the
                                         report when you quit
  sudo uringscope -p 31337 -d 30         watch a running process for 30 s
  sudo uringscope -a -d 10               every io_uring user on the machine, 10 s
  sudo uringscope -c -e punt -p 31337    compact per-op table, only ops that punted
  sudo uringscope --json=r.json -p 31337 -d 10
                                         JSON report in r.json, text report on stdout
  sudo uringscope --json --fail-on=warn -p 31337 -d 10 || alert
                                         CI gate: exit 3 on a finding at WARN or above
  sudo uringscope --baseline b.json ./myapp; sudo uringscope --diff b.json ./myapp
                                         compare two runs
  sudo uringscope --flamegraph io.svg ./myapp
                                         where the I/O goes: comm, ring, op, file
  uringscope --version                   what this kernel supports
  uringscope --list-ops                  the io_uring opcodes this kernel has

Exit status: 0 clean; 1 uringscope error; the command's own nonzero status; 3 a finding
at or above --fail-on (in that order of precedence).
)";

// What CLI11 fills in before the values are checked and moved into Options, and the
// options whose presence matters (count() > 0).
struct Raw {
  std::string pid_text, json_path, fail_on_text, baseline_path, diff_path, metrics_spec,
      trace_path, folded_path, flamegraph_path, flame_weight, rings, keep_rings;
  double duration = 0;
  double interval = 0;
  std::vector<std::string> filters;
  long long files_top = 0;
  long long metrics_files = 0;
  CLI::Option* metrics_files_opt = nullptr;
  std::string files_sort;
  CLI::Option* files_top_opt = nullptr;
  CLI::Option* files_sort_opt = nullptr;
  CLI::Option* duration_opt = nullptr;
  CLI::Option* json_opt = nullptr;
  CLI::Option* leak_opt = nullptr;
  CLI::Option* fail_on_opt = nullptr;
  CLI::Option* baseline_opt = nullptr;
  CLI::Option* diff_opt = nullptr;
  CLI::Option* interval_opt = nullptr;
  CLI::Option* metrics_opt = nullptr;
  CLI::Option* trace_opt = nullptr;
  CLI::Option* files_opt = nullptr;
  CLI::Option* rings_opt = nullptr;
  CLI::Option* keep_rings_opt = nullptr;
  CLI::Option* histograms_opt = nullptr;
  CLI::Option* folded_opt = nullptr;
  CLI::Option* flamegraph_opt = nullptr;
  CLI::Option* flame_weight_opt = nullptr;
};

// The first half of --help, in the order it prints: what to watch, for how long, and
// the saved reports.
void add_run_options(CLI::App& app, Options& opts, Raw& raw) {
  app.add_flag("-h,--help", opts.help, "Print this help and exit");
  app.add_option("-p,--pid", raw.pid_text, "Attach to running processes (comma-separated)")
      ->type_name("PID[,PID]");
  app.add_flag("-a,--all", opts.all, "Trace every process using io_uring");
  raw.duration_opt =
      app.add_option("-d,--duration", raw.duration,
                     "Observation window in seconds (with CMD: stop watching after it)")
          ->type_name("SECONDS");
  raw.json_opt = app.add_option("--json", raw.json_path,
                                "JSON report (schema 2) to FILE, or stdout when FILE is "
                                "omitted or '-' (the text report then goes to stderr)")
                     ->type_name("[=FILE]");
  raw.keep_rings_opt =
      app.add_option("--keep-rings", raw.keep_rings,
                     "Destroyed rings kept one by one, the most notable then the busiest "
                     "(default 256); the rest are summed per process, then per command "
                     "name, so memory and reports stay bounded on long runs ('all' keeps "
                     "every one)")
          ->type_name("N|all");
  raw.leak_opt =
      app.add_option("--leak-age", opts.leak_age_s,
                     "Requests in flight longer than this when the window ends are "
                     "reported as leaked (or as waiting, for ops that wait on events); "
                     "default 0.5")
          ->type_name("SECONDS");
  raw.fail_on_opt =
      app.add_option("--fail-on", raw.fail_on_text,
                     "Exit 3 when a finding at or above this severity exists (TOOL and "
                     "NODATA never count)")
          ->type_name("info|warn|crit");
  raw.baseline_opt =
      app.add_option("--baseline", raw.baseline_path, "Save this run's JSON report to FILE")
          ->type_name("FILE");
  raw.diff_opt = app.add_option("--diff", raw.diff_path,
                                "Compare this run with a saved JSON report and print the "
                                "changes (also as \"diff\" in --json)")
                     ->type_name("FILE");
}

// --folded, --flamegraph and what their frames weigh.
void add_flame_options(CLI::App& app, Raw& raw) {
  raw.folded_opt = app.add_option("--folded", raw.folded_path,
                                  "Write folded stacks (comm;ring;op;file weight) for "
                                  "flamegraph.pl, inferno or speedscope; turns on --files "
                                  "unless --no-files is given")
                       ->type_name("FILE");
  raw.flamegraph_opt = app.add_option("--flamegraph", raw.flamegraph_path,
                                      "Write the same stacks as an interactive SVG flame "
                                      "graph (click to zoom, Ctrl-F to search)")
                           ->type_name("FILE.svg");
  raw.flame_weight_opt = app.add_option("--flame-weight", raw.flame_weight,
                                        "What a frame's width counts: count (CQEs, the "
                                        "default), bytes or time (total latency); also "
                                        "where top's flame tab starts")
                             ->type_name("KEY");
}

// The second half of --help, first part: the text report's shape.
void add_view_options(CLI::App& app, Options& opts, Raw& raw) {
  // --summary, --filter, -t and --no-doctor: the spellings of the C releases, kept so
  // their users' scripts and habits work here too.
  app.add_flag("-c,--compact,--summary", opts.compact,
               "Compact report: one per-op table over all rings, and the findings");
  raw.histograms_opt = app.add_flag("--histograms", opts.histograms,
                                    "With -c: each op's latency distribution too (the full "
                                    "report has them for ops with 100 or more timed requests)");
  raw.rings_opt = app.add_option("--rings", raw.rings,
                                 "Rings in full in the text and JSON reports, the busiest "
                                 "by time (default 10; idle rings and the rest are summed "
                                 "up; 'all' writes every ring)")
                      ->type_name("N|all");
  app.add_option("-e,--filter", raw.filters,
                 "Display filter for the text report: op=NAME[,NAME], file=GLOB, punt, error "
                 "or all (repeatable; conditions combine)")
      ->type_name("EXPR")
      // One expression per -e: the word after it starts the command (`-e punt ./app`).
      ->allow_extra_args(false);
  app.add_flag("--no-findings,--no-doctor", opts.no_findings,
               "Numbers only: no findings are evaluated");
  raw.files_opt = app.add_flag("--files,!--no-files", opts.files,
               "Per-file attribution (off by default: it costs about 0.3 us per request "
               "on a file): each ring's requests, bytes, latency, punts and errors per file "
               "and socket, by name");
  raw.files_top_opt = app.add_option("--files-top", raw.files_top,
                                     "With --files: rows of each ring's file table in the "
                                     "text report (default 10; 0 hides it; the JSON has "
                                     "every row)")
                          ->type_name("N");
  raw.files_sort_opt = app.add_option("--files-sort", raw.files_sort,
                                      "With --files: order of the file table, time "
                                      "(default), requests, bytes or name")
                           ->type_name("KEY");
}

// The rest of --help's second half: what the run watches and feeds while it runs.
void add_watch_options(CLI::App& app, Options& opts, Raw& raw) {
  app.add_flag("-f,--follow", opts.follow,
               "Follow children: processes the targets fork become targets too");
  raw.interval_opt =
      app.add_option("-i,--interval", raw.interval,
                     "Live mode: per-op deltas every SECONDS, then the full report (with "
                     "top: how often the screen refreshes, default 1)")
          ->type_name("SECONDS");
  raw.metrics_opt =
      app.add_option("--metrics", raw.metrics_spec,
                     "Serve OpenMetrics at http://[ADDR]:PORT/metrics while running "
                     "(':PORT' listens on every interface, 'PORT' on loopback)")
          ->type_name("[ADDR]:PORT");
  raw.metrics_files_opt =
      app.add_option("--metrics-files", raw.metrics_files,
                     "With --metrics: also a series per (ring, op, file) for the N busiest "
                     "files of each ring (default 0: none, so cardinality stays bounded)")
          ->type_name("N");
  raw.trace_opt =
      app.add_option("-t,--trace", raw.trace_path,
                     "Write a per-request timeline (Chrome trace JSON, opens in Perfetto)")
          ->type_name("FILE");
  app.add_flag("--check", opts.check,
               "Hazard mode (more overhead): in-flight requests whose memory overlaps, "
               "registered buffers changed and memory unmapped under a request");
  app.add_flag("--boundary,!--no-boundary", opts.boundary,
               "Time the rings between kernel and program (on by default; --no-boundary turns "
               "it off): SQ wait on SQPOLL rings, CQ depth and reap lag on every ring");
  app.add_flag("--liburing", opts.liburing,
               "Also put uprobes on the shared liburing the targets map: SQEs per "
               "io_uring_submit*() call and exact reap times (a uprobe costs microseconds "
               "per liburing call)");
  app.add_flag("--list-ops", opts.list_ops,
               "The io_uring opcode table, marking which ops this kernel has");
  app.add_flag("-v,--verbose", opts.verbose, "Show libbpf and BPF verifier messages, and the programs attached");
  app.add_flag("--keep-root", opts.keep_root,
               "Under sudo, run CMD as root instead of as the invoking user");
  app.add_flag("--version", opts.version,
               "Version, kernel release, support tier and per-feature status");
}

// "N" or "all" (nullopt) for an option that counts rings.
std::optional<std::size_t> rings_or_all(std::string_view option, const std::string& text) {
  if (text == "all") return std::nullopt;
  const std::optional<uint64_t> n = parse_whole_number(text);
  if (!n) throw UsageError(fmt::format("{} wants a number of rings, 0 or more, or all", option));
  return static_cast<std::size_t>(*n);
}

// The command, the targets and the window, in the order their errors are reported.
void check_window(const CLI::App& app, const Raw& raw, bool command_after_dashes, Options& opts) {
  opts.command = app.remaining();
  if (!opts.command.empty() && opts.command.front() == "--") opts.command.erase(opts.command.begin());
  // prefix_command() hands an unknown option over as if it started the command.
  if (!opts.command.empty() && !command_after_dashes && opts.command.front().size() > 1 &&
      opts.command.front()[0] == '-') {
    throw UsageError(fmt::format("unknown option {}", opts.command.front()));
  }
  if (!raw.pid_text.empty()) opts.pids = parse_pid_list(raw.pid_text);
  if (raw.duration_opt->count()) {
    if (!std::isfinite(raw.duration) || raw.duration <= 0) {
      throw UsageError("-d wants a positive number of seconds");
    }
    opts.duration_s = raw.duration;
  }
  if (raw.leak_opt->count() && !(std::isfinite(opts.leak_age_s) && opts.leak_age_s >= 0)) {
    throw UsageError("--leak-age wants a number of seconds, 0 or more");
  }
  if (raw.keep_rings_opt->count()) opts.keep_rings = rings_or_all("--keep-rings", raw.keep_rings);
}

void check_file_table(const Raw& raw, Options& opts) {
  if (raw.files_top_opt->count()) {
    if (raw.files_top < 0) throw UsageError("--files-top wants a number of rows, 0 or more");
    opts.file_table.top = static_cast<std::size_t>(raw.files_top);
  }
  if (raw.files_sort_opt->count()) {
    static constexpr std::pair<std::string_view, FileSort> kSorts[] = {
        {"time", FileSort::Time}, {"requests", FileSort::Requests},
        {"bytes", FileSort::Bytes}, {"name", FileSort::Name}};
    auto it = std::find_if(std::begin(kSorts), std::end(kSorts),
                           [&](const auto& s) { return s.first == raw.files_sort; });
    if (it == std::end(kSorts))
      throw UsageError("--files-sort wants time, requests, bytes or name");
    opts.file_table.sort = it->second;
  }
  if (!opts.files && (raw.files_top_opt->count() || raw.files_sort_opt->count()))
    throw UsageError("--files-top and --files-sort shape the file table, which needs --files");
}

// The flame graph's file level needs the per-file rows, so asking for one turns --files
// on, unless the user said --no-files: then the stacks stop at the opcode.
void check_flame_outputs(const Raw& raw, Options& opts) {
  if (raw.folded_opt->count()) {
    if (raw.folded_path.empty()) throw UsageError("--folded wants a file name");
    opts.folded = raw.folded_path;
  }
  if (raw.flamegraph_opt->count()) {
    if (raw.flamegraph_path.empty()) throw UsageError("--flamegraph wants a file name");
    opts.flamegraph = raw.flamegraph_path;
  }
  const bool flame = opts.folded || opts.flamegraph;
  if (raw.flame_weight_opt->count()) {
    // top's flame tab starts with it too.
    if (!flame && !opts.top) throw UsageError("--flame-weight weighs --folded or --flamegraph, neither given");
    const auto weight = parse_flame_weight(raw.flame_weight);
    if (!weight) throw UsageError("--flame-weight wants count, bytes or time");
    opts.flame_weight = *weight;
  }
  if (flame && raw.files_opt->count() == 0) opts.files = true;
}

void check_text_shape(const Raw& raw, Options& opts) {
  if (raw.histograms_opt->count() && !opts.compact) {
    throw UsageError("--histograms adds histograms to -c; the full report has them already");
  }
  if (raw.rings_opt->count()) opts.full_rings = rings_or_all("--rings", raw.rings);
}

void check_outputs(const Raw& raw, Options& opts) {
  if (raw.fail_on_opt->count()) {
    opts.fail_on = parse_fail_on(raw.fail_on_text);
    if (!opts.fail_on) throw UsageError("--fail-on wants info, warn or crit");
    if (opts.no_findings) {
      throw UsageError("--fail-on needs findings: it cannot be combined with --no-findings");
    }
  }
  if (raw.baseline_opt->count()) opts.baseline_out = raw.baseline_path;
  if (raw.diff_opt->count()) opts.diff_against = raw.diff_path;
  opts.display_filter = parse_display_filter(raw.filters);
  check_flame_outputs(raw, opts);
  check_text_shape(raw, opts);
  check_file_table(raw, opts);
  if (raw.interval_opt->count()) {
    if (!std::isfinite(raw.interval) || raw.interval < 0.05) {
      throw UsageError("-i wants an interval of at least 0.05 seconds");
    }
    opts.interval_s = raw.interval;
  } else if (opts.top) {
    opts.interval_s = 1.0;
  }
  // A malformed address fails here, before anything is attached.
  if (raw.metrics_opt->count()) opts.metrics = parse_listen_address(raw.metrics_spec);
  if (raw.metrics_files_opt->count()) {
    if (!opts.metrics) throw UsageError("--metrics-files adds series to --metrics, which is not given");
    if (raw.metrics_files < 0) throw UsageError("--metrics-files wants a number of files, 0 or more");
    if (!opts.files) throw UsageError("--metrics-files needs the per-file rows of --files");
    opts.metrics_files = static_cast<std::size_t>(raw.metrics_files);
  }
  if (raw.trace_opt->count()) {
    if (raw.trace_path.empty()) throw UsageError("--trace wants a file name");
    opts.trace = raw.trace_path;
  }
}

void define_options(CLI::App& app, Options& opts, Raw& raw) {
  app.description(
      "uringscope: what your io_uring program really does, and what to fix\n\n"
      "usage: uringscope [OPTIONS] CMD [ARGS...] | -p PID[,PID] | -a\n"
      "       uringscope top [OPTIONS] CMD [ARGS...] | -p PID[,PID] | -a   (full screen)");
  app.name("uringscope");
  app.footer(kExamples);
  app.prefix_command();  // the first word that is not an option starts CMD
  app.set_help_flag();   // we print help ourselves (no exit from inside the parser)
  add_run_options(app, opts, raw);
  add_view_options(app, opts, raw);
  add_watch_options(app, opts, raw);
  add_flame_options(app, raw);
}

ValueOptions value_spellings(const CLI::App& app) {
  ValueOptions spellings;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_expected_min() == 0) continue;  // a flag: no value
    for (const std::string& name : option->get_snames()) spellings.insert("-" + name);
    for (const std::string& name : option->get_lnames()) spellings.insert("--" + name);
  }
  return spellings;
}

}  // namespace

ValueOptions options_taking_values() {
  CLI::App app;
  Options opts;
  Raw raw;
  define_options(app, opts, raw);
  return value_spellings(app);
}

Options parse_options(int argc, const char* const* argv) {
  Options opts;
  CLI::App app;
  Raw raw;
  define_options(app, opts, raw);

  std::vector<std::string> words(argv + 1, argv + argc);
  // `top` as the first word is the full-screen view; a program called top runs as
  // `uringscope -- top`.
  if (!words.empty() && words.front() == "top") {
    opts.top = true;
    words.erase(words.begin());
  }
  Normalised normalised = normalise_json_flag(std::move(words), value_spellings(app));
  // CLI11 takes the words in reverse order.
  std::vector<std::string> args(normalised.args.rbegin(), normalised.args.rend());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  opts.help_text = app.help();
  if (raw.json_opt->count()) opts.json = raw.json_path.empty() ? "-" : raw.json_path;
  if (opts.help || opts.version || opts.list_ops) return opts;

  check_window(app, raw, normalised.command_after_dashes, opts);
  check_outputs(raw, opts);
  const int targets = !opts.command.empty() + !opts.pids.empty() + opts.all;
  if (targets == 0) throw UsageError("nothing to trace: give a command, -p PID or -a");
  if (targets > 1) {
    throw UsageError("choose one target: a command, -p PID or -a (they cannot be combined)");
  }
  return opts;
}

}  // namespace uringscope
