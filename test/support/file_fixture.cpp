// SPDX-License-Identifier: MIT
#include "support/fixtures.h"

namespace uringscope::file_test {

FileStats file_row(std::string name, uint32_t opcode, uint64_t requests, uint64_t punted,
                   uint64_t errors, uint64_t direct) {
  FileStats f;
  f.name = std::move(name);
  f.kind = FileKind::File;
  f.opcode = opcode;
  f.requests = requests;
  f.cqes = requests;
  f.punted = punted;
  f.errors = errors;
  f.direct = direct;
  return f;
}

}  // namespace uringscope::file_test
