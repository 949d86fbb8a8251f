// SPDX-License-Identifier: MIT
// A Diff as the text delta table and as the `diff` object of the JSON report. Only
// formats: every number shown is taken from the Diff or computed by baseline.h's
// helpers, so the text and the JSON always agree.
#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "diff/baseline.h"
#include "diff/diff_cells.h"
#include "diff/files_diff.h"
#include "report/text_layout.h"
#include "util/format.h"

namespace uringscope {
namespace {

using Json = nlohmann::ordered_json;
using Align = TextTable::Align;

constexpr std::string_view kMissing = kDiffMissing;
constexpr std::string_view kUnknown = kDiffUnknown;

// --- text cells

std::string format_rate(std::optional<double> rate) {
  if (!rate) return std::string(kUnknown);
  if (*rate < 100.0) return format_fixed(*rate, 1);
  // format_count takes an integer; past 1e18 (absurd, but a file can say anything) the
  // conversion would overflow.
  if (*rate < 1e18) return format_count(static_cast<uint64_t>(std::llround(*rate)));
  return fmt::format("{:.3g}", *rate);
}

std::string format_batch(std::optional<double> batch) {
  // Two decimals where the report shows one: a diff is about small moves.
  return batch ? format_fixed(*batch, 2) : std::string(kUnknown);
}

// One metric row: the label cells, then before -> after and the change.
struct MetricRow {
  std::string metric;
  std::string before;
  std::string after;
  std::string change;
};

void add_block(TextTable& table, const std::string& label, std::vector<MetricRow> rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    MetricRow& row = rows[i];
    table.add_row({i == 0 ? label : std::string(), std::move(row.metric), std::move(row.before),
                   "->", std::move(row.after), std::move(row.change)});
  }
}

// Rows for a value present on one side only: "-" on the other, and "new"/"gone" once.
template <typename T, typename Format>
std::vector<MetricRow> one_sided(const std::vector<std::string>& metrics,
                                 const std::optional<T>& before, const std::optional<T>& after,
                                 Format&& format) {
  std::vector<std::string> values = format(before ? *before : *after);
  std::vector<MetricRow> rows;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    std::string missing(kMissing);
    rows.push_back({metrics[i], before ? values[i] : missing, before ? missing : values[i],
                    i == 0 ? (before ? "gone" : "new") : ""});
  }
  return rows;
}

void render_ops(std::ostream& out, const Diff& d) {
  out << "\nper op, all rings\n";
  if (d.ops.empty()) {
    out << "  no requests in either run\n";
    return;
  }
  TextTable table({Align::Left, Align::Left, Align::Right, Align::Left, Align::Right, Align::Right},
                  "  ");
  table.add_row({"op", "", "before", "", "after", "change"});
  for (const OpDiff& row : d.ops) {
    std::vector<std::string> metrics{"reqs"};
    if (d.windows_differ) metrics.push_back("req/s");
    for (const char* m : {"p50", "p99", "punted", "errors"}) metrics.push_back(m);

    auto values = [&](const BaselineOp& op, uint64_t wall_ns) {
      std::vector<std::string> v{format_count(op.submitted)};
      if (d.windows_differ) v.push_back(format_rate(per_second(op.submitted, wall_ns)));
      v.push_back(format_duration(op.p50_ns));
      v.push_back(format_duration(op.p99_ns));
      v.push_back(format_percent(op.punt_pct()));
      v.push_back(format_count(op.errors));
      return v;
    };
    if (!row.before || !row.after) {
      uint64_t wall_ns = row.before ? d.before.wall_ns : d.after.wall_ns;
      add_block(table, row.op,
                one_sided(metrics, row.before, row.after,
                          [&](const BaselineOp& op) { return values(op, wall_ns); }));
      continue;
    }
    const BaselineOp& b = *row.before;
    const BaselineOp& a = *row.after;
    std::vector<std::string> vb = values(b, d.before.wall_ns);
    std::vector<std::string> va = values(a, d.after.wall_ns);
    std::vector<std::string> changes{change_pct(relative_change_pct(
        static_cast<double>(b.submitted), static_cast<double>(a.submitted)))};
    if (d.windows_differ) {
      std::optional<double> rb = per_second(b.submitted, d.before.wall_ns);
      std::optional<double> ra = per_second(a.submitted, d.after.wall_ns);
      changes.push_back(rb && ra ? change_pct(relative_change_pct(*rb, *ra)) : "n/a");
    }
    changes.push_back(change_pct(
        relative_change_pct(static_cast<double>(b.p50_ns), static_cast<double>(a.p50_ns))));
    changes.push_back(change_pct(
        relative_change_pct(static_cast<double>(b.p99_ns), static_cast<double>(a.p99_ns))));
    changes.push_back(change_points(b.punt_pct(), a.punt_pct()));
    changes.push_back(change_count(b.errors, a.errors));

    std::vector<MetricRow> rows;
    for (std::size_t i = 0; i < metrics.size(); ++i)
      rows.push_back({metrics[i], vb[i], va[i], changes[i]});
    add_block(table, row.op, std::move(rows));
  }
  table.write(out);
}

std::string ring_label(const RingDiff& row) {
  const BaselineRing& ring = row.after ? *row.after : *row.before;
  std::string ids;
  if (row.before && row.after && row.before->id != row.after->id) {
    ids = fmt::format("#{} -> #{}", row.before->id, row.after->id);
  } else {
    ids = fmt::format("#{}", ring.id);
  }
  if (ring.catch_all) return "other rings (" + ids + ")";
  // A ring paired by order may know its fd on one side only.
  std::optional<int32_t> fd = row.after && row.after->fd ? row.after->fd
                              : row.before               ? row.before->fd
                                                         : std::nullopt;
  return fmt::format("{} fd={} ({})", ring.comm.empty() ? std::string(kUnknown) : ring.comm,
                     fd ? std::to_string(*fd) : std::string(kUnknown), ids);
}

void render_rings(std::ostream& out, const Diff& d) {
  out << "\nper ring\n";
  if (!d.rings_compared) {
    out << "  not compared: the baseline has no per-ring breakdown\n";
    return;
  }
  if (d.rings.empty()) {
    out << "  no rings in either run\n";
    return;
  }
  TextTable table({Align::Left, Align::Left, Align::Right, Align::Left, Align::Right, Align::Right},
                  "  ");
  table.add_row({"ring", "", "before", "", "after", "change"});
  const std::vector<std::string> metrics{"avg batch", "CQ overflows"};
  auto values = [](const BaselineRing& ring) {
    return std::vector<std::string>{format_batch(ring.avg_batch), format_count(ring.cq_overflows)};
  };
  for (const RingDiff& row : d.rings) {
    if (!row.before || !row.after) {
      add_block(table, ring_label(row), one_sided(metrics, row.before, row.after, values));
      continue;
    }
    const BaselineRing& b = *row.before;
    const BaselineRing& a = *row.after;
    std::string batch_change = b.avg_batch && a.avg_batch
                                   ? change_pct(relative_change_pct(*b.avg_batch, *a.avg_batch))
                                   : "n/a";
    add_block(table, ring_label(row),
              {{metrics[0], format_batch(b.avg_batch), format_batch(a.avg_batch), batch_change},
               {metrics[1], format_count(b.cq_overflows), format_count(a.cq_overflows),
                change_count(b.cq_overflows, a.cq_overflows)}});
  }
  table.write(out);
}

// What a finding concerns, for findings saved without their message.
std::string finding_scope(const BaselineFinding& f) {
  std::string scope = f.op.value_or("");
  if (f.ring) scope += (scope.empty() ? "" : " on ") + fmt::format("ring #{}", *f.ring);
  return scope.empty() ? "(whole run)" : scope;
}

void render_finding_list(std::ostream& out, std::string_view heading, std::string_view sign,
                         const std::vector<BaselineFinding>& findings) {
  if (findings.empty()) return;
  out << heading << '\n';
  for (const BaselineFinding& f : findings) {
    // Messages name their ring and op themselves (src/rules/), like the report's findings.
    std::string lead = fmt::format("  {} [{}] {}  ", sign, f.tag, f.severity);
    write_wrapped(out, lead, std::string(lead.size(), ' '),
                  f.message.empty() ? finding_scope(f) : f.message);
  }
}

void render_findings_diff(std::ostream& out, const Diff& d) {
  out << '\n';
  if (d.appeared.empty() && d.disappeared.empty() && d.severity_changed.empty()) {
    out << "no change in findings\n";
    return;
  }
  render_finding_list(out, "findings appeared", "+", d.appeared);
  render_finding_list(out, "findings disappeared", "-", d.disappeared);
  if (!d.severity_changed.empty()) {
    out << "findings that changed severity\n";
    for (const SeverityChange& c : d.severity_changed) {
      std::string op = c.op ? " " + *c.op : std::string();
      out << fmt::format("  ~ [{}]{}  {} -> {}\n", c.tag, op, c.before, c.after);
    }
  }
}

// --- JSON values


// after - before as a JSON integer, negative when the value fell.
Json signed_delta(uint64_t before, uint64_t after) {
  if (after >= before) return Json(after - before);
  uint64_t fall = before - after;
  if (fall <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return Json(-static_cast<int64_t>(fall));
  return Json(-static_cast<double>(fall));  // beyond int64: only a doctored file gets here
}

Json pct_json(double before, double after) {
  return optional_json(relative_change_pct(before, after));
}

Json op_side_json(const BaselineOp& op, uint64_t wall_ns) {
  return Json{{"submitted", op.submitted},
              {"reqs_per_sec", optional_json(per_second(op.submitted, wall_ns))},
              {"p50_ns", op.p50_ns},
              {"p99_ns", op.p99_ns},
              {"punt_pct", op.punt_pct()},
              {"errors", op.errors}};
}

Json op_change_json(const BaselineOp& b, const BaselineOp& a, const Diff& d) {
  std::optional<double> rb = per_second(b.submitted, d.before.wall_ns);
  std::optional<double> ra = per_second(a.submitted, d.after.wall_ns);
  auto as_double = [](uint64_t n) { return static_cast<double>(n); };
  return Json{
      {"submitted", signed_delta(b.submitted, a.submitted)},
      {"submitted_pct", pct_json(as_double(b.submitted), as_double(a.submitted))},
      {"reqs_per_sec", rb && ra ? Json(*ra - *rb) : Json(nullptr)},
      {"reqs_per_sec_pct", rb && ra ? pct_json(*rb, *ra) : Json(nullptr)},
      {"p50_ns", signed_delta(b.p50_ns, a.p50_ns)},
      {"p50_ns_pct", pct_json(as_double(b.p50_ns), as_double(a.p50_ns))},
      {"p99_ns", signed_delta(b.p99_ns, a.p99_ns)},
      {"p99_ns_pct", pct_json(as_double(b.p99_ns), as_double(a.p99_ns))},
      {"punt_pct", a.punt_pct() - b.punt_pct()},  // percentage points
      {"errors", signed_delta(b.errors, a.errors)}};
}

std::string_view status_of(bool before, bool after) {
  return before && after ? "matched" : before ? "removed" : "added";
}

Json ops_json(const Diff& d) {
  Json out = Json::array();
  for (const OpDiff& row : d.ops) {
    out.push_back(Json{
        {"op", row.op},
        {"opcode", row.opcode},
        {"status", status_of(row.before.has_value(), row.after.has_value())},
        {"before", row.before ? op_side_json(*row.before, d.before.wall_ns) : Json(nullptr)},
        {"after", row.after ? op_side_json(*row.after, d.after.wall_ns) : Json(nullptr)},
        {"change",
         row.before && row.after ? op_change_json(*row.before, *row.after, d) : Json(nullptr)}});
  }
  return out;
}

Json ring_side_json(const BaselineRing& ring) {
  return Json{{"id", ring.id},
              {"fd", ring.fd ? Json(*ring.fd) : Json(nullptr)},
              {"pid", ring.pid},
              {"avg_batch", optional_json(ring.avg_batch)},
              {"submissions", ring.submissions},
              {"cq_overflows", ring.cq_overflows}};
}

Json ring_change_json(const BaselineRing& b, const BaselineRing& a) {
  bool batches = b.avg_batch && a.avg_batch;
  return Json{
      {"avg_batch", batches ? Json(*a.avg_batch - *b.avg_batch) : Json(nullptr)},
      {"avg_batch_pct", batches ? pct_json(*b.avg_batch, *a.avg_batch) : Json(nullptr)},
      {"submissions", signed_delta(b.submissions, a.submissions)},
      {"cq_overflows", signed_delta(b.cq_overflows, a.cq_overflows)}};
}

Json rings_json(const Diff& d) {
  Json out = Json::array();
  for (const RingDiff& row : d.rings) {
    const BaselineRing& ring = row.after ? *row.after : *row.before;
    out.push_back(Json{
        {"comm", ring.comm},
        {"catch_all", ring.catch_all},
        {"status", status_of(row.before.has_value(), row.after.has_value())},
        {"before", row.before ? ring_side_json(*row.before) : Json(nullptr)},
        {"after", row.after ? ring_side_json(*row.after) : Json(nullptr)},
        {"change",
         row.before && row.after ? ring_change_json(*row.before, *row.after) : Json(nullptr)}});
  }
  return out;
}

Json finding_list_json(const std::vector<BaselineFinding>& findings) {
  Json out = Json::array();
  for (const BaselineFinding& f : findings) {
    out.push_back(Json{{"tag", f.tag},
                       {"severity", f.severity},
                       {"ring", f.ring ? Json(*f.ring) : Json(nullptr)},
                       {"op", f.op ? Json(*f.op) : Json(nullptr)},
                       {"message", f.message}});
  }
  return out;
}

}  // namespace

void render_diff_text(std::ostream& out, const Diff& d) {
  std::string source = d.before.source.empty() ? "the baseline" : d.before.source;
  std::string version =
      d.before.tool_version.empty() ? std::string(kUnknown) : d.before.tool_version;
  std::string title = fmt::format("diff against {} (baseline from uringscope {}, {} window)",
                                  source, version, format_duration(d.before.wall_ns));
  out << title << '\n' << std::string(title.size(), '=') << '\n';
  if (d.windows_differ) {
    out << fmt::format("the windows differ ({} baseline, {} now): compare req/s, not reqs\n",
                       format_duration(d.before.wall_ns), format_duration(d.after.wall_ns));
  }
  render_ops(out, d);
  render_rings(out, d);
  render_files_diff(out, d);
  render_findings_diff(out, d);
}

Json diff_json(const Diff& d) {
  Json severity_changed = Json::array();
  for (const SeverityChange& c : d.severity_changed) {
    severity_changed.push_back(Json{{"tag", c.tag},
                                    {"op", c.op ? Json(*c.op) : Json(nullptr)},
                                    {"before", c.before},
                                    {"after", c.after}});
  }
  return Json{{"baseline",
               Json{{"source", d.before.source},
                    {"tool_version", d.before.tool_version},
                    {"wall_ns", d.before.wall_ns}}},
              {"windows_differ", d.windows_differ},
              {"ops", ops_json(d)},
              {"rings_compared", d.rings_compared},
              {"rings", rings_json(d)},
              {"files", files_diff_json(d)},
              {"findings",
               Json{{"appeared", finding_list_json(d.appeared)},
                    {"disappeared", finding_list_json(d.disappeared)},
                    {"severity_changed", std::move(severity_changed)}}}};
}

}  // namespace uringscope
