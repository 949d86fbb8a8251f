// SPDX-License-Identifier: MIT
#include "uringscope/features.h"

#include <algorithm>

#include "uringscope/snapshot.h"

namespace uringscope {
namespace {

// FeatureId indexes kFeatures: a row out of place would give a feature another's name.
constexpr bool rows_in_id_order() {
  for (std::size_t i = 0; i < kFeatures.size(); ++i) {
    if (static_cast<std::size_t>(kFeatures[i].id) != i) return false;
  }
  return true;
}
static_assert(rows_in_id_order());

}  // namespace

std::string_view tier_name(Tier tier) {
  switch (tier) {
    case Tier::Full:
      return "full";
    case Tier::Legacy:
      return "legacy";
    case Tier::Unsupported:
      return "unsupported";
  }
  return "unsupported";
}

std::string_view tier_name(std::optional<Tier> tier) { return tier ? tier_name(*tier) : ""; }

std::optional<FeatureId> feature_by_name(std::string_view name) {
  for (const FeatureSpec& spec : kFeatures) {
    if (spec.name == name) return spec.id;
  }
  return std::nullopt;
}

std::optional<FeatureId> feature_of_program(std::string_view program) {
  if (is_catcher(program)) program.remove_suffix(kCatcherSuffix.size());
  if (program.empty()) return std::nullopt;
  for (const FeatureSpec& spec : kFeatures) {
    if (std::find(spec.programs.begin(), spec.programs.end(), program) != spec.programs.end())
      return spec.id;
  }
  return std::nullopt;
}

bool feature_on(const std::vector<FeatureState>& features, FeatureId id, IfAbsent if_absent) {
  for (const FeatureState& f : features) {
    if (f.name == feature_name(id)) return f.enabled;
  }
  return if_absent == IfAbsent::On;
}

}  // namespace uringscope
