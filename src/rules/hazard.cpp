// SPDX-License-Identifier: MIT
// HAZARD, HAZARD-BUFREG, HAZARD-UAF (--check): memory a request targets changed under it
// while it was in flight. Each is CRIT: the kernel reads or writes the memory at an
// unknown moment, so the data is corrupt without any error to show for it.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rules/rule_kit.h"
#include "util/format.h"
#include "uringscope/opcodes.h"

namespace uringscope::rules {

namespace {

// "ring #0 READ user_data 0x1 (fixed buffer 3)"
std::string request_label(const HazardRequest& r) {
  std::string label = fmt::format("ring #{} {} user_data {}", r.ring, opcode_name(r.opcode),
                                  format_hex(r.user_data));
  if (r.fixed) label += fmt::format(" (fixed buffer {})", r.index);
  if (!r.file.empty()) label += fmt::format(" on {}", r.file);
  return label;
}

std::string range_text(uint64_t addr, uint64_t len) {
  return fmt::format("[{}, +{})", format_hex(addr), format_count(len));
}

std::vector<Evidence> request_evidence(const std::string& who, const HazardRequest& r) {
  std::vector<Evidence> out = {
      count_evidence(who + "_ring", r.ring), text_evidence(who + "_op", std::string(opcode_name(r.opcode))),
      text_evidence(who + "_user_data", format_hex(r.user_data)),
      text_evidence(who + "_range", range_text(r.addr, r.len)),
      count_evidence(who + "_submit_ns", r.submit_ns)};
  if (!r.file.empty()) out.push_back(text_evidence(who + "_file", r.file));
  return out;
}

// "2 overlaps were found; the first: ..." and the first record's evidence.
Finding hazard_finding(const char* tag, uint64_t count, const Hazard& h, std::string what,
                       std::string suggestion) {
  std::vector<Evidence> evidence = {count_evidence("count", count)};
  for (Evidence& e : request_evidence("first", h.first)) evidence.push_back(std::move(e));
  if (h.second)
    for (Evidence& e : request_evidence("second", *h.second)) evidence.push_back(std::move(e));
  evidence.push_back(text_evidence("range", range_text(h.addr, h.len)));
  evidence.push_back(count_evidence("at_ns", h.at_ns));
  if (h.first.fixed) evidence.push_back(count_evidence("buffer_index", h.first.index));
  if (!h.call.empty()) evidence.push_back(text_evidence("call", h.call));
  return Finding{.tag = tag,
                 .severity = Severity::Crit,
                 .ring = h.first.ring,
                 .opcode = h.first.opcode,
                 .message = fmt::format("{} (pid {}){}", std::move(what), h.pid,
                                        count > 1 ? fmt::format("; {} in all, the JSON report's "
                                                                "hazards.records lists them",
                                                                format_count(count))
                                                  : std::string()) + ".",
                 .suggestion = std::move(suggestion),
                 .evidence = std::move(evidence)};
}

Finding overlap_finding(const HazardInfo& info, const Hazard& h) {
  const HazardRequest& a = h.first;
  const HazardRequest& b = *h.second;
  const char* how = a.into && b.into ? "both write into it" : "one reads what the other writes";
  return hazard_finding(
      kTagHazard, info.overlaps, h,
      fmt::format("{} and {} targeted overlapping memory while both were in flight: {} bytes at "
                  "{} ({}); the second was submitted {} after the first, so the bytes end up "
                  "as whichever the kernel wrote last",
                  request_label(a), request_label(b), format_count(h.len), format_hex(h.addr), how,
                  format_duration(b.submit_ns > a.submit_ns ? b.submit_ns - a.submit_ns : 0)),
      "Give each in-flight request its own buffer, or submit the second only after the first "
      "one's CQE (IOSQE_IO_LINK orders them in the kernel). A buffer is the kernel's from "
      "submit until its request's last CQE.");
}

Finding bufreg_finding(const HazardInfo& info, const Hazard& h) {
  return hazard_finding(
      kTagHazardBufreg, info.bufreg, h,
      fmt::format("{} {} while {} was in flight on it, {} after its submit", h.call,
                  h.call == "IORING_UNREGISTER_BUFFERS" ? "dropped the ring's registered buffers"
                                                        : "replaced a registered buffer",
                  request_label(h.first),
                  format_duration(h.at_ns > h.first.submit_ns ? h.at_ns - h.first.submit_ns : 0)),
      "Unregister or update registered buffers only when no request that uses them is in "
      "flight: wait for their CQEs, or cancel them first (io_uring_prep_cancel64()).");
}

Finding unmap_finding(const HazardInfo& info, const Hazard& h) {
  return hazard_finding(
      kTagHazardUaf, info.unmap, h,
      fmt::format("{} dropped {} bytes at {} that {} was still targeting, {} after its submit: "
                  "the request then fails with -EFAULT, or lands in whatever is mapped there next",
                  h.call, format_count(h.len), format_hex(h.addr), request_label(h.first),
                  format_duration(h.at_ns > h.first.submit_ns ? h.at_ns - h.first.submit_ns : 0)),
      "Free or unmap a buffer only after the last CQE of every request that uses it; when "
      "tearing down, cancel in-flight requests and reap their CQEs first "
      "(io_uring_prep_cancel_fd() with IORING_ASYNC_CANCEL_ALL).");
}

}  // namespace

// One CRIT finding per kind, naming its first hazard; hazards.records has them all.
void rule_hazard(const Snapshot& snapshot, std::vector<Finding>& out) {
  const HazardInfo& info = snapshot.hazards;
  const Hazard* first[3] = {nullptr, nullptr, nullptr};
  for (const Hazard& h : info.records) {
    const auto kind = static_cast<std::size_t>(h.kind);
    if (!first[kind]) first[kind] = &h;
  }
  if (first[0] && first[0]->second) out.push_back(overlap_finding(info, *first[0]));
  if (first[1]) out.push_back(bufreg_finding(info, *first[1]));
  if (first[2]) out.push_back(unmap_finding(info, *first[2]));
}

}  // namespace uringscope::rules
