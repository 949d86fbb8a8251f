// SPDX-License-Identifier: MIT
// Reading a saved report back as a Baseline. The file is user input, so nothing is read
// before its presence and type are checked (util/json_reader.h), and every problem becomes
// one Error line that names the file and the field's path as docs/json.md spells it.
#include "diff/baseline.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "report/report.h"
#include "uringscope/opcodes.h"
#include "util/error.h"
#include "util/json_reader.h"
#include "util/strings.h"
#include "util/unique_fd.h"

namespace uringscope {
namespace {

// A saved report as read, unordered (report_diff.cpp writes ordered JSON).
using ParsedJson = nlohmann::json;

BaselineOp read_op(const JsonReader& r, const ParsedJson& value, const std::string& path) {
  const ParsedJson& op = r.object(value, path);
  BaselineOp out;
  out.op = r.string_at(op, "op", path);
  out.opcode = r.uint32_at(op, "opcode", path);
  out.submitted = r.uint_at(op, "submitted", path);
  out.punted = r.uint_at(op, "punted", path);
  out.errors = r.uint_at(op, "errors", path);
  out.p50_ns = r.uint_at(op, "p50_ns", path);
  out.p99_ns = r.uint_at(op, "p99_ns", path);
  return out;
}

std::optional<int32_t> read_fd(const JsonReader& r, const ParsedJson& ring, const std::string& parent) {
  const ParsedJson* fd = r.find(ring, "fd");
  // Unknown is null; a negative number (what -1 for "unknown" would look like) is too.
  if (fd == nullptr || fd->is_null()) return std::nullopt;
  std::string path = json_member_path(parent, "fd");
  if (fd->is_number_integer() && !fd->is_number_unsigned() && fd->get<int64_t>() < 0)
    return std::nullopt;
  uint64_t n = r.uint(*fd, path);
  if (n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    r.out_of_range(*fd, path, fmt::format("at most {}", std::numeric_limits<int32_t>::max()));
  return static_cast<int32_t>(n);
}

// Rows of one (name, op) add up, so a file several rings used is one row.
void add_file(std::vector<BaselineFile>& files, BaselineFile file) {
  auto same = std::find_if(files.begin(), files.end(), [&](const BaselineFile& f) {
    return f.name == file.name && f.op == file.op;
  });
  if (same == files.end()) {
    files.push_back(std::move(file));
    return;
  }
  same->requests += file.requests;
  same->bytes += file.bytes;
  same->punted += file.punted;
  same->errors += file.errors;
  same->latency += file.latency;
}

void sort_files(std::vector<BaselineFile>& files) {
  std::sort(files.begin(), files.end(), [](const BaselineFile& a, const BaselineFile& b) {
    return std::tie(a.name, a.op) < std::tie(b.name, b.op);
  });
}

BaselineFile read_file(const JsonReader& r, const ParsedJson& value, const std::string& path) {
  const ParsedJson& file = r.object(value, path);
  BaselineFile out;
  out.name = r.string_at(file, "name", path);
  out.op = r.string_at(file, "op", path);
  out.requests = r.uint_at(file, "requests", path);
  out.bytes = r.uint_at(file, "bytes", path);
  out.punted = r.uint_at(file, "punted", path);
  out.errors = r.uint_at(file, "errors", path);
  out.latency.max_ns = r.uint_at(file, "max_ns", path);
  const std::string hist_path = json_member_path(path, "log2_hist");
  const ParsedJson& hist = r.array(r.member(file, "log2_hist", hist_path), hist_path);
  if (hist.size() > kHistBuckets)
    r.fail(fmt::format("{} has {} buckets, at most {}", hist_path, hist.size(), kHistBuckets));
  for (std::size_t i = 0; i < hist.size(); ++i)
    out.latency.buckets[i] = r.uint(hist[i], json_element_path(hist_path, i));
  return out;
}

BaselineRing read_ring(const JsonReader& r, const ParsedJson& value, const std::string& path,
                       std::vector<BaselineFile>& files) {
  const ParsedJson& ring = r.object(value, path);
  BaselineRing out;
  out.id = r.uint32_at(ring, "id", path);
  out.fd = read_fd(r, ring, path);
  out.pid = r.uint32_at(ring, "pid", path);
  out.comm = r.string_at(ring, "comm", path);
  if (const ParsedJson* source = r.find(ring, "source"))
    out.catch_all = r.string(*source, json_member_path(path, "source")) ==
                    ring_source_name(RingSource::CatchAll);

  std::string counters_path = json_member_path(path, "counters");
  const ParsedJson& counters = r.object(r.member(ring, "counters", counters_path), counters_path);
  out.submissions = r.uint_at(counters, "submissions", counters_path);
  out.cq_overflows = r.uint_at(counters, "cq_overflows", counters_path);

  if (const ParsedJson* batch = r.find(ring, "avg_batch")) {
    out.avg_batch = r.non_negative(*batch, json_member_path(path, "avg_batch"));
  } else if (const ParsedJson* calls = r.find(counters, "enter_submit_calls")) {
    // Reports from before avg_batch: the same quotient Ring::avg_batch() takes.
    uint64_t n = r.uint(*calls, json_member_path(counters_path, "enter_submit_calls"));
    out.avg_batch = n ? static_cast<double>(out.submissions) / static_cast<double>(n) : 0.0;
  }
  if (const ParsedJson* rows = r.find(ring, "files")) {
    const std::string files_path = json_member_path(path, "files");
    r.array(*rows, files_path);
    for (std::size_t i = 0; i < rows->size(); ++i)
      add_file(files, read_file(r, (*rows)[i], json_element_path(files_path, i)));
  }
  return out;
}

BaselineFinding read_finding(const JsonReader& r, const ParsedJson& value, const std::string& path) {
  const ParsedJson& finding = r.object(value, path);
  BaselineFinding out;
  out.tag = r.string_at(finding, "tag", path);
  out.severity = r.string_at(finding, "severity", path);
  if (const ParsedJson* ring = r.find(finding, "ring"); ring && !ring->is_null())
    out.ring = r.uint32(*ring, json_member_path(path, "ring"));
  if (const ParsedJson* op = r.find(finding, "op"); op && !op->is_null())
    out.op = r.string(*op, json_member_path(path, "op"));
  if (const ParsedJson* message = r.find(finding, "message"))
    out.message = r.string(*message, json_member_path(path, "message"));
  return out;
}

Baseline read_report(const JsonReader& r, const ParsedJson& doc, const std::string& source) {
  if (!doc.is_object())
    r.fail(fmt::format("not a uringscope report (top level is {}, expected an object)",
                       json_describe(doc)));
  const ParsedJson* tool = r.find(doc, "tool");
  if (tool == nullptr) r.fail(R"(not a uringscope report (no "tool": "uringscope"))");
  if (!tool->is_string() || tool->get<std::string>() != "uringscope")
    r.fail(fmt::format(R"(not a uringscope report ("tool": {}))", json_quote(*tool)));

  const ParsedJson& schema = r.member(doc, "schema", "schema");
  if (!schema.is_number_integer()) r.wrong_type(schema, "schema", "an integer");
  bool readable = schema.is_number_unsigned() &&
                  schema.get<uint64_t>() == static_cast<uint64_t>(kJsonSchema);
  if (!readable)
    r.fail(fmt::format("schema {}, this uringscope reads schema {}", json_quote(schema), kJsonSchema));

  Baseline out;
  out.source = source;
  out.tool_version = r.string_at(doc, "tool_version", "");
  out.wall_ns = r.uint_at(doc, "wall_ns", "");

  const ParsedJson& ops = r.array(r.member(doc, "ops", "ops"), "ops");
  std::set<uint32_t> opcodes;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string path = json_element_path("ops", i);
    out.ops.push_back(read_op(r, ops[i], path));
    // Ops are matched by opcode; a second row for one would make the match ambiguous.
    if (!opcodes.insert(out.ops.back().opcode).second)
      r.fail(fmt::format("{} repeats opcode {}", path, out.ops.back().opcode));
  }

  if (const ParsedJson* rings = r.find(doc, "rings")) {
    r.array(*rings, "rings");
    for (std::size_t i = 0; i < rings->size(); ++i)
      out.rings.push_back(read_ring(r, (*rings)[i], json_element_path("rings", i), out.files));
    sort_files(out.files);
  } else {
    out.has_rings = false;
  }

  const ParsedJson& findings = r.array(r.member(doc, "findings", "findings"), "findings");
  for (std::size_t i = 0; i < findings.size(); ++i)
    out.findings.push_back(read_finding(r, findings[i], json_element_path("findings", i)));
  return out;
}

}  // namespace

double BaselineFile::punt_pct() const {
  return requests ? 100.0 * static_cast<double>(punted) / static_cast<double>(requests) : 0.0;
}

double BaselineOp::punt_pct() const {
  // The formula of OpStats::punt_pct(), so both sides of a self-diff agree to the bit.
  return submitted ? 100.0 * static_cast<double>(punted) / static_cast<double>(submitted) : 0.0;
}

Baseline parse_baseline(std::string_view json_text, const std::string& source) {
  JsonReader r(source);
  if (trim(json_text).empty()) r.fail("empty file, not a uringscope report");
  if (json_nests_deeper_than(json_text, kMaxBaselineDepth))
    r.fail(fmt::format("not a uringscope report (JSON nested deeper than {} levels)",
                       kMaxBaselineDepth));
  const ParsedJson doc = r.parse(json_text);
  try {
    return read_report(r, doc, source);
  } catch (const Error&) {
    throw;
  } catch (const ParsedJson::exception& e) {
    // Not reached: every access is checked first. Kept so that a missed check still
    // ends in the one-line error the policy promises, not in std::terminate.
    r.fail("unreadable report (" + json_error_text(e.what()) + ")");
  }
}

Baseline load_baseline(const std::string& path) {
  auto cannot_read = [&](int err) {
    return Error(fmt::format("cannot read {}: {}", path, std::strerror(err)));
  };
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw cannot_read(errno);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw cannot_read(errno);  // EISDIR for a directory
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > kMaxBaselineBytes)
      throw Error(fmt::format("{}: larger than {} MiB, not a uringscope report", path,
                              kMaxBaselineBytes >> 20));
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return parse_baseline(text, path);
}

Baseline baseline_of(const Snapshot& snap, const std::vector<Finding>& findings) {
  Baseline out;
  out.tool_version = snap.tool_version;
  out.wall_ns = snap.wall_ns;
  for (const OpStats& op : snap.ops) {
    // quantile_ns exactly as op_json() calls it.
    out.ops.push_back({.op = opcode_name(op.opcode),
                       .opcode = op.opcode,
                       .submitted = op.submitted,
                       .punted = op.punted,
                       .errors = op.errors,
                       .p50_ns = op.latency.quantile_ns(0.5),
                       .p99_ns = op.latency.quantile_ns(0.99)});
  }
  for (const Ring& ring : snap.rings) {
    out.rings.push_back({.id = ring.id,
                         .fd = ring.fd < 0 ? std::nullopt : std::optional<int32_t>(ring.fd),
                         .pid = ring.pid,
                         .comm = ring.comm,
                         .catch_all = ring.source == RingSource::CatchAll,
                         .avg_batch = ring.avg_batch(),
                         .submissions = ring.counters.submissions,
                         .cq_overflows = ring.counters.cq_overflows});
    for (const FileStats& f : ring.files) {
      BaselineFile file{.name = f.name,
                        .op = opcode_name(f.opcode),
                        .requests = f.requests,
                        .bytes = f.bytes,
                        .punted = f.punted,
                        .errors = f.errors,
                        .latency = f.latency};
      file.latency.sum_ns = 0;  // a saved report keeps buckets and max, not the sum
      add_file(out.files, std::move(file));
    }
  }
  sort_files(out.files);
  for (const Finding& f : findings) {
    out.findings.push_back(
        {.tag = f.tag,
         .severity = std::string(severity_name(f.severity)),
         .ring = f.ring,
         .op = f.opcode ? std::optional<std::string>(opcode_name(*f.opcode)) : std::nullopt,
         .message = f.message});
  }
  return out;
}

}  // namespace uringscope
