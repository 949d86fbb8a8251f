// SPDX-License-Identifier: MIT
#include <algorithm>
#include <ostream>
#include <string>
#include <variant>

#include <fmt/format.h>

#include "util/errno_name.h"
#include "util/format.h"
#include "uringscope/opcodes.h"
#include "report/report.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

constexpr std::string_view kMarker = "<-- !";
constexpr std::size_t kLineWidth = 76;
// Wrapping to a sliver of a line is worse than running past kLineWidth.
constexpr std::size_t kMinWrap = 30;
// Error codes named per op; the rest are summed into "other", which is rarely worth more.
constexpr std::size_t kTopErrnos = 3;
// Leak rows listed; the count of the rest follows, the JSON report carries them all.
constexpr std::size_t kLeakRows = 10;

std::string marker_if(bool marked) { return marked ? std::string(kMarker) : std::string(); }

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string target_line(const TargetInfo& target) {
  switch (target.mode) {
    case TargetMode::Command: {
      std::string line = "target: command";
      for (const std::string& arg : target.command) line += " " + arg;
      return line;
    }
    case TargetMode::Pid: {
      std::vector<std::string> pids;
      for (int pid : target.pids) pids.push_back(std::to_string(pid));
      return "target: pid " + join(pids, ",");
    }
    case TargetMode::All: return "target: all processes";
  }
  return "target: all processes";
}

bool created_before_attach(const Ring& ring) {
  return ring.source == RingSource::FdTable || ring.source == RingSource::Submit;
}

// `lead` and then `items` joined by ", ", wrapped between items so that no count is
// separated from its label; continuation lines hang under the first item.
void write_list(std::ostream& out, std::string_view indent, const std::string& lead,
                const std::vector<std::string>& items) {
  std::string line = std::string(indent) + lead;
  std::string hang(std::min(line.size(), kLineWidth - kMinWrap), ' ');
  bool line_has_item = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (line_has_item && line.size() + 1 + piece.size() > kLineWidth) {
      out << line << '\n';
      line = hang;
      line_has_item = false;
    }
    if (line_has_item) line += ' ';
    line += piece;
    line_has_item = true;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << '\n';
}

// "690,000 regular file (likely page-cache miss)", ... for the non-zero reasons.
std::vector<std::string> punt_reason_items(const OpStats& op, bool iopoll_ring) {
  const PuntReasons& r = op.punt_reasons;
  std::vector<std::string> items;
  auto add = [&](uint64_t n, std::string_view label) {
    if (n) items.push_back(format_count(n) + " " + std::string(label));
  };
  // FORCE_ASYNC is IOSQE_ASYNC, but the kernel also sets it itself for ops that can only
  // block (fsync, fallocate, sync_file_range), so the label must not blame the app.
  add(r.forced, "forced (IOSQE_ASYNC or blocking-only op)");
  add(r.hashed, hashed_punt_label(op.opcode, iopoll_ring));
  add(r.regular_file, "regular file (likely page-cache miss)");
  add(r.eagain, "-EAGAIN retry");
  // The legacy tier sees punts but not their reasons; a bare total would read as if the
  // listed reasons were all of them.
  uint64_t classified = r.forced + r.hashed + r.regular_file + r.eagain;
  if (op.punted > classified) add(op.punted - classified, "unclassified");
  return items;
}

// "EBADF 48", "EINVAL 2", "3 other": the top codes, then whatever they leave unexplained
// (codes past the top few, and errors the errno table had no room for).
std::vector<std::string> errno_items(const OpStats& op) {
  std::vector<ErrnoCount> errnos = op.errnos;
  // Snapshot promises largest first; a merged or hand-built one may not keep it.
  std::stable_sort(errnos.begin(), errnos.end(),
                   [](const ErrnoCount& a, const ErrnoCount& b) { return a.count > b.count; });
  std::vector<std::string> items;
  uint64_t shown = 0;
  for (std::size_t i = 0; i < errnos.size() && i < kTopErrnos; ++i) {
    items.push_back(errno_name(errnos[i].err) + " " + format_count(errnos[i].count));
    shown += errnos[i].count;
  }
  if (shown > 0 && op.errors > shown) items.push_back(format_count(op.errors - shown) + " other");
  return items;
}

void render_op_errors(std::ostream& out, const OpStats& op, std::string_view indent) {
  std::string name = opcode_name(op.opcode);
  std::string rejected = format_count(op.failed) + " rejected before issue";
  if (op.errors == 0) {
    out << indent << name << ' ' << rejected << '\n';
    return;
  }
  std::vector<std::string> items = errno_items(op);
  std::string lead = name + " errors " + format_count(op.errors);
  if (op.failed > 0) {
    if (items.empty()) {
      lead += "; " + rejected;
    } else {
      items.back() += "; " + rejected;
    }
  }
  if (!items.empty()) lead += ": ";
  write_list(out, indent, lead, items);
}

// "RECV 900 of 5,000 waited on poll (12 on regular files)".
void render_op_poll(std::ostream& out, const OpStats& op, std::string_view indent) {
  std::string line =
      std::string(indent) + opcode_name(op.opcode) + " " + format_count(op.poll_armed);
  if (op.submitted > 0) line += " of " + format_count(op.submitted);
  line += " waited on poll";
  if (op.poll_armed_regular > 0)
    line += " (" + format_count(op.poll_armed_regular) + " on regular files)";
  out << line << '\n';
}

bool has_op_details(const OpStats& op) {
  return op.punted || op.poll_armed || op.poll_armed_regular || op.errors || op.failed;
}

bool any_tool_loss(const ToolStats& t) {
  return t.rings_full || t.opstats_full || t.op_out_of_range || t.enter_no_ring ||
         t.overflow_no_req || t.errno_full || t.threads_full || t.trace_drops;
}

const Ring* ring_by_id(const Snapshot& snap, uint32_t id) {
  for (const Ring& ring : snap.rings)
    if (ring.id == id) return &ring;
  return nullptr;
}

// "#0", or "other" for the catch-all ring, whose id means nothing to the reader.
std::string ring_label(const Snapshot& snap, uint32_t id) {
  const Ring* ring = ring_by_id(snap, id);
  if (ring && ring->source == RingSource::CatchAll) return "other";
  return fmt::format("#{}", id);
}

// Whether a WORKERS finding points at this process: through its ring, else through an
// integer "pid" evidence; a ring-less finding without one concerns every process.
bool workers_finding_concerns(const Snapshot& snap, const Finding& f, uint32_t pid) {
  if (f.tag != "WORKERS") return false;
  if (f.ring) {
    const Ring* ring = ring_by_id(snap, *f.ring);
    return ring && ring->pid == pid;
  }
  for (const Evidence& e : f.evidence) {
    if (e.key != "pid") continue;
    if (const int64_t* v = std::get_if<int64_t>(&e.value)) return *v == static_cast<int64_t>(pid);
  }
  return true;
}

void render_ring(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                 uint64_t window_ns, bool filtered) {
  render_ring_header(out, ring);
  out << "  submission\n";
  render_submission(out, ring, findings);
  out << "  per-op latency (submit -> complete)\n";
  if (ring.ops.empty()) {
    out << (filtered ? "    (no op matches the display filter)\n" : "    (no requests seen)\n");
  } else {
    render_op_table(out, ring.ops, ring.id, findings);
    // A heading of their own: under the table at its indent they would read as rows.
    if (std::any_of(ring.ops.begin(), ring.ops.end(), has_op_details)) {
      out << "  per-op punts, errors, poll waits\n";
      render_op_details(out, ring.ops, ring.setup_flags & kSetupIopoll);
    }
  }
  render_counters(out, ring, findings, "  ", window_ns);
  render_untracked_note(out, ring.counters);
}

}  // namespace

bool finding_concerns(const std::vector<Finding>& findings,
                      std::initializer_list<std::string_view> tags,
                      std::optional<uint32_t> ring, std::optional<uint32_t> opcode) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    if (std::find(tags.begin(), tags.end(), f.tag) == tags.end()) return false;
    if (!f.ring) return false;
    if (ring && *f.ring != *ring) return false;
    if (opcode && f.opcode != opcode) return false;
    return true;
  });
}

void render_text_header(std::ostream& out, const Snapshot& snap) {
  std::vector<std::string> facts{format_duration(snap.wall_ns)};
  if (snap.ncpus > 0) facts.push_back(fmt::format("{} cpu{}", snap.ncpus, snap.ncpus == 1 ? "" : "s"));
  if (!snap.kernel.release.empty()) facts.push_back("kernel " + snap.kernel.release);
  if (snap.kernel.tier) facts.push_back("tier " + std::string(tier_name(*snap.kernel.tier)));
  std::string title = "uringscope report (" + join(facts, ", ") + ")";
  out << title << '\n' << std::string(title.size(), '=') << '\n';
  out << target_line(snap.target) << '\n';

  // A degraded kernel must be visible next to the numbers it degrades, not only in
  // --version.
  TextTable off({Align::Left, Align::Left}, "  ");
  for (const FeatureState& feature : snap.kernel.features) {
    if (!feature.enabled) off.add_row({feature.name, feature.detail});
  }
  if (!off.empty()) {
    out << "kernel features off:\n";
    off.write(out);
  }
}

void render_ring_header(std::ostream& out, const Ring& ring) {
  if (ring.source == RingSource::CatchAll) {
    out << "other rings (ring table full)\n";
    return;
  }
  std::string fd = ring.fd < 0 ? std::string("?") : std::to_string(ring.fd);
  auto size = [](uint32_t n) { return n ? std::to_string(n) : std::string("?"); };
  std::vector<std::string> flags = setup_flag_names(ring.setup_flags);
  std::string line = fmt::format("ring #{} fd={}  sq={} cq={}  flags: {}", ring.id, fd,
                                 size(ring.sq_entries), size(ring.cq_entries),
                                 flags.empty() ? std::string("(none)") : join(flags, "|"));
  std::string owner = ring.comm;
  if (ring.pid != 0) owner += (owner.empty() ? "" : " ") + fmt::format("pid {}", ring.pid);
  if (!owner.empty()) line += "   " + owner;
  if (created_before_attach(ring)) line += "  (created before attach)";
  out << line << '\n';
}

void render_submission(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                       std::string_view indent) {
  const Counters& c = ring.counters;
  std::string batch;
  if (ring.sqpoll()) {
    if (c.submissions > 0) batch = "submitted by the SQPOLL thread";
  } else if (c.enter_submit_calls > 0) {
    batch = "avg batch " + format_fixed(ring.avg_batch(), 1) + "/enter";
  }
  TextTable table({Align::Left, Align::Right, Align::Left}, std::string(indent));
  table.add_row({"io_uring_enter() calls", format_count(c.enter_calls)});
  table.add_row({"SQEs submitted", format_count(c.submissions), batch},
                marker_if(finding_concerns(findings, {"BATCH"}, ring.id, std::nullopt)));
  table.add_row({"completions", format_count(c.completions)});
  table.write(out);
}

void render_op_table(std::ostream& out, std::span<const OpStats> ops,
                     std::optional<uint32_t> ring, const std::vector<Finding>& findings,
                     std::string_view indent) {
  TextTable table({Align::Left}, std::string(indent));
  table.add_row({"op", "reqs", "p50", "p99", "max", "punted", "errors"});
  for (const OpStats& op : ops) {
    const Histogram& h = op.latency;
    bool timed = h.count() > 0;
    auto latency = [&](uint64_t ns) { return timed ? format_duration(ns) : std::string("-"); };
    bool marked = finding_concerns(findings, {"PUNT", "ERRORS", "POLL-RETRY"}, ring, op.opcode);
    table.add_row({opcode_name(op.opcode), format_count(op.submitted), latency(h.quantile_ns(0.5)),
                   latency(h.quantile_ns(0.99)), latency(h.max_ns),
                   op.submitted ? format_percent(op.punt_pct()) : std::string("-"),
                   format_count(op.errors)},
                  marker_if(marked));
  }
  table.write(out);
}

void render_op_details(std::ostream& out, std::span<const OpStats> ops, bool iopoll_ring,
                       std::string_view indent) {
  for (const OpStats& op : ops) {
    if (!has_op_details(op)) continue;
    if (op.punted > 0)
      write_list(out, indent,
                 opcode_name(op.opcode) + " punted " + format_count(op.punted) + ": ",
                 punt_reason_items(op, iopoll_ring));
    if (op.poll_armed > 0 || op.poll_armed_regular > 0) render_op_poll(out, op, indent);
    if (op.errors > 0 || op.failed > 0) render_op_errors(out, op, indent);
  }
}

void render_counters(std::ostream& out, const Ring& ring, const std::vector<Finding>& findings,
                     std::string_view indent, uint64_t window_ns) {
  const Counters& c = ring.counters;
  auto concerns = [&](std::string_view tag) {
    return finding_concerns(findings, {tag}, ring.id, std::nullopt);
  };
  TextTable table({Align::Left, Align::Right, Align::Left}, std::string(indent) + "  ");
  auto row = [&](bool shown, std::string label, std::string value, std::string detail = {},
                 bool marked = false) {
    if (!shown) return;
    table.add_row({std::move(label), std::move(value), std::move(detail)}, marker_if(marked));
  };
  auto items = [](uint64_t n) { return format_count(n) + (n == 1 ? " item" : " items"); };

  row(c.cq_overflows, "CQ overflows", format_count(c.cq_overflows), {}, concerns("OVERFLOW"));
  row(c.multishot_cqes, "multishot CQEs", format_count(c.multishot_cqes));
  row(c.untracked_completions, "untracked completions", format_count(c.untracked_completions));
  row(c.inflight_map_drops, "in-flight table drops", format_count(c.inflight_map_drops));
  row(c.failed_requests, "requests rejected before issue", format_count(c.failed_requests));
  row(c.poll_armed || c.poll_armed_regular, "waited on poll, then retried",
      format_count(c.poll_armed),
      c.poll_armed_regular ? format_count(c.poll_armed_regular) + " on regular files" : "");
  row(c.short_writes, "short writes", format_count(c.short_writes), {}, concerns("SHORT-WRITE"));
  row(c.task_adds, "task work queued", format_count(c.task_adds));
  row(c.task_work_runs || c.task_work_items, "task work runs", format_count(c.task_work_runs),
      items(c.task_work_items));
  row(c.local_task_work_runs || c.local_task_work_items, "local task work runs",
      format_count(c.local_task_work_runs), items(c.local_task_work_items));
  // DEFER-TW is about lag, or about local work that never ran (then there is no lag,
  // only work still pending), so it marks whichever of the two lines is there.
  bool defer_tw = concerns("DEFER-TW");
  row(c.local_task_work_max_lag_ns, "local task work max lag",
      format_duration(c.local_task_work_max_lag_ns), {}, defer_tw);
  row(c.local_task_work_pending_ns, "local task work pending at end (age)",
      format_duration(c.local_task_work_pending_ns), {},
      defer_tw && c.local_task_work_max_lag_ns == 0);
  row(c.cancelled_at_exit, "CQEs cancelled at owner exit", format_count(c.cancelled_at_exit));
  // The owner's workers serve all of its rings, so every ring of one process shows the
  // same number; the label says whose they are.
  row(c.workers_distinct,
      ring.pid ? fmt::format("io-wq workers (pid {}, all rings)", ring.pid)
               : std::string("io-wq workers (owner, all rings)"),
      format_count(c.workers_distinct), {}, concerns("WORKERS"));
  // Same rule as DEFER-TW: LEAK marks the suspected line, or the pending one alone.
  bool leak = concerns("LEAK");
  row(c.leaks_suspected, "leaks suspected (stuck)", format_count(c.leaks_suspected), {}, leak);
  row(c.leaks_pending, "leaks pending (waiting on an event)", format_count(c.leaks_pending), {},
      leak && c.leaks_suspected == 0);

  // An SQPOLL thread that never went off-CPU is news too (it burns a core), so the
  // off-CPU line stays at zero once the thread was seen or a finding is about it.
  bool sqpoll_finding = concerns("SQPOLL");
  if (ring.sqpoll() && (ring.sq_tid || c.sqpoll_offcpu_ns || c.sqpoll_sleeps ||
                        c.sqpoll_preempts || c.sqpoll_wakeups || sqpoll_finding)) {
    std::string thread = ring.sq_tid ? fmt::format("SQPOLL thread (tid {})", ring.sq_tid)
                                     : std::string("SQPOLL thread");
    // "0ns off-CPU" for a thread asleep throughout would say the opposite of the truth.
    std::string value = format_duration(c.sqpoll_offcpu_ns);
    std::string share;
    if (!ring.sqpoll_thread_seen_running()) {
      value = "-";
      share = "not seen on a CPU in the window (asleep throughout)";
    } else if (window_ns > 0) {
      share = format_percent(100.0 * static_cast<double>(c.sqpoll_offcpu_ns) /
                             static_cast<double>(window_ns)) +
              " of the window";
    }
    table.add_row({thread + " off-CPU", value, share}, marker_if(sqpoll_finding));
    row(c.sqpoll_sleeps, "SQPOLL thread sleeps (idle)", format_count(c.sqpoll_sleeps));
    row(c.sqpoll_preempts, "SQPOLL thread preemptions", format_count(c.sqpoll_preempts));
    row(c.sqpoll_wakeups, "SQPOLL wake-up enter calls", format_count(c.sqpoll_wakeups));
  }
  if (table.empty()) return;
  out << indent << "counters\n";
  table.write(out);
}

void render_untracked_note(std::ostream& out, const Counters& counters, std::string_view indent) {
  if (counters.untracked_completions == 0) return;
  uint64_t n = counters.untracked_completions;
  std::string body = fmt::format(
      "{} completion{} untracked (submitted before attach, or dropped from the in-flight "
      "table); latency statistics cover tracked requests only.",
      format_count(n), n == 1 ? " was" : "s were");
  std::string label = std::string(indent) + "note: ";
  std::string hang(label.size(), ' ');
  std::vector<std::string> lines =
      wrap_words(body, std::max(kMinWrap, kLineWidth - std::min(kLineWidth, label.size())));
  for (std::size_t i = 0; i < lines.size(); ++i) out << (i == 0 ? label : hang) << lines[i] << '\n';
}

void render_tool_stats(std::ostream& out, const ToolStats& tool) {
  TextTable table({Align::Left, Align::Right}, "  ");
  auto row = [&](uint64_t value, std::string label) {
    if (value) table.add_row({std::move(label), format_count(value)});
  };
  row(tool.rings_full, "events counted under \"other rings\" (ring table full)");
  row(tool.opstats_full, "events counted in a catch-all op row (op table full)");
  row(tool.op_out_of_range, "requests with an opcode beyond the table");
  row(tool.enter_no_ring, "io_uring_enter() calls not matched to a ring");
  row(tool.overflow_no_req, "overflowed CQEs of untracked requests");
  row(tool.errno_full, "error CQEs whose code was not recorded (errno table full)");
  row(tool.threads_full, "io threads not recorded (thread table full)");
  row(tool.trace_drops, "--trace records lost (trace buffer full)");
  if (table.empty()) return;
  out << "tool losses\n";
  table.write(out);
}

void render_leaks(std::ostream& out, const Snapshot& snap) {
  const LeakInfo& leak = snap.leak;
  uint64_t total = leak.suspected + leak.pending;
  if (total == 0) return;
  out << (leak.threshold_ns
              ? "leaks (requests in flight longer than " + format_duration(leak.threshold_ns) + ")"
              : std::string("leaks (requests in flight past the leak age)"))
      << '\n';
  // Suspected: stuck or abandoned; pending: waiting on an event that may yet come.
  out << "  " << format_count(leak.suspected) << " suspected, " << format_count(leak.pending)
      << " pending (waiting on an event); oldest " << format_duration(leak.oldest_ns) << '\n';

  TextTable table({Align::Left, Align::Left, Align::Right, Align::Left, Align::Left, Align::Left},
                  "  ");
  table.add_row({"ring", "op", "age", "user_data", "where"});
  std::size_t shown = std::min(leak.requests.size(), kLeakRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const PendingRequest& r = leak.requests[i];
    std::vector<std::string> state;
    if (r.abandoned) state.emplace_back("abandoned");
    if (r.waiting) state.emplace_back("waiting");
    table.add_row({ring_label(snap, r.ring), opcode_name(r.opcode), format_duration(r.age_ns),
                   format_hex(r.user_data), std::string(request_where_name(r.where)),
                   join(state, ", ")});
  }
  // No records at all: the totals line is all there is to say.
  if (shown == 0) return;
  table.write(out);
  // The BPF side records only the oldest few; the totals count them all.
  uint64_t known = std::max<uint64_t>(total, leak.requests.size());
  if (known > shown) out << "  ... and " << format_count(known - shown) << " more\n";
}

void render_workers(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings) {
  TextTable table({Align::Left, Align::Right}, "", 1);
  for (const ProcessWorkers& w : snap.workers) {
    if (w.distinct == 0) continue;
    std::string comm;
    for (const Ring& ring : snap.rings) {
      if (ring.pid == w.pid && !ring.comm.empty()) {
        comm = ring.comm;
        break;
      }
    }
    std::string label = fmt::format("io-wq workers: pid {}", w.pid);
    if (!comm.empty()) label += " (" + comm + ")";
    bool marked = std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
      return workers_finding_concerns(snap, f, w.pid);
    });
    table.add_row({label + ":", format_count(w.distinct)}, marker_if(marked));
  }
  table.write(out);
}

void render_findings(std::ostream& out, const std::vector<Finding>& findings) {
  out << "findings\n";
  if (findings.empty()) {
    out << "  no findings\n";
    return;
  }
  // One tag column for all findings so severities and texts line up.
  std::size_t tag_width = 0;
  for (const Finding& f : findings) tag_width = std::max(tag_width, f.tag.size() + 2);
  std::string hang(2 + tag_width + 1, ' ');  // under the severity
  std::string text_indent = hang + "      ";  // under the message

  for (const Finding& f : findings) {
    // Messages name their ring and op themselves (src/rules/), so no scope is added here.
    std::size_t width =
        std::max(kMinWrap, kLineWidth - std::min(kLineWidth, text_indent.size()));
    std::vector<std::string> lines = wrap_words(f.message, width);
    std::string tag = "[" + f.tag + "]";
    tag.resize(tag_width, ' ');
    std::string lead = fmt::format("  {} {:<4}  ", tag, severity_name(f.severity));
    if (lines.empty()) lines.emplace_back();
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string line = (i == 0 ? lead : text_indent) + lines[i];
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
    std::vector<std::string> fix = wrap_words(f.suggestion, width);
    for (std::size_t i = 0; i < fix.size(); ++i)
      out << (i == 0 ? hang + "fix:  " : text_indent) << fix[i] << '\n';
  }
}

void render_text(std::ostream& out, const Snapshot& snap, const std::vector<Finding>& findings,
                 const TextOptions& opts) {
  render_text_header(out, snap);
  const bool filtered = !opts.display_filter.empty();
  if (filtered) {
    out << "display filter: " << opts.display_filter
        << " (text only; the JSON report is complete)\n";
  }
  if (snap.rings.empty()) {
    out << "\nno io_uring activity seen\n";
  } else {
    // Snapshot promises ascending ids; sort anyway, a merged or filtered snapshot may not.
    std::vector<const Ring*> rings;
    for (const Ring& ring : snap.rings) rings.push_back(&ring);
    std::stable_sort(rings.begin(), rings.end(),
                     [](const Ring* a, const Ring* b) { return a->id < b->id; });
    for (const Ring* ring : rings) {
      out << '\n';
      render_ring(out, *ring, findings, snap.wall_ns, filtered);
    }
  }
  if (snap.leak.suspected + snap.leak.pending > 0) {
    out << '\n';
    render_leaks(out, snap);
  }
  if (std::any_of(snap.workers.begin(), snap.workers.end(),
                  [](const ProcessWorkers& w) { return w.distinct > 0; })) {
    out << '\n';
    render_workers(out, snap, findings);
  }
  if (any_tool_loss(snap.tool)) {
    out << '\n';
    render_tool_stats(out, snap.tool);
  }
  if (opts.show_findings) {
    out << '\n';
    render_findings(out, findings);
  }
}

}  // namespace uringscope
