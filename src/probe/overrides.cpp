// SPDX-License-Identifier: MIT
#include "probe/overrides.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "util/error.h"

namespace uringscope {
namespace {

void drop_programs_of(KernelSupport& support, FeatureId feature) {
  std::erase_if(support.programs,
                [&](const std::string& p) { return feature_of_program(p) == feature; });
}

// A required feature's off-reason without the loss it ends with: the refusal says why,
// and what is lost is everything.
std::string cause_of(const FeatureState& f, std::string_view loss) {
  std::string_view detail = f.detail;
  if (!loss.empty() && detail.ends_with(loss)) {
    detail.remove_suffix(loss.size());
    while (!detail.empty() && (detail.back() == ' ' || detail.back() == ':' || detail.back() == ';'))
      detail.remove_suffix(1);
  }
  return std::string(detail);
}

}  // namespace

void force_programs(KernelSupport& support, const std::vector<std::string>& programs) {
  for (const std::string& name : programs) {
    if (const auto feature = feature_of_program(name)) drop_programs_of(support, *feature);
    support.programs.push_back(name);
  }
}

void skip_features(KernelSupport& support, const std::vector<std::string>& features) {
  for (const std::string& name : features) {
    const auto id = feature_by_name(name);
    if (id && feature_spec(*id).required)
      throw Error(fmt::format("URINGSCOPE_SKIP_FEATURES: '{}' is required and cannot be skipped", name));
    auto row = std::find_if(support.features.begin(), support.features.end(),
                            [&](const FeatureState& f) { return f.name == name; });
    if (!id || row == support.features.end())
      throw Error(fmt::format("URINGSCOPE_SKIP_FEATURES: no feature '{}' (uringscope --version lists them)", name));
    row->enabled = false;
    row->detail = "skipped (URINGSCOPE_SKIP_FEATURES)";
    drop_programs_of(support, *id);
    if (*id == FeatureId::Catchers) support.catchers = false;
  }
}

void force_features(KernelSupport& support, const std::vector<std::string>& features) {
  for (const std::string& name : features) {
    if (name != feature_name(FeatureId::Catchers))
      throw Error(fmt::format("URINGSCOPE_FORCE_FEATURES: only catchers can be forced on, "
                              "not '{}' (URINGSCOPE_FORCE_PROGRAMS picks a program variant)",
                              name));
    auto row = std::find_if(support.features.begin(), support.features.end(),
                            [&](const FeatureState& f) { return f.name == name; });
    if (row == support.features.end()) continue;  // no kernel BTF: nothing loads anyway
    row->enabled = true;
    row->detail = "forced on (URINGSCOPE_FORCE_FEATURES)";
    support.catchers = true;
  }
}

void check_runnable(const KernelSupport& support, bool follow) {
  if (support.tier == Tier::Unsupported) {
    std::string why;
    for (const FeatureState& f : support.features) {
      const auto id = feature_by_name(f.name);
      if (f.enabled || !id || !feature_spec(*id).required) continue;
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", f.name,
                         cause_of(f, feature_spec(*id).loss));
    }
    if (why.empty()) why = "no usable submit and complete programs";
    throw Error(fmt::format(
        "this kernel is not supported (tier unsupported): {} (uringscope --version shows every feature)",
        why));
  }
  if (follow && !feature_on(support.features, FeatureId::Fork)) {
    throw Error("-f needs the sched_process_fork tracepoint, which this kernel lacks");
  }
}

}  // namespace uringscope
