// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Task work: how completions get back to the submitting task.
 *
 *   usc_task_add   io_uring_task_add(req, mask)            6.0+   a poll wakeup queued the
 *                                                                 request's completion as
 *                                                                 task work (waker context)
 *   usc_tw_run     io_uring_task_work_run(tctx, count[, loops])  6.0+ (loops gone in 6.9)
 *   usc_local_tw   io_uring_local_work_run(ctx, count, loops)    6.1+ DEFER_TASKRUN rings
 *
 * On a DEFER_TASKRUN ring queued work runs only when the submitter enters the kernel to
 * wait; the time from the first queued item to the run that takes it is the lag the
 * DEFER-TW finding reports.
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include <bpf/bpf_tracing.h>

US_PROG("tp_btf/io_uring_task_add", usc_task_add, struct io_kiocb *req, int mask)
{
	struct us_inflight *w = inflight_find(tp_arg_bits(ctx, 0));
	struct us_ring_info *info;
	struct us_ring_stats *rs;
	__u32 ring;

	if (w) {
		set_where(w, US_WHERE_TASKWORK);
		ring = w->ring;
	} else {
		ring = ring_lookup((__u64)req->ctx);
		if (ring == US_NO_RING)
			return 0;
	}
	rs = ring_stats_row(ring);
	if (!rs)
		return 0;
	__sync_fetch_and_add(&rs->counters[US_RC_TASK_ADDS], 1);
	info = ring_info_row(ring);
	if (info && (info->setup_flags & US_SETUP_DEFER_TASKRUN))
		__sync_val_compare_and_swap(&rs->counters[US_RC_LOCAL_TW_PENDING_NS], 0,
					    bpf_ktime_get_ns());
	return 0;
}

/* Both prototypes start (tctx, count): one program serves 6.0-6.8 and 6.9+. */
US_PROG("tp_btf/io_uring_task_work_run", usc_tw_run, void *tctx, unsigned int count)
{
	struct io_uring_task *task_ctx = tctx;
	struct us_ring_stats *rs;
	__u32 ring;

	/* The SQPOLL loop reports empty passes on every iteration: drop them first. */
	if (!count || !current_is_target())
		return 0;
	/* Task work belongs to a task, not a ring: charge the ring it used last. */
	ring = ring_lookup((__u64)BPF_CORE_READ(task_ctx, last));
	rs = ring == US_NO_RING ? NULL : ring_stats_row(ring);
	if (!rs)
		return 0;
	__sync_fetch_and_add(&rs->counters[US_RC_TW_RUNS], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_TW_ITEMS], count);
	return 0;
}

US_PROG("tp_btf/io_uring_local_work_run", usc_local_tw,
	void *ring_ctx, int count, unsigned int loops)
{
	__u32 ring = ring_lookup((__u64)ring_ctx);
	struct us_ring_stats *rs;
	__u64 queued;

	if (count <= 0 || ring == US_NO_RING)
		return 0;
	rs = ring_stats_row(ring);
	if (!rs)
		return 0;
	__sync_fetch_and_add(&rs->counters[US_RC_LOCAL_TW_RUNS], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_LOCAL_TW_ITEMS], count);
	queued = __sync_lock_test_and_set(&rs->counters[US_RC_LOCAL_TW_PENDING_NS], 0);
	if (queued)
		counter_max(&rs->counters[US_RC_LOCAL_TW_LAG_MAX_NS], bpf_ktime_get_ns() - queued);
	return 0;
}
