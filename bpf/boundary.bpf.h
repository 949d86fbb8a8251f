/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The end-to-end boundary from the CQ ring's own indices, for any program (liburing or
 * not, inlined or not): the kernel's cached tail says where each CQE is posted, the
 * head the program writes says which it has reaped. Both are read wherever a program of
 * ours already runs for the ring:
 *
 *   CQ depth    at each CQE posted: CQEs ready and not yet reaped, this one included
 *   reap lag    of every CQE: the CQ is a FIFO, so a head seen to move from h0 to h1 has
 *               reaped exactly the CQEs posted at indices h0..h1-1. Each CQE's post time
 *               is kept in its index's slot (ring_watch.bpf.h), and a look at the head
 *               (the ring's next CQE, submit or io_uring_enter() call, or its BPF timer
 *               while nothing else comes) accounts every CQE it passed. The lag is an
 *               upper bound; the gap since the last look that saw the CQE unreaped is
 *               how much earlier the reap could have been, summed and maximised beside
 *               it, and the lag less that gap (the time it was certainly still unreaped)
 *               is kept as a histogram of lower bounds: REAP-LAG is judged on those, so
 *               that a look that came late (a loaded machine, a timer run late) cannot
 *               make one.
 *   untimed     reaped CQEs whose slot a later CQE had taken (more than US_CQ_POSTS
 *               waited at once) or that never had one (posted through the overflow
 *               list): counted, not timed
 *   never       at the ring's teardown (retire.bpf.c), the CQEs still unreaped: counted,
 *               with the oldest one's age then
 *
 * A look claims the CQEs it accounts by moving reap_next with a compare-and-swap, so
 * each CQE is accounted once whichever CPU looks, and only one CPU accounts a ring at a
 * time. CQEs posted before attach are not accounted: reap_next starts at the first CQE
 * posted after it.
 */
#ifndef URINGSCOPE_BOUNDARY_BPF_H
#define URINGSCOPE_BOUNDARY_BPF_H

#include "tables.bpf.h"
#include "bits.bpf.h"

#define US_WATCH_SETTING 1 /* a watch's start time while a CPU fills it in */

enum { US_TICK_UNINIT, US_TICK_IDLE, US_TICK_RUNNING };

_Static_assert((1u << US_CQ_POST_SHIFT) == US_CQ_POSTS, "US_CQ_POST_SHIFT is log2(US_CQ_POSTS)");

static __always_inline struct us_cq_posts *cq_posts_row(__u32 ring)
{
	return bpf_map_lookup_elem(&cq_posts, &ring);
}

/* The tag a slot carries for CQ index `pos`: the index's bits above the slot number,
 * as many as fit above the post time. */
static __always_inline __u64 cq_post_gen(__u32 pos)
{
	return (pos >> US_CQ_POST_SHIFT) & ((1u << (64 - US_CQ_POST_NS_BITS)) - 1);
}

/* What a CQ index's slot holds once its CQE is posted at `now`. */
static __always_inline __u64 cq_post_slot(__u32 pos, __u64 now)
{
	return (cq_post_gen(pos) << US_CQ_POST_NS_BITS) | (now & US_CQ_POST_NS_MASK);
}

/* The post time of the CQE at index `pos` from its slot: how long before `now` it was
 * posted, or -1 when the slot does not hold that CQE. */
static __always_inline __s64 cq_post_age(const struct us_cq_posts *posts, __u32 pos, __u64 now)
{
	__u64 v = posts->slot[pos & (US_CQ_POSTS - 1)];

	if (!v || (v >> US_CQ_POST_NS_BITS) != cq_post_gen(pos))
		return -1;
	return (__s64)((now - v) & US_CQ_POST_NS_MASK);
}

/* Whether anything posted since attach may still wait to be accounted (claimed or not). */
static __always_inline bool reap_watching(const struct us_ring_watch *w)
{
	return w->reap_next & US_REAP_ON;
}

/*
 * A look at the CQ head at `now`: the CQEs it passed since the last look are reaped.
 * Returns whether CQEs the look found posted are still unreaped (`tail`, the cached
 * tail, as the caller read it). reap_account.bpf.c, a global function like the loop it
 * calls: the looks are inlined in the biggest programs (the CQE's), whose own branches
 * the verifier would otherwise walk once more for each of the look's.
 */
extern int us_reap_look(struct us_ring_stats *rs, struct us_ring_watch *w,
			const struct us_cq_posts *posts, __u64 head_tail, __u64 now);

static __always_inline bool reap_look_at(struct us_ring_stats *rs, struct us_ring_watch *w,
					 const struct us_cq_posts *posts, __u32 head, __u32 tail,
					 __u64 now)
{
	return us_reap_look(rs, w, posts, (__u64)head | (__u64)tail << 32, now);
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

/* The cached tail with the CQE being posted counted, in io_uring_complete: where it fires
 * before the tail moves (cqe_order, learnt after attach), one more than it reads. Any
 * other program reads cq_tail(): no CQE is being posted there. */
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

/* As reap_look_at(), from a program with no clock read or index of its own to share. */
static __always_inline bool reap_look(struct io_ring_ctx *ctx, __u32 ring,
				      struct us_ring_stats *rs, struct us_ring_watch *w)
{
	struct us_cq_posts *posts;

	if (!reap_watching(w))
		return false;
	posts = cq_posts_row(ring);
	if (!posts)
		return false;
	return reap_look_at(rs, w, posts, cq_head(ctx, false), cq_tail(ctx, false),
			    bpf_ktime_get_ns());
}

/* A submit of the ring at `now`: which CQEs has it reaped by now? direct: as for
 * cq_head() (the 6.0+ submit tracepoints' request leads to a typed ctx). */
static __always_inline void boundary_look(struct io_ring_ctx *ctx, __u32 ring, __u64 now,
					  bool direct)
{
	struct us_ring_watch *w;
	struct us_ring_stats *rs;
	struct us_cq_posts *posts;
	__u32 head;

	if (!boundary_on)
		return;
	w = ring_watch_row(ring);
	if (!w || !reap_watching(w))
		return;
	head = cq_head(ctx, direct);
	/* Nothing reaped since the last look: the common case of a submit costs no more. */
	if ((__u32)w->reap_next == head)
		return;
	rs = ring_stats_row(ring);
	posts = cq_posts_row(ring);
	if (rs && posts)
		reap_look_at(rs, w, posts, head, cq_tail(ctx, direct), now);
}

/*
 * The ring is being torn down at `now` (retire.bpf.c): its program can reap nothing more.
 * What the head passed is reaped; the CQEs behind it never will be, and their ages now
 * are counted as such. Accounting stops here: CQEs the teardown itself posts (requests
 * it cancels) were never the program's to reap.
 */
static __always_inline void reap_teardown(struct io_ring_ctx *ctx, __u32 ring, __u64 now)
{
	struct us_ring_watch *w = ring_watch_row(ring);
	struct us_ring_stats *rs = ring_stats_row(ring);
	struct us_cq_posts *posts = cq_posts_row(ring);
	__u64 next, age_max = 0;
	__u32 head, tail, from, n, i;
	__s64 age;

	if (!w || !rs || !posts || !reap_watching(w))
		return;
	/* The cached tail: a CQE a request completing beside the teardown posts is in it
	 * or comes later, when the program is gone. */
	tail = cq_tail(ctx, false);
	head = cq_head(ctx, false);
	reap_look_at(rs, w, posts, head, tail, now);
	/* A look on another CPU (the ring's timer) may hold the claim for a moment. */
	for (i = 0; i < US_REAP_TEARDOWN_TRIES; i++) {
		next = w->reap_next;
		if (!(next & US_REAP_ON))
			return;
		if (!(next & US_REAP_CLAIMED) &&
		    __sync_val_compare_and_swap(&w->reap_next, next, US_REAP_OFF) == next)
			break;
	}
	if (i == US_REAP_TEARDOWN_TRIES)
		return;
	from = (__u32)next;
	n = tail - from;
	if ((__s32)n <= 0)
		return;
	/* The oldest is the first whose slot still holds it: a FIFO posts in age order. */
	for (i = 0; i < US_CQ_POSTS; i++) {
		if (i >= n)
			break;
		age = cq_post_age(posts, from + i, now);
		if (age >= 0) {
			age_max = (__u64)age;
			break;
		}
	}
	__sync_fetch_and_add(&rs->counters[US_RC_REAP_NEVER], n);
	counter_max(&rs->counters[US_RC_REAP_NEVER_MAX_NS], age_max);
}

#endif /* URINGSCOPE_BOUNDARY_BPF_H */
