// SPDX-License-Identifier: MIT
#include "loader/load_outcome.h"

#include <fmt/format.h>

namespace uringscope {
namespace {

void disable_failed(KernelInfo& kernel, const std::vector<AttachFailure>& failures) {
  for (const AttachFailure& failure : failures) {
    if (!failure.feature) continue;
    for (FeatureState& f : kernel.features) {
      if (f.name != feature_name(*failure.feature)) continue;
      f.enabled = false;
      f.detail = fmt::format("{}: {}", failure.program, failure.error);
    }
  }
}

}  // namespace

KernelInfo kernel_after_load(KernelInfo kernel, const LoadOutcome& outcome) {
  disable_failed(kernel, outcome.rejections);
  disable_failed(kernel, outcome.detached);
  // The way io_uring_enter is really counted; a probe detail that already names it (with
  // the reason fentry was refused) says more and stays.
  if (!outcome.enter_detail.empty()) {
    for (FeatureState& f : kernel.features) {
      if (f.name == feature_name(FeatureId::Enter) && f.enabled &&
          !f.detail.starts_with(outcome.enter_detail))
        f.detail = outcome.enter_detail;
    }
  }
  // The tier promised punt attribution; a rejected or detached punt program takes it back.
  if (kernel.tier == Tier::Full && !feature_on(kernel.features, FeatureId::Punt)) kernel.tier = Tier::Legacy;
  return kernel;
}

}  // namespace uringscope
