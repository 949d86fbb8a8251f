/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The state every BPF file shares: map and global declarations (defined once, in
 * state.bpf.c; the BPF static linker resolves the externs), the tool counters and the
 * target filter. Finding and claiming rows of the tables is in tables.bpf.h.
 */
#ifndef URINGSCOPE_STATE_BPF_H
#define URINGSCOPE_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringscope.h"
#include "constants.bpf.h"
#include "ring_watch.bpf.h"
#include "compat.bpf.h"
#include "task.bpf.h"

#define US_NO_RING 0xffffffffu
#define US_EAGAIN 11

/* Map types are named so that the extern declarations and the definitions agree. */
struct us_ring_ids_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_MAX_RINGS * 4);
	__type(key, __u64);   /* io_ring_ctx address */
	__type(value, __u32); /* ring row */
};

/* io_ring_ctx addresses whose teardown end must not retire the row they map: a new ring
 * took the address (its io_uring_create) before the freed ring's teardown end fired, so
 * the freed ring's row was retired then, and the row mapped now is the new ring's. */
struct us_exits_superseded_map {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(key, __u64);   /* io_ring_ctx address */
	__type(value, __u32); /* unused */
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
	__uint(map_flags, BPF_F_MMAPABLE); /* userspace clears a retired ring's slots */
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

/* Requests between submit and completion, in 2-way buckets by a hash of the io_kiocb
 * address. A request that finds both ways live is not tracked (US_RC_INFLIGHT_DROPS):
 * dropping the newcomer keeps the latency sample unbiased, evicting the older would drop
 * the tail. */
struct us_inflight_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, US_DEFAULT_INFLIGHT_BUCKETS);
	__type(key, __u32);
	__type(value, struct us_inflight_bucket);
};

/* The (ring, user_data) index, for CQEs that come without a request pointer (overflow,
 * multishot and aux CQEs, 5.15's io_uring_complete): 2-way sets, an even slot and the
 * next. */
struct us_udata_slot {
	__u64 user_data;
	__u64 req;    /* io_kiocb address */
	__u32 ring;   /* ring row: stands in for the ctx, which the verifier won't let us hash */
	__u32 flags;  /* US_UD_* */
};
/* A third live request with this (ring, user_data) found both ways of the set taken by
 * two others with it: a CQE without a request pointer for this key cannot be told
 * apart, so none is attributed while the flag stands. */
#define US_UD_CROWDED (1u << 0)

struct us_udata_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_DEFAULT_UDATA_SLOTS);
	__type(key, __u32);
	__type(value, struct us_udata_slot);
};

/* Rows going back and forth for ring churn (struct us_retired in uringscope.h). */
struct us_retired_queue_map {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(value, struct us_retired);
};

struct us_free_rows_map {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(value, __u32);
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

/* Followed processes (-f) that have exited and so left the target filter: the report
 * still lists them among the targets. */
struct us_followed_exited_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
};

/* io threads of the targets, by tid. */
struct us_threads_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_THREAD_ENTRIES);
	__type(key, __u32);
	__type(value, struct us_thread);
};

/* io-wq workers seen per process (tgid -> count): kept apart from `threads`, whose
 * entries go when their thread exits. */
struct us_worker_counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_WORKER_PROCS);
	__type(key, __u32);
	__type(value, __u64);
};

/* --trace records; a page when tracing is off (programs reference it either way). */
struct us_trace_rb_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

/* --trace records waiting for their batch (trace.bpf.h), one stage per CPU. */
struct us_trace_stage_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct us_trace_batch);
};

/* --check records; a page without --check. */
struct us_check_rb_map {
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

/* Per-file attribution (files.bpf.h): rows by (ring, opcode, file), names by file. */
struct us_file_stats_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_FILE_ROWS);
	__type(key, struct us_file_key);
	__type(value, struct us_filestat);
};

/* LRU: a note whose request ended without anyone deleting it ages out. */
struct us_req_files_map {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, US_DEFAULT_REQ_FILES);
	__type(key, __u64);
	__type(value, struct us_req_file);
};

struct us_file_names_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, US_DEFAULT_FILE_NAMES);
	__type(key, struct us_file_id);
	__type(value, struct us_file_name);
};

/* The zero row a new (ring, op, file) row starts from (never written), and where a name
 * is made before it goes into file_names: both too big for the BPF stack. */
struct us_filestat_zero_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct us_filestat);
};

struct us_name_scratch_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct us_file_name);
};

extern struct us_ring_ids_map ring_ids SEC(".maps");
extern struct us_exits_superseded_map exits_superseded SEC(".maps");
extern struct us_ring_info_map ring_info SEC(".maps");
extern struct us_ring_stats_map ring_stats SEC(".maps");
extern struct us_ring_opmap_map ring_opmap SEC(".maps");
extern struct us_opstats_map opstats SEC(".maps");
extern struct us_inflight_map inflight SEC(".maps");
extern struct us_udata_map udata SEC(".maps");
extern struct us_retired_queue_map retired_rings SEC(".maps");
extern struct us_free_rows_map free_rings SEC(".maps");
extern struct us_free_rows_map free_opstats SEC(".maps");
extern struct us_targets_map targets SEC(".maps");
extern struct us_followed_exited_map followed_exited SEC(".maps");
extern struct us_ring_cache_map ring_cache SEC(".maps");
extern struct us_errnos_map errnos SEC(".maps");
extern struct us_threads_map threads SEC(".maps");
extern struct us_worker_counts_map worker_counts SEC(".maps");
extern struct us_trace_rb_map trace_rb SEC(".maps");
extern struct us_trace_stage_map trace_stage SEC(".maps");
extern struct us_check_rb_map check_rb SEC(".maps");
extern struct us_ring_watch_map ring_watch SEC(".maps");
extern struct us_ring_timers_map ring_timers SEC(".maps");
extern struct us_cq_posts_map cq_posts SEC(".maps");
extern struct us_file_stats_map file_stats SEC(".maps");
extern struct us_file_names_map file_names SEC(".maps");
extern struct us_req_files_map req_files SEC(".maps");
extern struct us_name_scratch_map name_scratch SEC(".maps");
extern struct us_filestat_zero_map filestat_zero SEC(".maps");

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
/* --check: stream what requests target (check.bpf.h); off, the calls are dead code. */
extern const volatile bool check_on;
/* -f: processes forked by a target become targets. */
extern const volatile bool follow_forks;
/* Address of io_ring_exit_work (kallsyms), 0 when unreadable: see retire.bpf.c. */
extern const volatile __u64 ring_exit_fn;
/* uringscope's own pid (in its namespace): never a target, so the ring it opens to learn
 * cqe_order is not reported. */
extern const volatile __u32 self_tgid;
/* --boundary: CQ depth and reap lag (boundary.bpf.h). Off, its calls are dead code;
 * on, it costs 1.0-1.25x the default mode per request (docs/overhead.md). */
extern const volatile bool boundary_on;
/* The fentry on io_req_post_cqe is loaded (complete.bpf.c): pointer-less CQEs look for
 * the request it left before falling back to the (ring, user_data) index. */
extern const volatile bool aux_req_on;
/* Per-file attribution (files.bpf.h); off, its calls are dead code. */
extern const volatile bool files_on;
/* Allocation cursors (rows handed out after the catch-all row 0) and tool counters. */
extern __u32 ring_rows;
extern __u32 opstat_rows;
extern __u32 ring_epoch;
/* enum us_cqe_order (uringscope.h), learned after attach (boundary_cqe.bpf.h). */
extern __u32 cqe_order;
extern __u64 us_tool[US_TOOL__COUNT];

static __always_inline void tool_add(enum us_tool_counter c, __u64 n)
{
	__sync_fetch_and_add(&us_tool[c], n);
}

static __always_inline void tool_count(enum us_tool_counter c)
{
	tool_add(c, 1);
}

/* One more for `key` in a hash map of __u64 counts, inserting it at 1; a full map is
 * counted as the tool loss `full`. Inlined, so the verifier sees the concrete map. */
static __always_inline void hash_count(void *map, const void *key, enum us_tool_counter full)
{
	__u64 one = 1, *n = bpf_map_lookup_elem(map, key);

	if (n) {
		__sync_fetch_and_add(n, 1);
		return;
	}
	if (!bpf_map_update_elem(map, key, &one, BPF_NOEXIST))
		return;
	n = bpf_map_lookup_elem(map, key); /* another CPU inserted it first */
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		tool_count(full);
}

static __always_inline void count_worker(__u32 tgid)
{
	hash_count(&worker_counts, &tgid, US_TOOL_THREADS_FULL);
}

/* Remembers an io thread of a target; a full table is counted, never fatal. */
static __always_inline void thread_add(__u32 tid, __u32 tgid, __u32 kind, __u32 ring)
{
	struct us_thread t = { .tgid = tgid, .kind = kind, .ring = ring,
			       .first_ns = bpf_ktime_get_ns() };

	if (!bpf_map_update_elem(&threads, &tid, &t, BPF_NOEXIST)) {
		if (kind == US_THREAD_WORKER)
			count_worker(tgid);
		return;
	}
	if (!bpf_map_lookup_elem(&threads, &tid))
		tool_count(US_TOOL_THREADS_FULL);
}

static __always_inline bool is_target_tgid(__u32 tgid)
{
	__u32 word = tgid >> 6;
	__u64 *bits;

	if (self_tgid && tgid == self_tgid)
		return false;
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

#endif /* URINGSCOPE_STATE_BPF_H */
