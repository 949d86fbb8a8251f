// SPDX-License-Identifier: MIT
#include "report/list_ops.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <string_view>

#include <fmt/format.h>

#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

using Align = TextTable::Align;

std::string_view presence_text(OpPresence p) {
  switch (p) {
    case OpPresence::Yes: return "yes";
    case OpPresence::No: return "no";
    case OpPresence::Unknown: return "?";
  }
  return "?";
}

}  // namespace

std::vector<OpcodeRow> opcode_table(const std::map<uint32_t, std::string>& kernel) {
  const bool from_btf = !kernel.empty();
  std::vector<OpcodeRow> rows;
  for (uint32_t op = 0; op < kBuiltinOpcodes; ++op) {
    OpPresence presence = !from_btf             ? OpPresence::Unknown
                          : kernel.contains(op) ? OpPresence::Yes
                                                : OpPresence::No;
    // The built-in name even where the kernel spells it differently: it is the name
    // the reports print and -e op= accepts.
    rows.push_back({op, opcode_name(op), presence, std::string(opcode_since(op)), true});
  }
  // A kernel newer than the table: its ops under its own names.
  for (const auto& [op, name] : kernel) {
    if (op >= kBuiltinOpcodes) rows.push_back({op, name, OpPresence::Yes, {}, false});
  }
  return rows;
}

bool opcode_table_from_btf(std::span<const OpcodeRow> rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const OpcodeRow& r) { return r.in_kernel != OpPresence::Unknown; });
}

void render_list_ops(std::ostream& out, const std::vector<OpcodeRow>& rows,
                     const std::string& kernel_release, bool from_btf) {
  std::string kernel = kernel_release.empty() ? std::string("this kernel")
                                              : "kernel " + kernel_release;
  std::string title = "io_uring opcodes (IORING_OP_*), " + kernel;
  out << title << '\n' << std::string(title.size(), '=') << '\n';
  if (from_btf) {
    out << "source: the kernel's BTF (enum io_uring_op); \"since\" from the built-in table\n";
  } else {
    // Say why the column is blank, so "?" is not read as "absent".
    out << "source: the built-in table, not the kernel: its BTF has no enum io_uring_op\n"
           "        or could not be read, so the kernel column is unknown (?)\n";
  }
  out << '\n';
  TextTable table({Align::Right, Align::Left, Align::Left, Align::Left}, "  ");
  table.add_row({"#", "op", "kernel", "since"});
  uint64_t present = 0;
  uint64_t newer = 0;
  for (const OpcodeRow& row : rows) {
    if (row.in_kernel == OpPresence::Yes) ++present;
    if (!row.builtin) ++newer;
    table.add_row({std::to_string(row.opcode), row.name, std::string(presence_text(row.in_kernel)),
                   row.since.empty() ? std::string("?") : row.since});
  }
  table.write(out);
  out << '\n';
  if (from_btf) {
    out << format_count(present) << " of " << format_count(rows.size())
        << " opcodes present on this kernel";
    // -e op= knows only the built-in names; these need their number.
    if (newer > 0)
      out << "; " << format_count(newer) << " unknown to uringscope (filter them by number)";
    out << '\n';
  } else {
    out << format_count(rows.size()) << " opcodes in the built-in table\n";
  }
}

nlohmann::ordered_json list_ops_json(const std::vector<OpcodeRow>& rows,
                                     const std::string& kernel_release, bool from_btf) {
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const OpcodeRow& row : rows) {
    nlohmann::ordered_json o;
    o["opcode"] = row.opcode;
    o["name"] = row.name;
    // null, not false: "unknown" must not read as "absent".
    if (row.in_kernel == OpPresence::Unknown) {
      o["in_kernel"] = nullptr;
    } else {
      o["in_kernel"] = row.in_kernel == OpPresence::Yes;
    }
    if (row.since.empty()) {
      o["since"] = nullptr;
    } else {
      o["since"] = row.since;
    }
    o["builtin"] = row.builtin;
    ops.push_back(std::move(o));
  }
  nlohmann::ordered_json doc;
  doc["kernel_release"] = kernel_release;
  doc["source"] = from_btf ? "btf" : "builtin";
  doc["ops"] = std::move(ops);
  return doc;
}

}  // namespace uringscope
