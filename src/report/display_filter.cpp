// SPDX-License-Identifier: MIT
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <string>
#include <string_view>

#include "util/error.h"
#include "uringscope/opcodes.h"
#include "report/views.h"
#include "util/strings.h"

namespace uringscope {
namespace {

// The SQE's opcode field is a u8: no number above this can ever be an opcode.
constexpr uint32_t kMaxOpcode = 255;

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::optional<uint32_t> parse_number(std::string_view s) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value > kMaxOpcode) return std::nullopt;
  return value;
}

// A name as the tables print it, or as the UAPI header spells it, or a number.
std::optional<uint32_t> parse_op(std::string_view text) {
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text.front())))
    return parse_number(text);
  std::string name = upper(text);
  if (name.starts_with("IORING_OP_")) name.erase(0, 10);
  if (name == "OTHER") return kOpcodeOther;
  int known = opcode_from_name(name);
  if (known >= 0) return static_cast<uint32_t>(known);
  // opcode_name() prints "OP_<n>" for opcodes beyond the built-in table.
  if (name.starts_with("OP_") && name.size() > 3 &&
      std::isdigit(static_cast<unsigned char>(name[3])))
    return parse_number(std::string_view(name).substr(3));
  return std::nullopt;
}

std::set<uint32_t> parse_op_list(std::string_view expr, std::string_view list) {
  if (trim(list).empty()) throw UsageError("-e: op= needs at least one op name");
  std::set<uint32_t> ops;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = list.find(',', start);
    std::string_view item =
        trim(list.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                : comma - start));
    if (item.empty()) throw UsageError("-e: empty op name in '" + std::string(expr) + "'");
    std::optional<uint32_t> op = parse_op(item);
    if (!op) throw UsageError("-e: unknown op '" + std::string(item) + "' (see --list-ops)");
    ops.insert(*op);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return ops;
}

std::string op_list_text(const std::set<uint32_t>& ops) {
  std::string out;
  for (uint32_t op : ops) {
    if (!out.empty()) out += ',';
    out += opcode_name(op);
  }
  return out;
}

const Ring* find_ring(const Snapshot& snap, uint32_t id) {
  for (const Ring& ring : snap.rings)
    if (ring.id == id) return &ring;
  return nullptr;
}

const OpStats* find_op(const std::vector<OpStats>& ops, uint32_t opcode) {
  for (const OpStats& op : ops)
    if (op.opcode == opcode) return &op;
  return nullptr;
}

// Whether the row of (ring, opcode) passes; a missing row is an op with no numbers,
// which passes op= alone but never punt or error.
bool row_matches(const Snapshot& snap, std::optional<uint32_t> ring, uint32_t opcode,
                 const DisplayFilter& filter) {
  const OpStats* row = nullptr;
  if (ring) {
    if (const Ring* r = find_ring(snap, *ring)) row = find_op(r->ops, opcode);
  } else {
    row = find_op(snap.ops, opcode);
  }
  if (row) return filter.matches(*row);
  OpStats none;
  none.opcode = opcode;
  return filter.matches(none);
}

std::vector<OpStats> keep_matching(const std::vector<OpStats>& ops, const DisplayFilter& filter) {
  std::vector<OpStats> kept;
  std::copy_if(ops.begin(), ops.end(), std::back_inserter(kept),
               [&](const OpStats& op) { return filter.matches(op); });
  return kept;
}

}  // namespace

bool DisplayFilter::matches(const OpStats& op) const {
  if (ops && !ops->contains(op.opcode)) return false;
  if (punt && op.punted == 0) return false;
  // A request rejected before issue (bad SQE) is an error to the user, and the report
  // lists it with the op's errors; its CQE is normally in `errors` too, but not when
  // the CQE went unseen.
  if (error && op.errors == 0 && op.failed == 0) return false;
  return true;
}

bool DisplayFilter::matches(const FileStats& file) const {
  if (ops && !ops->contains(file.opcode)) return false;
  if (punt && file.punted == 0) return false;
  if (error && file.errors == 0) return false;
  return std::all_of(file_globs.begin(), file_globs.end(), [&](const std::string& glob) {
    return fnmatch(glob.c_str(), file.name.c_str(), 0) == 0;
  });
}

DisplayFilter parse_display_filter(const std::vector<std::string>& exprs) {
  DisplayFilter filter;
  std::string first_op_expr;  // for the empty-intersection message
  for (const std::string& raw : exprs) {
    std::string_view expr = trim(raw);
    std::size_t eq = expr.find('=');
    std::string key = upper(trim(expr.substr(0, eq)));
    if (eq != std::string_view::npos && key == "OP") {
      std::set<uint32_t> ops = parse_op_list(expr, expr.substr(eq + 1));
      std::string this_expr = "op=" + op_list_text(ops);
      if (!filter.ops) {
        filter.ops = std::move(ops);
        first_op_expr = this_expr;
        continue;
      }
      // Repeated op= conditions AND like every other condition. An empty intersection
      // would show nothing at all, which is never what was meant: the user most likely
      // expected the repeats to add up.
      std::set<uint32_t> both;
      std::set_intersection(filter.ops->begin(), filter.ops->end(), ops.begin(), ops.end(),
                            std::inserter(both, both.end()));
      if (both.empty())
        throw UsageError("-e: " + first_op_expr + " and " + this_expr +
                         " have no op in common (list several ops as op=A,B)");
      filter.ops = std::move(both);
    } else if (eq != std::string_view::npos && key == "FILE") {
      std::string_view glob = trim(expr.substr(eq + 1));
      if (glob.empty()) throw UsageError("-e: file= needs a pattern");
      filter.file_globs.emplace_back(glob);
    } else if (eq == std::string_view::npos && key == "PUNT") {
      filter.punt = true;
    } else if (eq == std::string_view::npos && key == "ERROR") {
      filter.error = true;
    } else if (eq == std::string_view::npos && key == "ALL") {
      // No condition: what the C releases spell for "show everything".
    } else {
      throw UsageError("-e: unknown filter '" + raw +
                       "': use op=NAME[,NAME], file=GLOB, punt, error or all");
    }
  }
  return filter;
}

std::string display_filter_text(const DisplayFilter& filter) {
  std::string out;
  auto add = [&](const std::string& part) {
    if (!out.empty()) out += ' ';
    out += part;
  };
  if (filter.ops) add("op=" + op_list_text(*filter.ops));
  for (const std::string& glob : filter.file_globs) add("file=" + glob);
  if (filter.punt) add("punt");
  if (filter.error) add("error");
  return out;
}

Snapshot filter_snapshot(const Snapshot& snap, const DisplayFilter& filter) {
  Snapshot out = snap;
  if (filter.empty()) return out;
  for (Ring& ring : out.rings) {
    ring.ops = keep_matching(ring.ops, filter);
    std::vector<FileStats> files;
    std::copy_if(ring.files.begin(), ring.files.end(), std::back_inserter(files),
                 [&](const FileStats& f) { return filter.matches(f); });
    ring.files = std::move(files);
  }
  out.ops = keep_matching(snap.ops, filter);
  std::vector<PendingRequest> kept;
  for (const PendingRequest& r : snap.leak.requests) {
    if (row_matches(snap, r.ring, r.opcode, filter)) kept.push_back(r);
  }
  out.leak.requests = std::move(kept);
  return out;
}

std::vector<Finding> filter_findings(const std::vector<Finding>& findings,
                                     const DisplayFilter& filter, const Snapshot& snap) {
  if (filter.empty()) return findings;
  std::vector<Finding> kept;
  for (const Finding& f : findings) {
    bool keep = f.opcode ? row_matches(snap, f.ring, *f.opcode, filter)
                         : !filter.has_op_condition();
    if (keep) kept.push_back(f);
  }
  return kept;
}

}  // namespace uringscope
