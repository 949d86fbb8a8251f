// SPDX-License-Identifier: MIT
// The JSON report's per-file rows: rings[].files[].
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "uringscope/file_stats.h"

namespace uringscope {

// Every row, busiest first (the order the snapshot keeps): JSON has them all, the text
// report only the top ones.
nlohmann::ordered_json files_json(const std::vector<FileStats>& files);

}  // namespace uringscope
