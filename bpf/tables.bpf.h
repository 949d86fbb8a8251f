/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Finding and claiming rows of the shared tables (state.bpf.h): the ring of a ctx, the
 * opstat row of (ring, opcode), an in-flight slot, a (ring, user_data) index slot. These
 * run on every event, so each is a map lookup or two and never a loop.
 */
#ifndef URINGSCOPE_TABLES_BPF_H
#define URINGSCOPE_TABLES_BPF_H

#include "state.bpf.h"
#include "bits.bpf.h"

/*
 * Multiplicative (Fibonacci) hash: io_kiocb addresses are slab-aligned, so their low
 * bits are zero and must not pick the slot on their own.
 */
static __always_inline __u32 hash_u64(__u64 v)
{
	return (__u32)((v * 0x9E3779B97F4A7C15ULL) >> 32);
}

static __always_inline bool req_has_flag(__u64 flags, enum us_req_flag f)
{
	__s32 bit = req_bit[f];

	return bit >= 0 && bit < 64 && (flags >> bit) & 1;
}

/*
 * ring row for a ctx, or US_NO_RING. A one-entry per-CPU cache answers almost every
 * call (a thread keeps using the same ring); ring_epoch invalidates it when a ctx
 * address is reused by a new ring, or a ring's row is retired.
 *
 * A writer changes ring_ids first and bumps the epoch after, so the epoch is read here
 * before the lookup and the entry is cached under that older value: a bump that lands
 * between the two leaves a cache the next call refuses. Cached under the epoch read
 * after the lookup, a retired row stayed cached until the next bump, and the events of
 * the new ring at that address went into a row already given back.
 */
static __always_inline __u32 ring_lookup(__u64 ctx)
{
	struct us_ring_cache *cache;
	__u32 zero = 0, *row, epoch;

	epoch = *(volatile __u32 *)&ring_epoch;
	cache = bpf_map_lookup_elem(&ring_cache, &zero);
	if (cache && cache->ctx == ctx && cache->epoch == epoch)
		return cache->ring;
	row = bpf_map_lookup_elem(&ring_ids, &ctx);
	if (!row)
		return US_NO_RING;
	if (cache) {
		cache->ctx = ctx;
		cache->ring = *row;
		cache->epoch = epoch;
	}
	return *row;
}

/*
 * A row for a new ring or (ring, op) pair: a row given back by a destroyed ring first,
 * else the next one from the cursor. The cursor stops at the limit (racing CPUs
 * overshoot it by one each at most), so it can never wrap into rows that are in use.
 * Returns `limit` when there is none.
 */
static __always_inline __u32 row_claim(void *free_rows, __u32 *cursor, __u32 limit)
{
	__u32 row;

	if (!bpf_map_pop_elem(free_rows, &row) && row && row < limit)
		return row;
	return *cursor + 1 >= limit ? limit : __sync_fetch_and_add(cursor, 1) + 1;
}

struct us_ring_seed {
	__u64 ctx;
	__u32 tgid;
	__s32 fd;
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 setup_flags;
	__u32 source;
	__u32 sq_tid;
	/* The owner when it is not the current task: the fd walk runs in uringscope. */
	struct task_struct *task;
};

/* A row handed to a new ring watches nothing of the ring that had it before (userspace
 * clears the counters it reads; this state it never sees). Its timer, if it runs, finds
 * nothing to look at and stops. */
static __always_inline void ring_watch_clear(__u32 row)
{
	struct us_ring_watch *w = bpf_map_lookup_elem(&ring_watch, &row);
	struct us_cq_posts *posts = bpf_map_lookup_elem(&cq_posts, &row);

	/* A CQE from the overflow list has no slot: it must not find the last ring's. */
	if (posts)
		__builtin_memset(posts, 0, sizeof(*posts));
	if (!w)
		return;
	w->reap_next = 0;
	w->reap_look_ns = 0;
	w->reap_look_head = 0;
	w->lu_next = 0;
	w->sq_seen_ns = 0;
	w->sq_pos = 0;
	w->sq_res_ns = 0;
	w->sq_look_ns = 0;
	w->sq_look_tail = 0;
}

/*
 * Give a new ring a row. `replace` is set by io_uring_create: the ctx address may have
 * belonged to a ring that has since been freed, and the new ring must not inherit its
 * numbers. Comm is taken from the owner's thread group leader.
 */
static __always_inline __u32 ring_add(const struct us_ring_seed *seed, bool replace)
{
	__u64 ctx = seed->ctx;
	struct us_ring_info *info = NULL;
	__u32 *cur, row;

	row = row_claim(&free_rings, &ring_rows, max_rings);
	if (row >= max_rings) {
		tool_count(US_TOOL_RINGS_FULL);
		row = US_RING_CATCHALL;
	} else {
		info = bpf_map_lookup_elem(&ring_info, &row);
	}
	if (info) {
		info->sq_tid = seed->sq_tid;
		info->first_ns = bpf_ktime_get_ns();
		info->tgid = seed->tgid;
		info->fd = seed->fd;
		info->sq_entries = seed->sq_entries;
		info->cq_entries = seed->cq_entries;
		info->setup_flags = seed->setup_flags;
		info->source = seed->source;
		leader_comm(seed->task, info->comm, sizeof(info->comm));
		ring_watch_clear(row);
		info->ctx = ctx;
	}
	if (bpf_map_update_elem(&ring_ids, &ctx, &row, replace ? BPF_ANY : BPF_NOEXIST)) {
		/* Another CPU added this ctx first (or the id map is full): use its row. */
		if (info) {
			info->ctx = 0;
			bpf_map_push_elem(&free_rings, &row, 0);
		}
		cur = bpf_map_lookup_elem(&ring_ids, &ctx);
		return cur ? *cur : US_RING_CATCHALL;
	}
	if (replace)
		__sync_fetch_and_add(&ring_epoch, 1);
	if (seed->sq_tid && row != US_RING_CATCHALL)
		thread_add(seed->sq_tid, seed->tgid, US_THREAD_SQPOLL, row);
	return row;
}

static __always_inline struct us_ring_stats *ring_stats_row(__u32 ring)
{
	return bpf_map_lookup_elem(&ring_stats, &ring);
}

static __always_inline struct us_ring_watch *ring_watch_row(__u32 ring)
{
	return bpf_map_lookup_elem(&ring_watch, &ring);
}

static __always_inline void ring_count(__u32 ring, enum us_ring_counter c, __u64 n)
{
	struct us_ring_stats *rs = ring_stats_row(ring);

	if (rs)
		__sync_fetch_and_add(&rs->counters[c], n);
}

static __always_inline __u32 op_slot(__u32 opcode)
{
	if (opcode >= US_OP_OTHER) {
		tool_count(US_TOOL_OP_OUT_OF_RANGE);
		return US_OP_OTHER;
	}
	return opcode;
}

/* A (ring, opcode) that found the opstat pool full: it counts in the catch-all row. */
#define US_OPSTAT_REFUSED 0xffffffffu

/*
 * opstat row of (ring, opcode), allocated on first use; row 0 when the pool is full.
 * A pair refused once is marked, so that it is counted once (US_TOOL_OPSTATS_FULL) and
 * its later events touch neither the cursor nor the tool counter.
 */
static __always_inline __u32 opstat_for(__u32 ring, __u32 opcode)
{
	__u32 key = ring * US_OP_SLOTS + op_slot(opcode), row, cur;
	struct us_opstat *os;
	__u32 *slot;

	slot = bpf_map_lookup_elem(&ring_opmap, &key);
	if (!slot)
		return US_OPSTAT_CATCHALL;
	cur = *slot;
	if (cur == US_OPSTAT_REFUSED)
		return US_OPSTAT_CATCHALL;
	if (cur)
		return cur;
	row = row_claim(&free_opstats, &opstat_rows, max_opstats);
	if (row >= max_opstats) {
		if (__sync_val_compare_and_swap(slot, 0, US_OPSTAT_REFUSED) == 0)
			tool_count(US_TOOL_OPSTATS_FULL);
		return US_OPSTAT_CATCHALL;
	}
	os = bpf_map_lookup_elem(&opstats, &row);
	if (!os)
		return US_OPSTAT_CATCHALL;
	os->ring = ring;
	os->opcode = op_slot(opcode);
	cur = __sync_val_compare_and_swap(slot, 0, row);
	if (cur) {
		/* Lost the race: the row goes back unused. */
		os->ring = US_NO_RING;
		bpf_map_push_elem(&free_opstats, &row, 0);
		return cur;
	}
	return row;
}

static __always_inline struct us_opstat *opstat_row(__u32 row)
{
	return bpf_map_lookup_elem(&opstats, &row);
}

/*
 * Whether the submit and CQE programs may update the counters of opstat row `row` of
 * ring `ring` with plain adds. A ring's submits run under its uring_lock, and its CQEs
 * are posted one at a time (the kernel's cached CQ tail is a plain counter: the
 * completion lock, or the one task of a lockless ring), with the submit and CQE
 * tracepoints inside those sections. So a submit-side or CQE-side counter of a row that
 * one ring owns never has two writers at once, and the row's other counters (punts,
 * polls: atomic) are other words. Catch-all rows are shared by rings and keep the locked
 * add. Decided from the caller's (ring, row), not from the row: the CQE side must not
 * read the submit side's cache line of it (us_opstat).
 */
static __always_inline bool opstat_serial(__u32 ring, __u32 row)
{
	return ring != US_RING_CATCHALL && row != US_OPSTAT_CATCHALL;
}

/* n more in a submit-side or CQE-side counter; serial: opstat_serial() of the row. */
static __always_inline void opstat_add(struct us_opstat *os, enum us_op_counter c, __u64 n,
				       bool serial)
{
	counter_add(&os->counters[c], n, serial);
}

/* One more in a counter that other paths of the ring may write at the same time (punts,
 * poll arms): always the locked add. */
static __always_inline void opstat_count(struct us_opstat *os, enum us_op_counter c)
{
	opstat_add(os, c, 1, false);
}

static __always_inline struct us_ring_info *ring_info_row(__u32 ring)
{
	return bpf_map_lookup_elem(&ring_info, &ring);
}

/* Largest-so-far update of a counter slot; a lost race under-reports by one sample. */
static __always_inline void counter_max(__u64 *slot, __u64 value)
{
	if (value > *slot)
		*slot = value;
}

static __always_inline void set_where(struct us_inflight *w, __u32 where)
{
	w->state = (w->state & ~US_IF_WHERE_MASK) | (where << US_IF_WHERE_SHIFT);
}

static __always_inline struct us_inflight_bucket *inflight_bucket(__u64 req)
{
	__u32 key = hash_u64(req) & inflight_mask;

	return bpf_map_lookup_elem(&inflight, &key);
}

static __always_inline struct us_inflight *inflight_find(__u64 req)
{
	struct us_inflight_bucket *b = inflight_bucket(req);

	if (!b || !req)
		return NULL;
	if (b->way[0].req == req)
		return &b->way[0];
	if (b->way[1].req == req)
		return &b->way[1];
	return NULL;
}

/*
 * The way a new request goes in: its own (an io_kiocb is reused only after its request
 * ended), an empty one, or one held by a request that will post no CQE
 * (CQE_SKIP_SUCCESS, abandoned at exit). When both ways hold live requests the
 * newcomer is not tracked and NULL comes back: dropping it keeps the latency sample
 * unbiased, while evicting the older request would drop exactly the long latencies the
 * p99 is made of. Ways are claimed with a compare-and-swap, so two CPUs never fill one.
 */
static __always_inline struct us_inflight *inflight_claim(struct us_inflight_bucket *b,
							  __u64 req, __u32 ring)
{
	__u64 old;

	if (b->way[0].req == req)
		return &b->way[0];
	if (b->way[1].req == req)
		return &b->way[1];
	if (!b->way[0].req && !__sync_val_compare_and_swap(&b->way[0].req, 0, req))
		return &b->way[0];
	if (!b->way[1].req && !__sync_val_compare_and_swap(&b->way[1].req, 0, req))
		return &b->way[1];
	old = b->way[0].req;
	if ((b->way[0].state & (US_IF_CQE_SKIP | US_IF_ABANDONED)) &&
	    __sync_val_compare_and_swap(&b->way[0].req, old, req) == old)
		return &b->way[0];
	old = b->way[1].req;
	if ((b->way[1].state & (US_IF_CQE_SKIP | US_IF_ABANDONED)) &&
	    __sync_val_compare_and_swap(&b->way[1].req, old, req) == old)
		return &b->way[1];
	ring_count(ring, US_RC_INFLIGHT_DROPS, 1);
	return NULL;
}

/*
 * Where a zero-copy send waits for its notification. Its io_kiocb is freed after the
 * result CQE and reused at once, and the notification comes from another io_kiocb, so
 * the request moves to a key of its own: (ring, user_data) mixed into an odd number,
 * which no io_kiocb address (8-byte aligned) can be. The entry's ring and user_data
 * are checked on lookup, so a collision of two keys is never a match.
 */
static __always_inline __u64 zc_key(__u32 ring, __u64 user_data)
{
	return ((user_data * 0x9E3779B97F4A7C15ULL) ^ ((__u64)ring << 40)) | 1;
}

static __always_inline struct us_inflight *zc_waiting(__u32 ring, __u64 user_data)
{
	struct us_inflight *w = inflight_find(zc_key(ring, user_data));

	if (!w || !(w->state & US_IF_ZC_WAIT) || w->ring != ring || w->user_data != user_data)
		return NULL;
	return w;
}

/* The even slot of the 2-way set of (ring, user_data); the other way is the next slot. */
static __always_inline __u32 udata_set(__u32 ring, __u64 user_data)
{
	/* user_data is often a small counter or an aligned pointer: mix it before the ring */
	return hash_u64(ring + user_data * 0xff51afd7ed558ccdULL) & udata_mask & ~1u;
}

static __always_inline struct us_udata_slot *udata_way(__u32 set, __u32 way)
{
	__u32 key = set + way;

	return bpf_map_lookup_elem(&udata, &key);
}

/* The tracked request a slot names, if it is still in flight with that key and can
 * still post a CQE (a CQE_SKIP_SUCCESS request's entry stays behind after it ended). */
static __always_inline struct us_inflight *udata_live(const struct us_udata_slot *u)
{
	struct us_inflight *w = inflight_find(u->req);

	if (!w || w->user_data != u->user_data || w->ring != u->ring ||
	    (w->state & (US_IF_CQE_SKIP | US_IF_ABANDONED)))
		return NULL;
	return w;
}

/*
 * The op row that an event about an already-submitted request counts in: the tracked
 * request's own row, or, for a request submitted before attach (not in the in-flight
 * table), the row of its ring and opcode as the request itself says. NULL when the
 * request is on no ring of a target.
 */
static __always_inline struct us_opstat *req_opstat_row(const struct us_inflight *w,
							struct io_kiocb *req, bool direct)
{
	__u32 ring;

	if (w)
		return opstat_row(w->opstat);
	ring = ring_lookup((__u64)req_ctx(req, direct));
	if (ring == US_NO_RING)
		return NULL;
	return opstat_row(opstat_for(ring, req_opcode(req, direct)));
}

#endif /* URINGSCOPE_TABLES_BPF_H */
