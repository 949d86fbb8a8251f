/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The boundary's own per-ring state (boundary*.bpf.h), in two tables of one row per ring
 * row that userspace only sizes: what is being watched, and the timer that looks at it.
 */
#ifndef URINGSCOPE_RING_WATCH_BPF_H
#define URINGSCOPE_RING_WATCH_BPF_H

/*
 * A ring's boundary state that only BPF reads (boundary*.bpf.h), one per ring row: the
 * one CQE and the one SQE being watched, and the last look at the SQ ring. ring_add()
 * clears it for each new ring. No timer here: a map with one is out of reach of the
 * syscall tracepoint and the uprobes, which read the watch too.
 */
struct us_ring_watch {
	__u64 reap_posted_ns; /* ktime the watched CQE was posted, 0: none (US_WATCH_SETTING) */
	__u64 reap_pos;       /* its CQ index */
	__u64 reap_seen_ns;   /* last ktime it was seen still unreaped */
	__u64 lu_timed_post;  /* reap_posted_ns of the last CQE liburing's uprobes timed */
	__u64 sq_seen_ns;     /* ktime the watched SQE was first seen, 0: none (US_WATCH_SETTING) */
	__u64 sq_pos;         /* its SQ index */
	__u64 sq_res_ns;      /* since the last look that did not see it: its resolution */
	__u64 sq_look_ns;     /* ktime of the last look at the SQ ring's tail */
	__u64 sq_look_tail;   /* ... the tail it saw */
} __attribute__((aligned(64)));

struct us_ring_watch_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(key, __u32);
	__type(value, struct us_ring_watch);
};

/* The timer that looks at a quiet ring's watch (boundary_timer.bpf.h), one per ring row. */
struct us_ring_timer {
	struct bpf_timer timer;
	__u32 state; /* US_TICK_* */
	__u32 pad;
};

struct us_ring_timers_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(key, __u32);
	__type(value, struct us_ring_timer);
};

#endif /* URINGSCOPE_RING_WATCH_BPF_H */
