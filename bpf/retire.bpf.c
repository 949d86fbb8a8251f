// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Ring churn: the end of a ring's teardown gives its row back, so that a long run that
 * sees more rings over time than the table holds never runs out of rows.
 *
 * No io_uring tracepoint marks a ring's end. Its teardown runs as a work item,
 * io_ring_exit_work(), queued on ctx->exit_work by io_ring_ctx_wait_and_kill() (every
 * way a ring ends, 5.15-6.18), which waits until every request is done and then frees
 * the ctx. workqueue_execute_end fires after that function returns: from then on no
 * event can name the ctx. The work pointer is only used as a number (the ctx is freed).
 *
 * workqueue_execute_end fires for every work item on the machine, so the function
 * address (from kallsyms, set by userspace) is compared first. Without it, the ctx the
 * work item would belong to is looked up in ring_ids: the memory at a live ring's
 * exit_work is that ring's own exit work, so a hit can only be its teardown.
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* raw_tp, not tp_btf: tp_btf refuses a load of the function-pointer argument, and both
 * arguments are only numbers here. */
US_PROG("raw_tp/workqueue_execute_end", usc_ring_exit, __u64 work, __u64 function)
{
	struct us_retired retired = {};
	__u64 ring_ctx;
	__u32 *row;

	if (ring_exit_fn && function != ring_exit_fn)
		return 0;
	ring_ctx = ring_of_exit_work(work);
	row = bpf_map_lookup_elem(&ring_ids, &ring_ctx);
	if (!row)
		return 0;
	retired.row = *row;
	retired.ns = bpf_ktime_get_ns();
	bpf_map_delete_elem(&ring_ids, &ring_ctx);
	/* Per-CPU caches of this ctx's row are stale from now on. */
	__sync_fetch_and_add(&ring_epoch, 1);
	if (retired.row == US_RING_CATCHALL)
		return 0;
	/* The queue holds every row, so it cannot be full; if it were, the row would only
	 * stay unused (its numbers are still read with the live rows). */
	bpf_map_push_elem(&retired_rings, &retired, 0);
	return 0;
}
