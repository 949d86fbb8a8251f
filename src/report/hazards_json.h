// SPDX-License-Identifier: MIT
// The JSON report's "hazards" object (--check).
#pragma once

#include <nlohmann/json.hpp>

#include "uringscope/snapshot.h"

namespace uringscope {

// Always the counts (zeros when --check was off, and "checked" says which), then the
// records found.
nlohmann::ordered_json hazards_json(const HazardInfo& info);

}  // namespace uringscope
