// SPDX-License-Identifier: MIT
#include "report/visible_copy.h"

#include <string>
#include <variant>

#include "util/untrusted_text.h"

namespace uringscope {

// Every string field is listed, ours included: a kernel release, a feature's reason or a
// finding's sentence may quote a path, and escaping text that needs none changes nothing.
Snapshot visible_copy(const Snapshot& snapshot) {
  Snapshot out = snapshot;
  make_visible(out.tool_version);
  make_visible(out.kernel.release);
  for (FeatureState& f : out.kernel.features) {
    make_visible(f.name);
    make_visible(f.detail);
  }
  for (std::string& arg : out.target.command) make_visible(arg);
  for (Ring& ring : out.rings) {
    make_visible(ring.comm);
    for (FileStats& file : ring.files) make_visible(file.name);
  }
  for (PendingRequest& request : out.leak.requests) make_visible(request.file);
  for (Hazard& hazard : out.hazards.records) {
    make_visible(hazard.call);
    make_visible(hazard.first.file);
    if (hazard.second) make_visible(hazard.second->file);
  }
  for (std::string& library : out.liburing.libraries) make_visible(library);
  make_visible(out.liburing.why_not);
  return out;
}

std::vector<Finding> visible_copy(const std::vector<Finding>& findings) {
  std::vector<Finding> out = findings;
  for (Finding& f : out) {
    make_visible(f.tag);
    make_visible(f.message);
    make_visible(f.suggestion);
    for (Evidence& e : f.evidence) {
      make_visible(e.key);
      if (auto* text = std::get_if<std::string>(&e.value)) make_visible(*text);
    }
    // A group's members are findings too, their messages as untrusted as its own.
    f.worst = visible_copy(f.worst);
  }
  return out;
}

}  // namespace uringscope
