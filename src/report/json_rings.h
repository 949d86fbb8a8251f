// SPDX-License-Identifier: MIT
// Which rings the JSON report writes one by one. By default the same as the text report
// draws (its --rings busiest, every ring a finding names, the catch-all) and every fold
// of destroyed rings; the others are summed per process in `rings_omitted`, so the
// report's size follows what the reader can use, not how many rings were alive.
// `--rings all` writes every ring.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope {

struct JsonRingChoice {
  std::vector<const Ring*> written;  // in the snapshot's order
  nlohmann::ordered_json omitted;    // the `rings_omitted` object
};

JsonRingChoice choose_json_rings(const Snapshot& snap, const std::vector<Finding>& findings,
                                 std::optional<std::size_t> full_rings);

}  // namespace uringscope
