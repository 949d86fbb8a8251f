// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Reap-lag accounting (boundary.bpf.h has the method): a look at the CQ head, and the
 * loop over the CQEs it saw reaped, as global functions that every program looking at
 * the CQ head calls. The verifier checks each once per program, whatever the caller.
 */
#include "boundary.bpf.h"

/*
 * How long the CQE at `pos`, `lag` old, certainly waited: lag - since_look when the last
 * look (since_look ago, at head look_head) saw it unreaped and it was posted before
 * that look, else 0. Without a branch: a compare against pos narrows the values it is
 * computed from for the rest of the loop, so the verifier would walk each iteration
 * once per earlier outcome.
 */
static __always_inline __u64 reap_lower_bound(__u64 lag, __u64 since_look, __u32 pos,
					      __u32 look_head)
{
	__u64 d = lag - since_look; /* both below 2^63: negative when the look came first */
	__u64 keep = ((~d) >> 63) & ((~(__u64)(__u32)(pos - look_head) >> 31) & 1);

	asm volatile("" : "+r"(keep));
	return d & -keep;
}

/* The lag of the CQE at `pos` from its slot, 0 when the slot does not hold it; *timed:
 * 1 when it does. cq_post_age() without a branch. */
static __always_inline __u64 reap_lag_flat(const struct us_cq_posts *posts, __u32 pos, __u64 now,
					   __u64 *timed)
{
	__u64 v = posts->slot[pos & (US_CQ_POSTS - 1)];

	*timed = nonzero_flat(v) & (1 ^ nonzero_flat((v >> US_CQ_POST_NS_BITS) ^ cq_post_gen(pos)));
	return ((now - v) & US_CQ_POST_NS_MASK) & -*timed;
}

/*
 * The lags of the CQEs at indices [from, from + n), range = from | n << 32, reaped as
 * seen at `now`. The last look that found CQEs unreaped saw those at or past its head
 * still waiting. Called with the claim held (us_reap_look()), so plain adds are exact:
 * nothing else writes these. The loop keeps the verifier's walk short: no branch but
 * the histograms' clamps (what a CQE adds is 0 when its slot no longer holds it, so its
 * sums carry no branch either), and the maxima from the oldest CQE after it (a FIFO's
 * oldest has the longest lag, the longest lower bound and the widest gap).
 */
__noinline int us_reap_account(struct us_ring_stats *rs, struct us_ring_watch *w,
				const struct us_cq_posts *posts, __u64 range, __u64 now)
{
	__u64 look_ns, since_look = (__u64)-1 >> 1, lag, lo, timed, reaps = 0, lag_sum = 0, gap_sum = 0;
	__u32 look_head, i, pos, from = (__u32)range, n = (__u32)(range >> 32);

	/* A global function's pointers may be NULL as far as the verifier knows. */
	if (!rs || !w || !posts)
		return 0;
	look_ns = w->reap_look_ns;
	look_head = (__u32)w->reap_look_head;
	if (look_ns && look_ns <= now)
		since_look = now - look_ns;
	for (i = 0; i < US_CQ_POSTS; i++) {
		if (i >= n)
			break;
		pos = from + i;
		lag = reap_lag_flat(posts, pos, now, &timed);
		lo = reap_lower_bound(lag, since_look, pos, look_head);
		rs->reap_hist[hist_slot_flat(lag)] += timed;
		rs->reap_lo_hist[hist_slot_flat(lo)] += timed;
		reaps += timed;
		lag_sum += lag;
		gap_sum += lag - lo;
	}
	rs->counters[US_RC_REAPS] += reaps;
	rs->counters[US_RC_REAP_UNTIMED] += n - reaps;
	rs->counters[US_RC_REAP_LAG_SUM_NS] += lag_sum;
	rs->counters[US_RC_REAP_GAP_SUM_NS] += gap_sum;
	lag = reap_lag_flat(posts, from, now, &timed);
	if (!n || !timed)
		return 0;
	lo = reap_lower_bound(lag, since_look, from, look_head);
	counter_max(&rs->counters[US_RC_REAP_LAG_MAX_NS], lag);
	counter_max(&rs->counters[US_RC_REAP_GAP_MAX_NS], lag - lo);
	counter_max(&rs->counters[US_RC_REAP_LO_MAX_NS], lo);
	return 0;
}

/*
 * A look at the CQ head at `now`: the CQEs it passed since the last look are reaped.
 * Returns whether CQEs the look found posted are still unreaped (head_tail: the head,
 * and the cached tail above it, as the caller read them). The CQEs passed are claimed
 * by moving reap_next to the head with US_REAP_BUSY set, and released with it clear: a
 * look on another CPU that finds the claim held leaves those CQEs to it.
 */
__noinline int us_reap_look(struct us_ring_stats *rs, struct us_ring_watch *w,
			     const struct us_cq_posts *posts, __u64 head_tail, __u64 now)
{
	__u32 head = (__u32)head_tail, tail = (__u32)(head_tail >> 32), from, n, skipped = 0;
	__u64 next;

	if (!rs || !w || !posts)
		return 0;
	next = w->reap_next;
	from = (__u32)next;
	n = head - from;
	if ((next >> 32) != (US_REAP_ON >> 32))
		return (next & US_REAP_ON) && (__s32)(tail - head) > 0;
	if ((__s32)n > 0) {
		if (__sync_val_compare_and_swap(&w->reap_next, next, US_REAP_BUSY | head) != next)
			return (__s32)(tail - head) > 0;
		/* Only the newest US_CQ_POSTS can still be in their slots. */
		if (n > US_CQ_POSTS) {
			skipped = n - US_CQ_POSTS;
			rs->counters[US_RC_REAP_UNTIMED] += skipped;
		}
		us_reap_account(rs, w, posts, (__u64)(from + skipped) | (__u64)(n - skipped) << 32, now);
		/* An exchange, not a store: it orders the adds above before the release. */
		__sync_lock_test_and_set(&w->reap_next, US_REAP_ON | head);
	}
	if ((__s32)(tail - head) <= 0)
		return 0;
	w->reap_look_head = head;
	w->reap_look_ns = now;
	return 1;
}
