/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * SQ wait on SQPOLL rings: how long an SQE sits in the SQ ring before the poller takes
 * it. The tail the program writes (rings->sq.tail) says which SQEs are there, the
 * kernel's cached head (ctx->cached_sq_head, bumped as the poller takes each SQE, before
 * that SQE's submit event) which are taken. One SQE at a time is watched:
 *
 *   start  at a look whose tail is past the one the last look saw: the oldest SQE that
 *          is new since that look and still waiting is watched from now. It was written
 *          after the last look, so the wait is a lower bound, at most now - last look
 *          short (its resolution, kept with it).
 *   end    at a look whose cached head is past it. The poller's submit event for it is
 *          such a look, so the end is exact.
 *
 * Looks: each submit of the poller, each io_uring_enter(IORING_ENTER_SQ_WAKEUP), the
 * poller's switch-out, and the ring's BPF timer while the poller is off-CPU
 * (boundary_timer.bpf.h). Rings without SQPOLL are not looked at: their SQEs are taken
 * by the very io_uring_enter() that submits them.
 */
#ifndef URINGSCOPE_BOUNDARY_SQ_BPF_H
#define URINGSCOPE_BOUNDARY_SQ_BPF_H

#include "boundary.bpf.h"

/* The watched SQE, first seen at `seen`, is taken: its wait goes in the histogram. */
static __always_inline void sq_taken(struct us_ring_stats *rs, struct us_ring_watch *w,
				     __u64 seen, __u64 now)
{
	__u64 wait = now - seen;
	__u64 res = w->sq_res_ns;

	if (__sync_val_compare_and_swap(&w->sq_seen_ns, seen, 0) != seen)
		return; /* another CPU saw it first */
	__sync_fetch_and_add(&rs->sq_wait_hist[hist_slot(wait)], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_SQ_WAITS], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_SQ_WAIT_SUM_NS], wait);
	__sync_fetch_and_add(&rs->counters[US_RC_SQ_RES_SUM_NS], res);
	counter_max(&rs->counters[US_RC_SQ_WAIT_MAX_NS], wait);
	counter_max(&rs->counters[US_RC_SQ_RES_MAX_NS], res);
}

/* direct: as for cq_head() (boundary.bpf.h). */
static __always_inline void sq_indices(struct io_ring_ctx *ctx, bool direct, __u32 *tail,
				       __u32 *head)
{
	if (direct) {
		*tail = ctx->rings->sq.tail;
		*head = ctx->cached_sq_head;
	} else {
		*tail = BPF_CORE_READ(ctx, rings, sq.tail);
		*head = BPF_CORE_READ(ctx, cached_sq_head);
	}
}

/*
 * A look at an SQPOLL ring's SQ at `now`. pickup: the look of the poller's submit of the
 * SQE at head - 1. An SQE it takes while none is watched, written since the last look,
 * was never seen waiting: it counts as a wait of 0 (US_RC_SQ_TAKEN_UNSEEN, a plain add:
 * only the ring's one SQPOLL thread makes pickup looks), so the histogram's percentiles
 * are over the SQEs sampled, not only over those caught waiting.
 *
 * Two looks racing on two CPUs may leave the last-look time of one beside the tail of
 * the other; the next watch then starts at most that race's width (two stores) early or
 * late, far below the timer's tick.
 */
static __always_inline void sq_look(struct io_ring_ctx *ctx, struct us_ring_stats *rs,
				    struct us_ring_watch *w, __u64 now, bool direct, bool pickup)
{
	__u64 seen = w->sq_seen_ns;
	__u64 last_ns = w->sq_look_ns;
	__u32 last_tail = (__u32)w->sq_look_tail;
	__u32 tail, head, oldest_new;

	sq_indices(ctx, direct, &tail, &head);
	w->sq_look_tail = tail;
	w->sq_look_ns = now;
	if (seen == US_WATCH_SETTING)
		return;
	if (pickup && !seen && last_ns && (__s32)(head - 1 - last_tail) >= 0)
		rs->counters[US_RC_SQ_TAKEN_UNSEEN]++;
	if (seen) {
		if ((__s32)(head - (__u32)w->sq_pos) <= 0)
			return; /* still waiting */
		sq_taken(rs, w, seen, now);
	}
	/* The first look has nothing to compare with; a look older than now raced us. */
	if (!last_ns || last_ns >= now)
		return;
	oldest_new = (__s32)(head - last_tail) > 0 ? head : last_tail;
	if ((__s32)(tail - oldest_new) <= 0)
		return; /* nothing new is waiting */
	if (__sync_val_compare_and_swap(&w->sq_seen_ns, 0, US_WATCH_SETTING))
		return;
	w->sq_pos = oldest_new;
	w->sq_res_ns = now - last_ns;
	w->sq_seen_ns = now;
}

/* A look from a program that has the ring's row but not its flags. */
static __always_inline void sq_look_if_sqpoll(__u32 ring, struct io_ring_ctx *ctx,
					      struct us_ring_stats *rs, __u64 now, bool direct)
{
	struct us_ring_info *info;
	struct us_ring_watch *w;

	if (!boundary_on || ring == US_RING_CATCHALL)
		return;
	info = ring_info_row(ring);
	w = ring_watch_row(ring);
	if (info && w && (info->setup_flags & US_SETUP_SQPOLL))
		sq_look(ctx, rs, w, now, direct, false);
}

#endif /* URINGSCOPE_BOUNDARY_SQ_BPF_H */
