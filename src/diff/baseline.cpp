// SPDX-License-Identifier: MIT
// Reading a saved report back as a Baseline. The file is user input, so nothing is read
// before its presence and type are checked, and every problem becomes one Error line
// that names the file and the field's path as docs/json.md spells it.
#include "diff/baseline.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "util/error.h"
#include "uringscope/opcodes.h"
#include "report/report.h"
#include "util/unique_fd.h"

namespace uringscope {
namespace {

using Json = nlohmann::json;

// Values quoted in messages are cut short: the message is one line, whatever the file.
constexpr std::size_t kQuoteLimit = 40;

std::string quote(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kQuoteLimit) text = text.substr(0, kQuoteLimit) + "...";
  return text;
}

std::string describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    case Json::value_t::number_unsigned: return "an unsigned integer";
    // The parser stores every non-negative integer as unsigned.
    case Json::value_t::number_integer: return "a negative integer";
    case Json::value_t::number_float: return "a floating-point number";
    case Json::value_t::binary: return "binary data";
    case Json::value_t::discarded: break;
  }
  return "no value";
}

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

// Nesting depth of the brackets outside strings, stopping once past `limit`. Run before
// parsing, so malformed text may miscount; the parser rejects that text anyway.
bool nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// nlohmann reports the 1-based offset of the last character it read; line and column
// are counted the way its own messages count them (a newline starts column 0).
std::string position_of(std::string_view text, std::size_t byte) {
  std::string_view read = text.substr(0, std::min(byte, text.size()));
  std::size_t line = 1 + static_cast<std::size_t>(std::count(read.begin(), read.end(), '\n'));
  std::size_t last_newline = read.rfind('\n');
  std::size_t column = last_newline == std::string_view::npos ? byte : byte - (last_newline + 1);
  return fmt::format("line {}, column {}", line, column);
}

// The part of an nlohmann message after its "[json.exception.x.n] " prefix.
std::string without_prefix(const char* what) {
  std::string text = what;
  std::size_t end = text.find("] ");
  if (text.rfind("[json.exception.", 0) == 0 && end != std::string::npos) text.erase(0, end + 2);
  if (text.size() > 2 * kQuoteLimit) text = text.substr(0, 2 * kQuoteLimit) + "...";
  return text;
}

std::string member_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string element_path(const std::string& parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

// Typed access to one parsed document, each accessor checking before it reads.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(source_ + ": " + problem);
  }

  [[noreturn]] void wrong_type(const Json& value, const std::string& path,
                               std::string_view expected) const {
    fail(fmt::format("wrong-typed field {} ({}, expected {})", path, describe(value), expected));
  }

  [[noreturn]] void out_of_range(const Json& value, const std::string& path,
                                 std::string_view expected) const {
    fail(fmt::format("field {} out of range ({}, expected {})", path, quote(value), expected));
  }

  // `object` must be an object (callers get it from object()).
  const Json* find(const Json& object, std::string_view key) const {
    auto it = object.find(std::string(key));
    return it == object.end() ? nullptr : &*it;
  }

  const Json& member(const Json& object, std::string_view key, const std::string& path) const {
    const Json* value = find(object, key);
    if (value == nullptr) fail("missing field " + path);
    return *value;
  }

  const Json& object(const Json& value, const std::string& path) const {
    if (!value.is_object()) wrong_type(value, path, "an object");
    return value;
  }

  const Json& array(const Json& value, const std::string& path) const {
    if (!value.is_array()) wrong_type(value, path, "an array");
    return value;
  }

  std::string string(const Json& value, const std::string& path) const {
    if (!value.is_string()) wrong_type(value, path, "a string");
    return value.get<std::string>();
  }

  uint64_t uint(const Json& value, const std::string& path) const {
    if (value.is_number_unsigned()) return value.get<uint64_t>();
    // A document built in code rather than parsed may hold a non-negative signed value.
    if (value.is_number_integer() && value.get<int64_t>() >= 0)
      return static_cast<uint64_t>(value.get<int64_t>());
    wrong_type(value, path, "an unsigned integer");
  }

  uint32_t uint32(const Json& value, const std::string& path) const {
    uint64_t n = uint(value, path);
    if (n > std::numeric_limits<uint32_t>::max())
      out_of_range(value, path, fmt::format("at most {}", std::numeric_limits<uint32_t>::max()));
    return static_cast<uint32_t>(n);
  }

  double non_negative(const Json& value, const std::string& path) const {
    if (!value.is_number()) wrong_type(value, path, "a number");
    double x = value.get<double>();
    // The parser refuses non-finite numbers; the check keeps this true for any document.
    if (!(x >= 0.0) || x > std::numeric_limits<double>::max())
      out_of_range(value, path, "a finite number >= 0");
    return x;
  }

  // Named members of an object, each checked.
  uint64_t uint_at(const Json& object, std::string_view key, const std::string& parent) const {
    std::string path = member_path(parent, key);
    return uint(member(object, key, path), path);
  }
  uint32_t uint32_at(const Json& object, std::string_view key, const std::string& parent) const {
    std::string path = member_path(parent, key);
    return uint32(member(object, key, path), path);
  }
  std::string string_at(const Json& object, std::string_view key, const std::string& parent) const {
    std::string path = member_path(parent, key);
    return string(member(object, key, path), path);
  }

 private:
  const std::string& source_;
};

BaselineOp read_op(const Reader& r, const Json& value, const std::string& path) {
  const Json& op = r.object(value, path);
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

std::optional<int32_t> read_fd(const Reader& r, const Json& ring, const std::string& parent) {
  const Json* fd = r.find(ring, "fd");
  // Unknown is null; a negative number (what -1 for "unknown" would look like) is too.
  if (fd == nullptr || fd->is_null()) return std::nullopt;
  std::string path = member_path(parent, "fd");
  if (fd->is_number_integer() && !fd->is_number_unsigned() && fd->get<int64_t>() < 0)
    return std::nullopt;
  uint64_t n = r.uint(*fd, path);
  if (n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    r.out_of_range(*fd, path, fmt::format("at most {}", std::numeric_limits<int32_t>::max()));
  return static_cast<int32_t>(n);
}

BaselineRing read_ring(const Reader& r, const Json& value, const std::string& path) {
  const Json& ring = r.object(value, path);
  BaselineRing out;
  out.id = r.uint32_at(ring, "id", path);
  out.fd = read_fd(r, ring, path);
  out.pid = r.uint32_at(ring, "pid", path);
  out.comm = r.string_at(ring, "comm", path);
  if (const Json* source = r.find(ring, "source"))
    out.catch_all = r.string(*source, member_path(path, "source")) ==
                    ring_source_name(RingSource::CatchAll);

  std::string counters_path = member_path(path, "counters");
  const Json& counters = r.object(r.member(ring, "counters", counters_path), counters_path);
  out.submissions = r.uint_at(counters, "submissions", counters_path);
  out.cq_overflows = r.uint_at(counters, "cq_overflows", counters_path);

  if (const Json* batch = r.find(ring, "avg_batch")) {
    out.avg_batch = r.non_negative(*batch, member_path(path, "avg_batch"));
  } else if (const Json* calls = r.find(counters, "enter_submit_calls")) {
    // Reports from before avg_batch: the same quotient Ring::avg_batch() takes.
    uint64_t n = r.uint(*calls, member_path(counters_path, "enter_submit_calls"));
    out.avg_batch = n ? static_cast<double>(out.submissions) / static_cast<double>(n) : 0.0;
  }
  return out;
}

BaselineFinding read_finding(const Reader& r, const Json& value, const std::string& path) {
  const Json& finding = r.object(value, path);
  BaselineFinding out;
  out.tag = r.string_at(finding, "tag", path);
  out.severity = r.string_at(finding, "severity", path);
  if (const Json* ring = r.find(finding, "ring"); ring && !ring->is_null())
    out.ring = r.uint32(*ring, member_path(path, "ring"));
  if (const Json* op = r.find(finding, "op"); op && !op->is_null())
    out.op = r.string(*op, member_path(path, "op"));
  if (const Json* message = r.find(finding, "message"))
    out.message = r.string(*message, member_path(path, "message"));
  return out;
}

Baseline read_report(const Reader& r, const Json& doc, const std::string& source) {
  if (!doc.is_object())
    r.fail(fmt::format("not a uringscope report (top level is {}, expected an object)",
                       describe(doc)));
  const Json* tool = r.find(doc, "tool");
  if (tool == nullptr) r.fail(R"(not a uringscope report (no "tool": "uringscope"))");
  if (!tool->is_string() || tool->get<std::string>() != "uringscope")
    r.fail(fmt::format(R"(not a uringscope report ("tool": {}))", quote(*tool)));

  const Json& schema = r.member(doc, "schema", "schema");
  if (!schema.is_number_integer()) r.wrong_type(schema, "schema", "an integer");
  bool readable = schema.is_number_unsigned() &&
                  schema.get<uint64_t>() == static_cast<uint64_t>(kJsonSchema);
  if (!readable)
    r.fail(fmt::format("schema {}, this uringscope reads schema {}", quote(schema), kJsonSchema));

  Baseline out;
  out.source = source;
  out.tool_version = r.string_at(doc, "tool_version", "");
  out.wall_ns = r.uint_at(doc, "wall_ns", "");

  const Json& ops = r.array(r.member(doc, "ops", "ops"), "ops");
  std::set<uint32_t> opcodes;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string path = element_path("ops", i);
    out.ops.push_back(read_op(r, ops[i], path));
    // Ops are matched by opcode; a second row for one would make the match ambiguous.
    if (!opcodes.insert(out.ops.back().opcode).second)
      r.fail(fmt::format("{} repeats opcode {}", path, out.ops.back().opcode));
  }

  if (const Json* rings = r.find(doc, "rings")) {
    r.array(*rings, "rings");
    for (std::size_t i = 0; i < rings->size(); ++i)
      out.rings.push_back(read_ring(r, (*rings)[i], element_path("rings", i)));
  } else {
    out.has_rings = false;
  }

  const Json& findings = r.array(r.member(doc, "findings", "findings"), "findings");
  for (std::size_t i = 0; i < findings.size(); ++i)
    out.findings.push_back(read_finding(r, findings[i], element_path("findings", i)));
  return out;
}

}  // namespace

double BaselineOp::punt_pct() const {
  // The formula of OpStats::punt_pct(), so both sides of a self-diff agree to the bit.
  return submitted ? 100.0 * static_cast<double>(punted) / static_cast<double>(submitted) : 0.0;
}

Baseline parse_baseline(std::string_view json_text, const std::string& source) {
  Reader r(source);
  if (is_blank(json_text)) r.fail("empty file, not a uringscope report");
  if (nests_deeper_than(json_text, kMaxBaselineDepth))
    r.fail(fmt::format("not a uringscope report (JSON nested deeper than {} levels)",
                       kMaxBaselineDepth));
  Json doc;
  try {
    doc = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& e) {
    r.fail("not JSON (" + position_of(json_text, e.byte) + ")");
  } catch (const Json::exception& e) {
    // Valid grammar the parser still cannot hold, such as 1e400.
    r.fail("unreadable JSON (" + without_prefix(e.what()) + ")");
  }
  try {
    return read_report(r, doc, source);
  } catch (const Error&) {
    throw;
  } catch (const Json::exception& e) {
    // Not reached: every access is checked first. Kept so that a missed check still
    // ends in the one-line error the policy promises, not in std::terminate.
    r.fail("unreadable report (" + without_prefix(e.what()) + ")");
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
  }
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
