// SPDX-License-Identifier: MIT
// The findings tab: the same rules as the final report, run on the last interval (what
// is wrong right now) and on everything since the baseline (what has been wrong).
#include <algorithm>

#include <fmt/format.h>

#include "top/tabs.h"
#include "uringscope/opcodes.h"

namespace uringscope::top {

const Ring* ring_by_id(const Snapshot& snap, uint32_t id) {
  for (const Ring& r : snap.rings)
    if (r.id == id) return &r;
  return nullptr;
}

namespace {

bool has_op(const std::vector<OpStats>& ops, uint32_t opcode) {
  return std::any_of(ops.begin(), ops.end(), [&](const OpStats& op) { return op.opcode == opcode; });
}

// Whether the filters leave what the finding is about: its ring, and its op on that ring.
bool survives(const Finding& f, const Snapshot& filtered) {
  if (f.grouped()) {
    return std::any_of(f.rings.begin(), f.rings.end(),
                       [&](uint32_t id) { return ring_by_id(filtered, id) != nullptr; });
  }
  const Ring* ring = f.ring ? ring_by_id(filtered, *f.ring) : nullptr;
  if (f.ring && !ring) return false;
  if (!f.opcode) return true;
  return has_op(ring ? ring->ops : filtered.ops, *f.opcode);
}

std::string where(const Finding& f) {
  std::string text = f.ring       ? fmt::format("ring #{}", *f.ring)
                     : f.grouped() ? fmt::format("{} rings", f.rings.size())
                                   : std::string();
  if (f.opcode) text += (text.empty() ? "" : " ") + opcode_name(*f.opcode);
  return text.empty() ? "-" : text;
}

std::string first_sentence(const std::string& text) {
  const std::size_t end = text.find(". ");
  return printable(end == std::string::npos ? text : text.substr(0, end + 1));
}

Row finding_row(const Finding& f, std::string_view scope, const Snapshot& filtered) {
  Row row;
  row.id = fmt::format("{}\n{}\n{}\n{}", scope, f.tag, f.ring.value_or(UINT32_MAX),
                       f.opcode.value_or(UINT32_MAX));
  row.cells = {std::string(scope), std::string(severity_name(f.severity)), f.tag, where(f),
               first_sentence(f.message)};
  row.keys = {0, static_cast<double>(f.severity), 0, 0, 0};
  if (f.ring) {
    if (const Ring* ring = ring_by_id(filtered, *f.ring)) row.push = ring_filter(*ring);
  } else if (f.opcode) {
    row.push = op_filter(*f.opcode);
  }
  row.detail = {printable(f.message)};
  for (const Finding& member : f.worst) row.detail.push_back("- " + printable(member.message));
  if (!f.suggestion.empty()) row.detail.push_back("fix: " + printable(f.suggestion));
  row.alert = f.severity != Severity::Info;
  return row;
}

}  // namespace

Table findings_table(const FindingsData& data) {
  Table t;
  t.columns = {{"scope", 8, true},  {"sev", 4, true},           {"tag", 13, true},
               {"where", 14, true}, {"finding", 20, true, false, true}};
  t.default_sort = 1;
  t.empty_note = "no finding, in the last interval or since the baseline";
  for (const Finding& f : data.interval)
    if (survives(f, data.filtered_interval)) t.rows.push_back(finding_row(f, "interval", data.filtered_interval));
  for (const Finding& f : data.total)
    if (survives(f, data.filtered_total)) t.rows.push_back(finding_row(f, "total", data.filtered_total));
  return t;
}

}  // namespace uringscope::top
