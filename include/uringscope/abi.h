// SPDX-License-Identifier: MIT
// The BPF ABI header, seen from C++: the layouts the BPF side writes are checked here at
// compile time, so a change on one side that the other did not follow fails the build.
#pragma once

#include <linux/types.h>

#include "uringscope.h"

#include <cstddef>

#include "uringscope/histogram.h"

static_assert(sizeof(us_inflight) == 32, "two ways must share one 64-byte bucket");
static_assert(sizeof(us_inflight_bucket) == 64);
static_assert(offsetof(us_ring_stats, reap_lo_hist) == 8 * (US_RC__COUNT + 3 * US_HIST_SLOTS));
static_assert(sizeof(us_ring_stats) % 64 == 0, "rows are whole cache lines");
static_assert(US_HIST_SLOTS == uringscope::kHistBuckets, "log2 slots fill a Histogram");
static_assert(offsetof(us_opstat, counters) == 8);
static_assert(offsetof(us_opstat, hist) == 8 + 8 * US_OC__COUNT);
static_assert(offsetof(us_opstat, counters[US_OC_COMPLETED]) == 128,
              "the CQE side's counters start a line of their own");
static_assert(sizeof(us_opstat) % 64 == 0, "rows are whole cache lines");
static_assert(sizeof(us_ring_info) == 64);
static_assert(offsetof(us_ring_info, comm) == 40);
static_assert(US_OP_OTHER < 256, "opcodes are stored as __u8 in us_inflight");
static_assert(sizeof(us_errno_key) == 8);
static_assert(sizeof(us_thread) == 24);
static_assert(sizeof(us_trace_event) == 72);
static_assert(offsetof(us_trace_batch, ev) == 16);
static_assert((US_TRACE_BATCH & (US_TRACE_BATCH - 1)) == 0, "the BPF side masks the stage index");
static_assert(sizeof(us_check_event) == 64);
static_assert(sizeof(us_retired) == 16);
static_assert(sizeof(us_file_id) == 24);
static_assert(sizeof(us_file_key) == 32, "no padding hashed by the BPF side");
static_assert(sizeof(us_req_file) == 32);
static_assert(sizeof(us_filestat) == 8 * (US_FC__COUNT + US_HIST_SLOTS));
static_assert(offsetof(us_file_name, laddr) == 40);
static_assert(offsetof(us_file_name, path) == 72);
