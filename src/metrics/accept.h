// SPDX-License-Identifier: MIT
// HTTP content negotiation between the two exposition formats.
#pragma once

#include <string_view>

#include "metrics/exposition.h"

namespace uringscope {

// Content negotiation from an Accept header value (empty/absent -> Prometheus004). Media
// ranges and q-values are honoured; OpenMetrics wins a tie only when the client named it
// explicitly, and anything that accepts neither falls back to Prometheus004.
ExpositionFormat negotiate_format(std::string_view accept);

}  // namespace uringscope
