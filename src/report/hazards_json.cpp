// SPDX-License-Identifier: MIT
#include "report/hazards_json.h"

#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

using Json = nlohmann::ordered_json;

const char* kind_name(HazardKind kind) {
  switch (kind) {
    case HazardKind::Overlap: return "overlap";
    case HazardKind::BufReg: return "bufreg";
    case HazardKind::Unmap: return "unmap";
  }
  return "overlap";
}

Json request_json(const HazardRequest& r) {
  return Json{{"ring", r.ring},
              {"op", opcode_name(r.opcode)},
              {"user_data", r.user_data},
              {"user_data_hex", format_hex(r.user_data)},
              {"addr", r.addr},
              {"len", r.len},
              {"into", r.into},
              {"fixed", r.fixed},
              {"index", r.index},
              {"submit_ns", r.submit_ns},
              {"file", r.file.empty() ? Json(nullptr) : Json(r.file)}};
}

Json hazard_json(const Hazard& h) {
  return Json{{"kind", kind_name(h.kind)},
              {"pid", h.pid},
              {"first", request_json(h.first)},
              {"second", h.second ? request_json(*h.second) : Json(nullptr)},
              {"addr", h.addr},
              {"len", h.len},
              {"at_ns", h.at_ns},
              {"call", h.call.empty() ? Json(nullptr) : Json(h.call)}};
}

}  // namespace

Json hazards_json(const HazardInfo& info) {
  Json records = Json::array();
  for (const Hazard& h : info.records) records.push_back(hazard_json(h));
  return Json{{"available", info.checked},
              {"ranges_checked", info.ranges},
              {"calls_checked", info.calls},
              {"overlap", info.overlaps},
              {"bufreg", info.bufreg},
              {"unmap", info.unmap},
              {"records", std::move(records)}};
}

}  // namespace uringscope
