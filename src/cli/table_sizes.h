// SPDX-License-Identifier: MIT
// URINGSCOPE_TABLE_SIZES: the kernel tables' sizes for tests, so that saturation,
// eviction and row reuse are exercised by a few hundred requests instead of millions.
#pragma once

#include <string_view>

#include "loader/tracer.h"

namespace uringscope {

// "rings=8,opstats=32,inflight=64,udata=64,threads=16" (any subset, in any order) over the
// defaults. Throws Error with a one-line message for an unknown name, a value out of
// range, or an in-flight or user_data size that is not a power of two.
TableSizes table_sizes_from(std::string_view spec);

}  // namespace uringscope
