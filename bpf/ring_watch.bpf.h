/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The boundary's own per-ring state (boundary*.bpf.h), in two tables of one row per ring
 * row that userspace only sizes: what is being watched, and the timer that looks at it.
 */
#ifndef URINGSCOPE_RING_WATCH_BPF_H
#define URINGSCOPE_RING_WATCH_BPF_H

/*
 * A ring's boundary state that only BPF reads (boundary*.bpf.h), one per ring row: where
 * the accounting of reaped CQEs stands, the last look at the CQ head, the one SQE being
 * watched, and the last look at the SQ ring. ring_add() clears it for each new ring. No
 * timer here: a map with one is out of reach of the syscall tracepoint and the uprobes,
 * which read the watch too.
 */
struct us_ring_watch {
	__u64 reap_next;      /* US_REAP_ON | the first CQ index not accounted yet, with
			       * US_REAP_BUSY while a CPU accounts up to it; 0: none posted
			       * since attach; US_REAP_OFF: the ring is torn down */
	__u64 reap_look_ns;   /* ktime of the last look that found CQEs unreaped */
	__u64 reap_look_head; /* ... the head it saw */
	__u64 lu_next;        /* US_REAP_ON | the first CQ index liburing's uprobes have not timed */
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

/*
 * The post times of a ring's last US_CQ_POSTS CQEs, one slot per CQ index modulo that:
 * (index / US_CQ_POSTS) in the top US_CQ_POST_GEN_BITS bits, so that a slot a later CQE
 * took over is not read as the older one's, and the post time modulo 2^52 ns (52 days:
 * no CQE waits that long) below.
 */
struct us_cq_posts {
	__u64 slot[US_CQ_POSTS];
};

struct us_cq_posts_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_DEFAULT_MAX_RINGS);
	__type(key, __u32);
	__type(value, struct us_cq_posts);
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
