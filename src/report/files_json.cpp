// SPDX-License-Identifier: MIT
#include "report/files_json.h"

#include "report/boundary_json.h"
#include "uringscope/opcodes.h"

namespace uringscope {

using Json = nlohmann::ordered_json;

nlohmann::ordered_json files_json(const std::vector<FileStats>& files) {
  Json out = Json::array();
  for (const FileStats& f : files) {
    Json row{{"name", f.name},
             {"kind", file_kind_name(f.kind)},
             {"ino", f.ino},
             {"resolved", f.resolved},
             {"op", opcode_name(f.opcode)},
             {"opcode", f.opcode},
             {"requests", f.requests},
             {"cqes", f.cqes},
             {"bytes", f.bytes},
             {"errors", f.errors},
             {"punted", f.punted},
             {"punt_pct", f.punt_pct()},
             {"untracked", f.untracked},
             {"direct", f.direct},
             {"poll_armed", f.poll_armed}};
    add_histogram_fields(row, f.latency);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace uringscope
