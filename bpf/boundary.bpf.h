/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The end-to-end boundary from the CQ ring's own indices, for any program (liburing or
 * not, inlined or not): the kernel's cached tail says where each CQE is posted, the
 * head the program writes says which it has reaped. Both are read wherever a program of
 * ours already runs for the ring:
 *
 *   CQ depth    at each CQE posted: CQEs ready and not yet reaped, this one included
 *   reap lag    one CQE at a time is watched, from its post until the head is seen past
 *               it, at the ring's next CQE, submit or io_uring_enter() call, or on a BPF
 *               timer every US_REAP_TICK_NS while nothing else comes. The lag is an upper
 *               bound; the gap since the last sighting of it unreaped is how much earlier
 *               the reap could have been, summed and maximised beside it, and the lag
 *               less that gap (the time it was certainly still unreaped) is kept as a
 *               histogram of lower bounds: REAP-LAG is judged on those, so that a look
 *               that came late (a loaded machine, a timer run late) cannot make one.
 *
 * Watching one CQE at a time keeps the cost flat (one compare per event when none is
 * watched, one head read when one is) and samples the CQEs of a busy ring, not all of
 * them.
 */
#ifndef URINGSCOPE_BOUNDARY_BPF_H
#define URINGSCOPE_BOUNDARY_BPF_H

#include "tables.bpf.h"
#include "bits.bpf.h"

#define US_WATCH_SETTING 1 /* a watch's start time while a CPU fills it in */

enum { US_TICK_UNINIT, US_TICK_IDLE, US_TICK_RUNNING };

/* The head is past the watched CQE: its lag goes in the histogram, the watch ends. */
static __always_inline void reap_seen(struct us_ring_stats *rs, struct us_ring_watch *w,
				      __u64 posted, __u64 now)
{
	__u64 lag = now - posted;
	__u64 seen = w->reap_seen_ns;
	__u64 gap = seen > posted && seen < now ? now - seen : lag;

	if (__sync_val_compare_and_swap(&w->reap_posted_ns, posted, 0) != posted)
		return; /* another CPU saw it first */
	__sync_fetch_and_add(&rs->reap_hist[hist_slot(lag)], 1);
	__sync_fetch_and_add(&rs->reap_lo_hist[hist_slot(lag - gap)], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_REAPS], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_REAP_LAG_SUM_NS], lag);
	__sync_fetch_and_add(&rs->counters[US_RC_REAP_GAP_SUM_NS], gap);
	counter_max(&rs->counters[US_RC_REAP_LAG_MAX_NS], lag);
	counter_max(&rs->counters[US_RC_REAP_GAP_MAX_NS], gap);
	counter_max(&rs->counters[US_RC_REAP_LO_MAX_NS], lag - gap);
}

/*
 * The program's CQ head. direct: ctx is a BTF pointer the verifier lets us load through
 * (the 6.13+ complete tracepoint's typed ctx): a plain load, where a probe read is a
 * helper call. Callers pass a constant, so each inlined copy keeps one of the two.
 */
static __always_inline __u32 cq_head(struct io_ring_ctx *ctx, bool direct)
{
	return direct ? ctx->rings->cq.head : BPF_CORE_READ(ctx, rings, cq.head);
}

/* The kernel's cached CQ tail: the CQEs it has posted (read the same two ways). */
static __always_inline __u32 cq_tail(struct io_ring_ctx *ctx, bool direct)
{
	return direct ? ctx->cached_cq_tail : BPF_CORE_READ(ctx, cached_cq_tail);
}

/* The cached tail with the CQE being posted counted: where io_uring_complete fires before
 * the tail moves (cqe_order, learnt after attach), one more than it reads. */
static __always_inline __u32 cq_tail_posted(struct io_ring_ctx *ctx, bool direct)
{
	return cq_tail(ctx, direct) + (cqe_order == US_CQE_ORDER_BEFORE_TAIL);
}

/* CQEs waiting for the program in the CQ ring right after the one being posted, that one
 * included: posted minus reaped. */
static __always_inline __u32 cq_depth(struct io_ring_ctx *ctx, bool direct)
{
	return cq_tail_posted(ctx, direct) - cq_head(ctx, direct);
}

/* Whether the watched CQE is behind `head` at `now`; true when nothing is watched. */
static __always_inline bool reap_look_at(struct us_ring_stats *rs, struct us_ring_watch *w,
					 __u32 head, __u64 now)
{
	__u64 posted = w->reap_posted_ns;

	if (posted <= US_WATCH_SETTING)
		return posted == 0;
	if ((__s32)(head - (__u32)w->reap_pos) > 0) {
		reap_seen(rs, w, posted, now);
		return true;
	}
	w->reap_seen_ns = now;
	return false;
}

/* As reap_look_at(), from a program with no clock read of its own to share. */
static __always_inline bool reap_look(struct io_ring_ctx *ctx, struct us_ring_stats *rs,
				      struct us_ring_watch *w)
{
	__u64 posted = w->reap_posted_ns;

	if (posted <= US_WATCH_SETTING)
		return posted == 0;
	return reap_look_at(rs, w, cq_head(ctx, false), bpf_ktime_get_ns());
}

/* A submit of the ring at `now`: is the watched CQE reaped by now? direct: as for
 * cq_head() (the 6.0+ submit tracepoints' request leads to a typed ctx). */
static __always_inline void boundary_look(struct io_ring_ctx *ctx, __u32 ring, __u64 now,
					  bool direct)
{
	struct us_ring_watch *w;
	struct us_ring_stats *rs;

	if (!boundary_on)
		return;
	w = ring_watch_row(ring);
	if (!w || w->reap_posted_ns <= US_WATCH_SETTING)
		return;
	rs = ring_stats_row(ring);
	if (rs)
		reap_look_at(rs, w, cq_head(ctx, direct), now);
}

#endif /* URINGSCOPE_BOUNDARY_BPF_H */
