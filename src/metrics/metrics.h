// SPDX-License-Identifier: MIT
// --metrics: the run's numbers as a Prometheus/OpenMetrics scrape target. This header
// only gathers the stage's interfaces for callers that use several; each has its own:
// exposition.h (the renderer), accept.h (content negotiation), listen_address.h (the
// --metrics address), server.h (the endpoint).
#pragma once

#include "metrics/accept.h"
#include "metrics/exposition.h"
#include "metrics/listen_address.h"
#include "metrics/server.h"
