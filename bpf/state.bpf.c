// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/* Definitions of the shared maps and globals declared in state.bpf.h. */
#include "state.bpf.h"
#include "aux_req.bpf.h"
#include "catch.bpf.h"

struct us_ring_ids_map ring_ids SEC(".maps");
struct us_exits_superseded_map exits_superseded SEC(".maps");
struct us_ring_info_map ring_info SEC(".maps");
struct us_ring_stats_map ring_stats SEC(".maps");
struct us_ring_opmap_map ring_opmap SEC(".maps");
struct us_opstats_map opstats SEC(".maps");
struct us_inflight_map inflight SEC(".maps");
struct us_udata_map udata SEC(".maps");
struct us_retired_queue_map retired_rings SEC(".maps");
struct us_free_rows_map free_rings SEC(".maps");
struct us_free_rows_map free_opstats SEC(".maps");
struct us_targets_map targets SEC(".maps");
struct us_followed_exited_map followed_exited SEC(".maps");
struct us_ring_cache_map ring_cache SEC(".maps");
struct us_aux_posts_map aux_posts SEC(".maps");
struct us_errnos_map errnos SEC(".maps");
struct us_threads_map threads SEC(".maps");
struct us_worker_counts_map worker_counts SEC(".maps");
struct us_trace_rb_map trace_rb SEC(".maps");
struct us_trace_stage_map trace_stage SEC(".maps");
struct us_check_rb_map check_rb SEC(".maps");
struct us_ring_watch_map ring_watch SEC(".maps");
struct us_ring_timers_map ring_timers SEC(".maps");
struct us_cq_posts_map cq_posts SEC(".maps");
struct us_file_stats_map file_stats SEC(".maps");
struct us_file_names_map file_names SEC(".maps");
struct us_req_files_map req_files SEC(".maps");
struct us_name_scratch_map name_scratch SEC(".maps");
struct us_filestat_zero_map filestat_zero SEC(".maps");
struct us_catch_marks_map catch_marks SEC(".maps");

const volatile bool filter_tgids = false;
const volatile __u32 max_rings = US_DEFAULT_MAX_RINGS;
const volatile __u32 max_opstats = US_DEFAULT_OPSTAT_SLOTS;
const volatile __u32 inflight_mask = US_DEFAULT_INFLIGHT_BUCKETS - 1;
const volatile __u32 udata_mask = US_DEFAULT_UDATA_SLOTS - 1;
const volatile __s32 req_bit[US_RF__COUNT] = {
	[US_RF_FORCE_ASYNC] = 4,
	[US_RF_CQE_SKIP] = 6,
	[US_RF_ISREG] = -1,
};

const volatile __u64 pidns_ino = 0;
const volatile bool trace_on = false;
const volatile bool check_on = false;
const volatile bool follow_forks = false;
const volatile __u64 ring_exit_fn = 0;
const volatile __u32 self_tgid = 0;
const volatile bool boundary_on = false;
const volatile bool aux_req_on = false;
const volatile bool files_on = false;
const volatile bool catch_on = false;

__u32 ring_rows = 0;
__u32 opstat_rows = 0;
__u32 ring_epoch = 0;
__u32 cqe_order = US_CQE_ORDER_UNKNOWN;
__u64 us_tool[US_TOOL__COUNT] = {};

char LICENSE[] SEC("license") = "Dual BSD/GPL";
