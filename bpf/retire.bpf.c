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
#include "boundary.bpf.h"
#include "row_retire.bpf.h"
#include "catch.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* raw_tp, not tp_btf: tp_btf refuses a load of the function-pointer argument, and both
 * arguments are only numbers here. */
US_PROG("raw_tp/workqueue_execute_end", usc_ring_exit, __u64 work, __u64 function)
{
	__u64 ring_ctx;
	__u32 *row;

	if (ring_exit_fn && function != ring_exit_fn)
		return 0;
	ring_ctx = ring_of_exit_work(work);
	/* The ctx was freed before this fired, and a new ring of a target already took its
	 * address: this ring's row went when that one was created, and the row mapped now is
	 * the new ring's, alive. */
	if (!bpf_map_delete_elem(&exits_superseded, &ring_ctx))
		return 0;
	row = bpf_map_lookup_elem(&ring_ids, &ring_ctx);
	if (!row)
		return 0;
	row_retire(*row);
	bpf_map_delete_elem(&ring_ids, &ring_ctx);
	/* Per-CPU caches of this ctx's row are stale from now on. */
	__sync_fetch_and_add(&ring_epoch, 1);
	return 0;
}

/*
 * The start of the same teardown: the ring's program has closed it (or exited) and the
 * ctx and its CQ ring are still whole, so the CQEs it never reaped are counted here
 * (boundary.bpf.h). Loaded with usc_ring_exit when the boundary is on.
 */
SEC("raw_tp/workqueue_execute_start")
int BPF_PROG(usc_ring_teardown, struct work_struct *work)
{
	__u64 ring_ctx, function = 0;
	__u32 *row;

	if (ring_exit_fn) {
		if (bpf_probe_read_kernel(&function, sizeof(function), &work->func) ||
		    function != ring_exit_fn)
			return 0;
	}
	ring_ctx = ring_of_exit_work((__u64)work);
	row = bpf_map_lookup_elem(&ring_ids, &ring_ctx);
	if (!row || *row == US_RING_CATCHALL)
		return 0;
	reap_teardown((struct io_ring_ctx *)ring_ctx, *row, bpf_ktime_get_ns());
	return 0;
}
