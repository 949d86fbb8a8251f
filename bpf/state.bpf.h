/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The state every BPF file shares: map and global declarations (defined once, in
 * state.bpf.c; the BPF static linker resolves the externs) and the small inline helpers
 * that hot paths use to find a ring, an opstat row and an in-flight slot.
 */
#ifndef URINGSCOPE_STATE_BPF_H
#define URINGSCOPE_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringscope.h"
#include "compat.bpf.h"

#define US_NO_RING 0xffffffffu
#define US_EAGAIN 11

/* Map types are named so that the extern declarations and the definitions agree. */
struct us_ring_ids_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_MAX_RINGS * 4);
	__type(key, __u64);   /* io_ring_ctx address */
	__type(value, __u32); /* ring row */
};

struct us_ring_info_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(key, __u32);
	__type(value, struct us_ring_info);
};

struct us_ring_stats_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(key, __u32);
	__type(value, struct us_ring_stats);
};

struct us_ring_opmap_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_DEFAULT_MAX_RINGS * US_OP_SLOTS);
	__type(key, __u32);   /* ring * US_OP_SLOTS + opcode */
	__type(value, __u32); /* opstat row, 0 = none yet */
};

struct us_opstats_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, US_DEFAULT_OPSTAT_SLOTS);
	__type(key, __u32);
	__type(value, struct us_opstat);
};

struct us_inflight_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, US_DEFAULT_INFLIGHT_BUCKETS);
	__type(key, __u32);
	__type(value, struct us_inflight_bucket);
};

struct us_udata_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_DEFAULT_UDATA_SLOTS);
	__type(key, __u32);
	__type(value, struct us_udata_slot);
};

/* One word per 64 pids; sized from kernel.pid_max by userspace. */
struct us_targets_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
};

struct us_errnos_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_ERRNO_ENTRIES);
	__type(key, struct us_errno_key);
	__type(value, __u64);
};

/* io threads of the targets, by tid. */
struct us_threads_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_THREAD_ENTRIES);
	__type(key, __u32);
	__type(value, struct us_thread);
};

/* --trace records; a page when tracing is off (programs reference it either way). */
struct us_trace_rb_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct us_ring_cache {
	__u64 ctx;
	__u32 ring;
	__u32 epoch;
};

struct us_ring_cache_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct us_ring_cache);
};

extern struct us_ring_ids_map ring_ids SEC(".maps");
extern struct us_ring_info_map ring_info SEC(".maps");
extern struct us_ring_stats_map ring_stats SEC(".maps");
extern struct us_ring_opmap_map ring_opmap SEC(".maps");
extern struct us_opstats_map opstats SEC(".maps");
extern struct us_inflight_map inflight SEC(".maps");
extern struct us_udata_map udata SEC(".maps");
extern struct us_targets_map targets SEC(".maps");
extern struct us_ring_cache_map ring_cache SEC(".maps");
extern struct us_errnos_map errnos SEC(".maps");
extern struct us_threads_map threads SEC(".maps");
extern struct us_trace_rb_map trace_rb SEC(".maps");

/* Set by userspace before load. */
extern const volatile bool filter_tgids;
extern const volatile __u32 max_rings;
extern const volatile __u32 max_opstats;
extern const volatile __u32 inflight_mask;
extern const volatile __u32 udata_mask;
extern const volatile __s32 req_bit[US_RF__COUNT];
/* uringscope's own pid namespace when it is not the initial one (0 otherwise): pids the
 * user gives and the report shows are in that namespace, the kernel's are not. */
extern const volatile __u64 pidns_ino;
/* --trace: stream per-request records. Off, every emit below is dead code the verifier
 * drops, so the default mode pays nothing for it. */
extern const volatile bool trace_on;
/* -f: processes forked by a target become targets. */
extern const volatile bool follow_forks;

/* Allocation cursors (rows handed out after the catch-all row 0) and tool counters. */
extern __u32 ring_rows;
extern __u32 opstat_rows;
extern __u32 ring_epoch;
extern __u64 us_tool[US_TOOL__COUNT];

static __always_inline void tool_count(enum us_tool_counter c)
{
	__sync_fetch_and_add(&us_tool[c], 1);
}

/* Remembers an io thread of a target; a full table is counted, never fatal. */
static __always_inline void thread_add(__u32 tid, __u32 tgid, __u32 kind, __u32 ring)
{
	struct us_thread t = { .tgid = tgid, .kind = kind, .ring = ring,
			       .first_ns = bpf_ktime_get_ns() };

	if (bpf_map_update_elem(&threads, &tid, &t, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&threads, &tid))
		tool_count(US_TOOL_THREADS_FULL);
}

static __always_inline bool is_target_tgid(__u32 tgid)
{
	__u32 word = tgid >> 6;
	__u64 *bits;

	if (!filter_tgids)
		return true;
	bits = bpf_map_lookup_elem(&targets, &word);
	return bits && (*bits >> (tgid & 63)) & 1;
}

/* Thread-group ids as the user sees them (see pidns_ino). In the initial namespace this
 * is a plain load; the translation is compiled out by the verifier's dead-code pass. */
static __always_inline __u32 current_tgid(void)
{
	if (!pidns_ino)
		return bpf_get_current_pid_tgid() >> 32;
	return task_tgid_in_ns(bpf_get_current_task_btf(), pidns_ino);
}

static __always_inline __u32 task_tgid(struct task_struct *task)
{
	if (!pidns_ino)
		return task->tgid;
	return task_tgid_in_ns(task, pidns_ino);
}

static __always_inline bool current_is_target(void)
{
	return is_target_tgid(current_tgid());
}

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
 * address is reused by a new ring.
 */
static __always_inline __u32 ring_lookup(__u64 ctx)
{
	struct us_ring_cache *cache;
	__u32 zero = 0, *row;

	cache = bpf_map_lookup_elem(&ring_cache, &zero);
	if (cache && cache->ctx == ctx && cache->epoch == ring_epoch)
		return cache->ring;
	row = bpf_map_lookup_elem(&ring_ids, &ctx);
	if (!row)
		return US_NO_RING;
	if (cache) {
		cache->ctx = ctx;
		cache->ring = *row;
		cache->epoch = ring_epoch;
	}
	return *row;
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

/*
 * Give a new ring a row. `replace` is set by io_uring_create: the ctx address may have
 * belonged to a ring that has since been freed, and the new ring must not inherit its
 * numbers. Comm is taken from the owner's thread group leader.
 */
static __always_inline __u32 ring_add(const struct us_ring_seed *seed, bool replace)
{
	__u32 row = __sync_fetch_and_add(&ring_rows, 1) + 1;
	__u64 ctx = seed->ctx;
	struct us_ring_info *info = NULL;
	__u32 *cur;

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
		info->ctx = ctx;
	}
	if (bpf_map_update_elem(&ring_ids, &ctx, &row, replace ? BPF_ANY : BPF_NOEXIST)) {
		/* Another CPU added this ctx first (or the id map is full): use its row. */
		if (info)
			info->ctx = 0;
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

/* opstat row of (ring, opcode), allocated on first use; row 0 when the pool is full. */
static __always_inline __u32 opstat_for(__u32 ring, __u32 opcode)
{
	__u32 key = ring * US_OP_SLOTS + op_slot(opcode), row, cur;
	struct us_opstat *os;
	__u32 *slot;

	slot = bpf_map_lookup_elem(&ring_opmap, &key);
	if (!slot)
		return US_OPSTAT_CATCHALL;
	cur = *slot;
	if (cur)
		return cur;
	row = __sync_fetch_and_add(&opstat_rows, 1) + 1;
	if (row >= max_opstats) {
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
		/* Lost the race: leave this row unowned, userspace skips it. */
		os->ring = US_NO_RING;
		return cur;
	}
	return row;
}

static __always_inline struct us_opstat *opstat_row(__u32 row)
{
	return bpf_map_lookup_elem(&opstats, &row);
}

static __always_inline void opstat_count(struct us_opstat *os, enum us_op_counter c)
{
	__sync_fetch_and_add(&os->counters[c], 1);
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

static __always_inline struct us_udata_slot *udata_slot(__u32 ring, __u64 user_data)
{
	/* user_data is often a small counter or an aligned pointer: mix it before the ring */
	__u32 key = hash_u64(ring + user_data * 0xff51afd7ed558ccdULL) & udata_mask;

	return bpf_map_lookup_elem(&udata, &key);
}

#endif /* URINGSCOPE_STATE_BPF_H */
