/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The ring's BPF timer: the looks the boundary takes when the ring itself is quiet.
 *
 *   CQ  while CQEs posted since attach wait (boundary.bpf.h): which are reaped yet?
 *   SQ  while an SQPOLL ring's poller is off-CPU (boundary_sq.bpf.h): has the program
 *       written SQEs the poller is not there to take?
 *
 * Each look is one tick apart for the first 32 ticks, then 1/US_REAP_TICK_BACKOFF of the
 * age of what it waits for (the oldest CQE waiting, the poller's switch-out), at most
 * US_REAP_TICK_MAX_NS: the resolution stays a small share of what is measured, and a
 * ring left quiet for minutes costs a timer run a second. The timer stops when neither
 * side needs it. A callback must be in the program that sets it, so each program that
 * starts the timer includes this file (complete.bpf.c, threads.bpf.c) and gets its own
 * copy of the same callback.
 */
#ifndef URINGSCOPE_BOUNDARY_TIMER_BPF_H
#define URINGSCOPE_BOUNDARY_TIMER_BPF_H

#include "boundary_sq.bpf.h"

#define US_CLOCK_MONOTONIC 1

/* The wait before the next look for something that began at `since`. */
static __always_inline __u64 tick_after(__u64 since, __u64 now)
{
	__u64 next = now > since ? (now - since) / US_REAP_TICK_BACKOFF : 0;

	if (next < US_REAP_TICK_NS)
		return US_REAP_TICK_NS;
	return next > US_REAP_TICK_MAX_NS ? US_REAP_TICK_MAX_NS : next;
}

static __always_inline __u64 sooner(__u64 a, __u64 b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* Whether a look of the timer is wanted now. */
static __always_inline bool ring_wants_ticks(struct io_ring_ctx *ctx,
					     const struct us_ring_info *info,
					     const struct us_ring_stats *rs,
					     const struct us_ring_watch *w)
{
	return (reap_watching(w) && (__s32)(cq_tail(ctx, false) - (__u32)w->reap_next) > 0) ||
	       ((info->setup_flags & US_SETUP_SQPOLL) && rs->counters[US_RC_SQPOLL_OUT_NS]);
}

/* One look at both sides; the wait before the next one, 0 when none is needed. */
static __always_inline __u64 ring_tick_look(struct io_ring_ctx *ctx, __u32 ring,
					    const struct us_ring_info *info,
					    struct us_ring_stats *rs, struct us_ring_watch *w,
					    __u64 now)
{
	struct us_cq_posts *posts = cq_posts_row(ring);
	__u64 next = 0, out;
	__s64 oldest;

	if (posts && reap_watching(w)) {
		__sync_fetch_and_add(&rs->counters[US_RC_REAP_TICKS], 1);
		if (reap_look_at(rs, w, posts, cq_head(ctx, false), cq_tail(ctx, false), now)) {
			/* Paced by the age of the oldest CQE still waiting. */
			oldest = cq_post_age(posts, (__u32)w->reap_next, now);
			next = tick_after(oldest > 0 ? now - (__u64)oldest : now, now);
		}
	}
	out = rs->counters[US_RC_SQPOLL_OUT_NS];
	if ((info->setup_flags & US_SETUP_SQPOLL) && out) {
		__sync_fetch_and_add(&rs->counters[US_RC_SQ_TICKS], 1);
		sq_look(ctx, rs, w, now, false, false);
		next = sooner(next, tick_after(out, now));
	}
	return next;
}

static int ring_tick(void *map, __u32 *key, struct us_ring_timer *t)
{
	__u32 ring = *key;
	struct us_ring_info *info = bpf_map_lookup_elem(&ring_info, &ring);
	struct us_ring_stats *rs = ring_stats_row(ring);
	struct us_ring_watch *w = ring_watch_row(ring);
	__u64 next;

	if (!info || !rs || !w || !info->ctx) {
		t->state = US_TICK_IDLE;
		return 0;
	}
	next = ring_tick_look((struct io_ring_ctx *)info->ctx, ring, info, rs, w, bpf_ktime_get_ns());
	if (next) {
		bpf_timer_start(&t->timer, next, 0);
		return 0;
	}
	/* A watch or a switch-out that came while this ran saw RUNNING and did not start the
	 * timer. Both sides order their store before reading the state with an atomic, as
	 * this does here, so one of the two sees the other. */
	__sync_val_compare_and_swap(&t->state, US_TICK_RUNNING, US_TICK_IDLE);
	if (ring_wants_ticks((struct io_ring_ctx *)info->ctx, info, rs, w) &&
	    __sync_val_compare_and_swap(&t->state, US_TICK_IDLE, US_TICK_RUNNING) == US_TICK_IDLE)
		bpf_timer_start(&t->timer, US_REAP_TICK_NS, 0);
	return 0;
}

static __always_inline void tick_start(__u32 ring)
{
	struct us_ring_timer *t = bpf_map_lookup_elem(&ring_timers, &ring);

	if (!t || t->state == US_TICK_RUNNING)
		return;
	if (t->state == US_TICK_UNINIT) {
		/* -EBUSY: another CPU initialised it first, which is as good. */
		bpf_timer_init(&t->timer, &ring_timers, US_CLOCK_MONOTONIC);
		if (bpf_timer_set_callback(&t->timer, ring_tick))
			return;
	}
	t->state = US_TICK_RUNNING;
	if (bpf_timer_start(&t->timer, US_REAP_TICK_NS, 0))
		t->state = US_TICK_IDLE;
}

#endif /* URINGSCOPE_BOUNDARY_TIMER_BPF_H */
