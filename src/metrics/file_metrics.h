// SPDX-License-Identifier: MIT
// The per-file families (--metrics-files N): a series per (ring, op, file) for the N
// busiest file rows of each ring, so a scrape's cardinality stays bounded however many
// files the program touches.
#pragma once

#include <cstddef>
#include <vector>

#include "metrics/exposition_writer.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// One ring's rows, with the labels openmetrics.cpp gives that ring.
struct FileSeriesRing {
  exposition::Labels labels;
  const std::vector<FileStats>* files = nullptr;
};

// Nothing at all when no ring has a file row (the default: --metrics-files 0).
void render_file_metrics(exposition::Writer& w, const std::vector<FileSeriesRing>& rings);

// The snapshot the metrics endpoint serves: each ring keeps its `per_ring` busiest file
// rows (the snapshot keeps them busiest first), none by default.
Snapshot with_file_series(Snapshot snap, std::size_t per_ring);

}  // namespace uringscope
