/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The boundary at each CQE posted (boundary.bpf.h has the method): the CQ depth and the
 * start of a watch, with the ring's timer (boundary_timer.bpf.h) started for it.
 * Only complete.bpf.c includes this.
 */
#ifndef URINGSCOPE_BOUNDARY_CQE_BPF_H
#define URINGSCOPE_BOUNDARY_CQE_BPF_H

#include "boundary_timer.bpf.h"

/* uringscope's own NOP on its own ring, after attaching (src/loader/cqe_order.cpp). */
#define US_CQE_ORDER_USER_DATA 0x7573632d6f726472ull /* "usc-ordr" */

/* The first CQE of uringscope's own fresh ring: a cached tail of 1 already counts it. */
static __always_inline void cqe_order_learn(struct io_ring_ctx *ctx, __u64 user_data)
{
	__u32 tail;

	if (user_data != US_CQE_ORDER_USER_DATA || !self_tgid || current_tgid() != self_tgid)
		return;
	tail = cq_tail(ctx, false);
	if (tail <= 1)
		cqe_order = tail ? US_CQE_ORDER_IN_TAIL : US_CQE_ORDER_BEFORE_TAIL;
}

/* A CQE posted on ring `ring` at `now`: sample the depth, keep its post time, account
 * what the head passed since the last look. direct: as for cq_head(). */
static __always_inline void boundary_cqe(struct io_ring_ctx *ctx, __u32 ring, bool direct,
					 __u64 now)
{
	struct us_ring_watch *w;
	struct us_ring_stats *rs;
	struct us_cq_posts *posts;
	__u32 tail, head, depth, entries;

	if (!boundary_on || cqe_order == US_CQE_ORDER_UNKNOWN || ring == US_RING_CATCHALL)
		return;
	rs = ring_stats_row(ring);
	w = ring_watch_row(ring);
	posts = cq_posts_row(ring);
	if (!rs || !w || !posts)
		return;
	tail = cq_tail_posted(ctx, direct);
	head = cq_head(ctx, direct);
	depth = tail - head;
	entries = direct ? ctx->cq_entries : BPF_CORE_READ(ctx, cq_entries);
	/* A full CQ: this CQE goes to the overflow list, not to slot tail - 1. */
	if (depth > entries)
		return;
	/* Plain adds and stores: the kernel posts a ring's CQEs one at a time (its cached
	 * tail is not an atomic: the completion lock, or the one task of a lockless ring),
	 * and this event fires inside that, so two CPUs never write here at once. */
	rs->counters[US_RC_CQ_DEPTH_SAMPLES]++;
	rs->counters[US_RC_CQ_DEPTH_SUM] += depth;
	counter_max(&rs->counters[US_RC_CQ_DEPTH_MAX], depth);
	posts->slot[(tail - 1) & (US_CQ_POSTS - 1)] = cq_post_slot(tail - 1, now);
	/* The first CQE posted since attach (or since the row was given to this ring) is
	 * where the accounting starts. */
	if (!w->reap_next)
		__sync_val_compare_and_swap(&w->reap_next, 0, US_REAP_ON | (tail - 1));
	/* Nothing reaped since the last look, the case of every CQE of a batch but the
	 * first: the CQE waits, and the timer, the next submit or io_uring_enter() looks. */
	else if ((__u32)w->reap_next != head)
		reap_look_at(rs, w, posts, head, tail, now);
	tick_start(ring);
}

#endif /* URINGSCOPE_BOUNDARY_CQE_BPF_H */
