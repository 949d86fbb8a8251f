// SPDX-License-Identifier: MIT
// What loading and attaching changed in the probe's answer: features whose program the
// verifier refused or that would not attach are off for the run, the enter feature says
// how io_uring_enter is really counted, and a lost punt program costs the full tier.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

// A program that was left out of the load or would not attach: its feature is off.
struct AttachFailure {
  std::string program;
  std::optional<FeatureId> feature;  // nullopt for a program the table does not know
  std::string error;
};

struct LoadOutcome {
  std::vector<AttachFailure> rejections;  // refused by the verifier, in load order
  std::vector<AttachFailure> detached;    // loaded but did not attach
  std::string enter_detail;               // Tracer::enter_detail(); empty when off
};

// The kernel as this run sees it: `probed` (kernel_info() of the probe) after `outcome`.
KernelInfo kernel_after_load(KernelInfo probed, const LoadOutcome& outcome);

}  // namespace uringscope
