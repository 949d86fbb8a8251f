// SPDX-License-Identifier: MIT
// --list-ops: the io_uring opcodes of the running kernel, read from its BTF
// (enum io_uring_op) and merged with the built-in table (opcodes.h), which supplies the
// names the -e filter accepts and the release that introduced each op.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace uringscope {

// Whether the running kernel has an opcode: Unknown when its BTF could not tell.
enum class OpPresence { Yes, No, Unknown };

struct OpcodeRow {
  uint32_t opcode = 0;
  std::string name;        // without IORING_OP_; the kernel's name for ops the built-in
                           // table does not know
  OpPresence in_kernel = OpPresence::Unknown;
  std::string since;       // release that introduced it; empty when not in the built-in table
  bool builtin = true;     // known to the built-in table (so -e op=NAME accepts its name)
};

// One row per opcode of the built-in table and per opcode the kernel has (`kernel`, by
// value: probe/kernel_opcodes.h reads it from BTF), ascending. With an empty `kernel`
// every row is Unknown: the table alone cannot say which ops a (possibly backported)
// kernel has.
std::vector<OpcodeRow> opcode_table(const std::map<uint32_t, std::string>& kernel);

// Whether the rows came from the kernel's BTF (any row's presence is known).
bool opcode_table_from_btf(std::span<const OpcodeRow> rows);

// A title naming the kernel and the source of the list, a column header, one line per
// row, and a closing line with the counts.
void render_list_ops(std::ostream& out, const std::vector<OpcodeRow>& rows,
                     const std::string& kernel_release, bool from_btf);

// For --list-ops --json:
// {"kernel_release": "6.18.44", "source": "btf" | "builtin",
//  "ops": [{"opcode": 0, "name": "NOP", "in_kernel": true | false | null,
//           "since": "5.1" | null, "builtin": true}, ...]}
nlohmann::ordered_json list_ops_json(const std::vector<OpcodeRow>& rows,
                                     const std::string& kernel_release, bool from_btf);

}  // namespace uringscope
