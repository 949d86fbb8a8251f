/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The ABI between uringscope's BPF programs and its userspace: map value layouts,
 * counter indices and limits. Nothing else crosses the boundary. Plain __u32/__u64
 * only, no includes: the BPF side gets the types from vmlinux.h, userspace from
 * <linux/types.h> (include/uringscope/abi.h, which also static_asserts the layouts).
 */
#ifndef URINGSCOPE_ABI_H
#define URINGSCOPE_ABI_H

/* Latency histogram: slot i counts latencies in [2^i, 2^(i+1)) ns, slot 0 also takes
 * 0 ns. 40 slots reach 2^40 ns (about 18 minutes); longer requests land in the last. */
#define US_HIST_SLOTS 40

/* Opcode slots. IORING_OP_LAST is 63 on 6.18; 79 slots leave room for the opcodes later
 * kernels add. An opcode at or beyond US_OP_OTHER is counted in that slot. */
#define US_OP_SLOTS 80
#define US_OP_OTHER (US_OP_SLOTS - 1)

/*
 * Table sizes. Userspace sets the real sizes with bpf_map__set_max_entries() before load
 * and mirrors them into .rodata; these are the defaults.
 *  - rings: one row per io_ring_ctx seen. Row 0 is the catch-all when the table is full.
 *  - opstats: one row per (ring, opcode) pair in use. Row 0 is the catch-all.
 *  - inflight: 2-way buckets of requests between submit and completion, indexed by a hash
 *    of the io_kiocb pointer. A request that finds both ways taken by live requests is
 *    not tracked (counted in US_RC_INFLIGHT_DROPS): dropping the newcomer keeps the
 *    latency sample unbiased, evicting the older would drop the tail. Power of two.
 *  - udata: (ring, user_data) -> io_kiocb address for completions that arrive without a
 *    request pointer (CQ overflow, multishot/aux CQEs, 5.15's io_uring_complete).
 */
#define US_DEFAULT_MAX_RINGS 1024
#define US_DEFAULT_OPSTAT_SLOTS 4096
#define US_DEFAULT_INFLIGHT_BUCKETS 32768
#define US_DEFAULT_UDATA_SLOTS 65536
#define US_DEFAULT_ERRNO_ENTRIES 4096
#define US_DEFAULT_THREAD_ENTRIES 8192
#define US_DEFAULT_WORKER_PROCS 4096
#define US_RING_CATCHALL 0
#define US_OPSTAT_CATCHALL 0

/*
 * Ring churn. When a ring's teardown ends (io_ring_exit_work has run), its row goes to
 * the retired queue (struct us_retired); userspace copies the row's numbers out, clears
 * the row and its opstat rows, and pushes them onto the free queues, which the row
 * allocators take from before their cursors.
 */
struct us_retired {
	__u32 row;
	__u32 pad;
	__u64 ns; /* bpf_ktime_get_ns() when the teardown ended */
};

/* Per-ring counters (struct us_ring_stats). Per-op numbers live in struct us_opstat. */
enum us_ring_counter {
	US_RC_ENTER_CALLS,        /* io_uring_enter() calls naming this ring */
	US_RC_ENTER_SUBMIT_CALLS, /* ... of which had to_submit > 0 */
	US_RC_TO_SUBMIT_SUM,      /* sum of to_submit over all enter calls */
	US_RC_SQ_WAKEUPS,         /* ... of which carried IORING_ENTER_SQ_WAKEUP */
	US_RC_UNTRACKED_CQES,     /* CQEs with neither a known request nor an opcode */
	US_RC_INFLIGHT_DROPS,     /* requests not tracked: both ways of their bucket were live */
	US_RC_CQ_OVERFLOWS,       /* io_uring_cqe_overflow events */
	US_RC_SHORT_WRITES,       /* io_uring_short_write events */
	US_RC_TASK_ADDS,          /* io_uring_task_add: completions queued as task work */
	US_RC_TW_RUNS,            /* io_uring_task_work_run with items, attributed via tctx->last */
	US_RC_TW_ITEMS,           /* ... items they ran */
	US_RC_LOCAL_TW_RUNS,      /* io_uring_local_work_run (DEFER_TASKRUN) with items */
	US_RC_LOCAL_TW_ITEMS,
	US_RC_LOCAL_TW_PENDING_NS, /* ktime when local task work was first queued and not yet
				    * run, 0 when none is waiting: a timestamp, not a count */
	US_RC_LOCAL_TW_LAG_MAX_NS, /* longest wait from queueing to a local_work_run */
	US_RC_SQPOLL_OFFCPU_NS,   /* time the ring's SQPOLL thread spent switched out */
	US_RC_SQPOLL_OUT_NS,      /* ktime of its current switch-out, 0 while on CPU */
	US_RC_SQPOLL_SLEEPS,      /* voluntary switch-outs (idle sleeps) of that thread */
	US_RC_SQPOLL_PREEMPTS,    /* involuntary ones */
	/* One CQE at a time is watched until the program's CQ head passes it: */
	US_RC_REAP_WATCH_NS,      /* ktime it was posted, 0 when none is watched (1: being set) */
	US_RC_REAP_WATCH_POS,     /* its CQ index */
	US_RC_REAP_SEEN_NS,       /* last ktime it was seen still unreaped */
	US_RC_REAPS,              /* watched CQEs seen reaped */
	US_RC_REAP_LAG_SUM_NS,    /* ... sum of post -> first sight of the head past it */
	US_RC_REAP_LAG_MAX_NS,
	US_RC_REAP_GAP_SUM_NS,    /* ... sum of the last-unreaped -> reaped sighting gaps: how
				   * much earlier each reap could have been (the resolution) */
	US_RC_REAP_GAP_MAX_NS,
	US_RC_REAP_LO_MAX_NS,     /* the largest lower bound (lag - gap) */
	US_RC_REAP_TICKS,         /* timer looks at a quiet ring's watched CQE */
	US_RC_AUX_BY_REQ,         /* pointer-less CQEs matched by io_req_post_cqe's request */
	/* SQPOLL rings, one SQE at a time from first sighting to taken (boundary_sq.bpf.h): */
	US_RC_SQ_WATCH_NS,        /* ktime of its first sighting, 0 when none (1: being set) */
	US_RC_SQ_WATCH_POS,       /* its SQ index */
	US_RC_SQ_WATCH_RES_NS,    /* since the last look that did not see it (its resolution) */
	US_RC_SQ_LOOK_NS,         /* ktime of the last look at the SQ ring's tail */
	US_RC_SQ_LOOK_TAIL,       /* ... the tail it saw */
	US_RC_SQ_WAITS,           /* watched SQEs seen taken */
	US_RC_SQ_WAIT_SUM_NS,     /* ... sum of first sighting -> taken */
	US_RC_SQ_WAIT_MAX_NS,
	US_RC_SQ_RES_SUM_NS,      /* ... sum of their US_RC_SQ_WATCH_RES_NS */
	US_RC_SQ_RES_MAX_NS,
	US_RC_SQ_TICKS,           /* timer looks at the SQ ring while its poller was off-CPU */
	US_RC_SQ_TAKEN_UNSEEN,    /* SQEs taken, none watched, before a look saw them: waits of 0 */
	/* liburing's exported calls, where a target maps a shared liburing (liburing.bpf.c): */
	US_RC_LU_SUBMIT_CALLS,    /* io_uring_submit*() calls that returned >= 0 */
	US_RC_LU_SUBMIT_SQES,     /* ... the SQEs they returned as submitted */
	US_RC_LU_SUBMIT_MAX,      /* ... the most in one call */
	US_RC_LU_CQES_HANDED,     /* CQEs handed to the program by its waiting/batch calls */
	US_RC_LU_REAPS,           /* ... of which the CQE the boundary watched: exact reap lag */
	US_RC_LU_REAP_SUM_NS,
	US_RC_LU_REAP_MAX_NS,
	US_RC_LU_REAP_SEEN_POST,  /* post time of the last watched CQE timed here (once each) */
	/* The CQ ring's indices (boundary.bpf.h), sampled at each CQE posted. Written at every
	 * CQE, so away from the watch above, which every submit reads (often on another CPU). */
	US_RC_CQ_DEPTH_SAMPLES,   /* CQEs sampled */
	US_RC_CQ_DEPTH_SUM,       /* ... sum of the CQEs ready and not reaped, this one included */
	US_RC_CQ_DEPTH_MAX,
	US_RC__COUNT,
};

/* Whether io_uring_complete fires before the kernel's cached CQ tail counts the CQE:
 * it moved between releases, not with the tracepoint's shape, so it is learnt from a NOP
 * on a ring of uringscope's own after attach (src/loader/cqe_order.h). */
enum us_cqe_order {
	US_CQE_ORDER_UNKNOWN,
	US_CQE_ORDER_BEFORE_TAIL,
	US_CQE_ORDER_IN_TAIL,
};

/* liburing.so.2's struct io_uring on LP64 (stable across 2.x), as the uprobes read it
 * from the program's memory; test/unit checks it against liburing.h. */
#define US_LU_CQ_CQES_OFF 152 /* struct io_uring_cqe *cq.cqes */
#define US_LU_FLAGS_OFF 192   /* unsigned flags (IORING_SETUP_*) */
#define US_LU_RING_FD_OFF 196 /* int ring_fd */
#define US_SETUP_CQE32 (1u << 11)
#define US_LU_BATCH_LOOK 8    /* io_uring_peek_batch_cqe(): CQEs of a batch looked at */

/* A quiet ring's watched CQE is looked at this often (a BPF timer), so its reap is seen
 * within this much even when no submit, CQE or enter call of the ring comes. Once it
 * has waited 32 ticks the timer backs off to 1/US_REAP_TICK_BACKOFF of its age, at most
 * US_REAP_TICK_MAX_NS: the resolution stays a small share of the lag, and a CQE left
 * unreaped for minutes costs a few timer runs a second, not a thousand. */
#define US_REAP_TICK_NS 1000000ull
#define US_REAP_TICK_BACKOFF 32
#define US_REAP_TICK_MAX_NS 1000000000ull

/* Rows are whole cache lines (the table is page-aligned), so no two rows share one. */
struct us_ring_stats {
	__u64 counters[US_RC__COUNT];
	__u64 reap_hist[US_HIST_SLOTS]; /* reap lag of the watched CQEs, log2 ns slots */
	__u64 sq_wait_hist[US_HIST_SLOTS]; /* SQ wait of the watched SQEs, log2 ns slots */
	__u64 lu_reap_hist[US_HIST_SLOTS]; /* watched CQEs' post -> handed over by liburing */
	__u64 reap_lo_hist[US_HIST_SLOTS]; /* reap lag lower bounds: post -> last seen unreaped */
} __attribute__((aligned(64)));

/*
 * Per (ring, opcode) counters, in two groups on separate cache lines: those written where
 * a request is submitted and issued, then (from byte 128 of the row) those written where
 * its CQEs are posted, often another CPU (an io-wq worker, an interrupt). Sharing a line,
 * every request would move it between the two CPUs twice.
 */
enum us_op_counter {
	US_OC_SUBMITTED,      /* submit events */
	US_OC_FAILED,         /* io_uring_req_failed: rejected before issue (bad SQE) */
	US_OC_PUNTED,         /* io_uring_queue_async_work events, split below by reason */
	US_OC_PUNT_FORCED,    /* ... REQ_F_FORCE_ASYNC (IOSQE_ASYNC): no inline attempt */
	US_OC_PUNT_HASHED,    /* ... hashed work: buffered writes, serialized per inode */
	US_OC_PUNT_REGFILE,   /* ... other regular-file work (buffered read missing the cache) */
	US_OC_PUNT_EAGAIN,    /* ... anything else: the nonblocking attempt returned -EAGAIN */
	US_OC_POLL_ARMED,     /* io_uring_poll_arm: waited for readiness, then retried */
	US_OC_POLL_ARMED_REG, /* ... on a regular file */
	/* Slots 9-14 are unused: the CQE side starts on a line of its own. */
	US_OC_COMPLETED = 15, /* CQEs posted, tracked or not, overflowed ones included */
	US_OC_UNTRACKED,      /* ... of which for requests never seen submitted */
	US_OC_ERRORS,         /* CQEs with res < 0, -EAGAIN excluded */
	US_OC_MULTISHOT_CQES, /* CQEs carrying IORING_CQE_F_MORE */
	US_OC_CANCELLED_AT_EXIT, /* -ECANCELED CQEs posted while the owner was exiting */
	US_OC_LAT_SUM_NS,     /* sum of the latencies in hist[] */
	US_OC_LAT_MAX_NS,     /* largest latency in hist[] */
	US_OC_ZC_RESULTS,     /* zero-copy sends whose result CQE (F_MORE) came: one notification
			       * CQE follows each, and that CQE ends the request */
	US_OC_ZC_RESULT_SUM_NS, /* ... sum of their submit-to-result-CQE times */
	US_OC_ZC_NOTIFS,      /* IORING_CQE_F_NOTIF CQEs matched to their send */
	US_OC_BYTES,          /* sum of positive results of ops in US_DATA_OPS: bytes moved */
	US_OC__COUNT,
};

/* Rows are whole cache lines (the table is page-aligned), so no two rows share one. */
struct us_opstat {
	__u32 ring;   /* row in the ring tables */
	__u32 opcode; /* IORING_OP_* (US_OP_OTHER for out-of-range opcodes) */
	__u64 counters[US_OC__COUNT];
	__u64 hist[US_HIST_SLOTS]; /* submit -> final CQE latency, log2 ns slots (CQE side) */
} __attribute__((aligned(64)));

/* How a ring entered the table. */
enum us_ring_source {
	US_RING_FROM_CREATE = 1, /* io_uring_create fired inside the window */
	US_RING_FROM_SUBMIT = 2, /* first seen submitting: created before attach */
	US_RING_FROM_FDS = 3,    /* found in a target's fd table at attach */
};

struct us_ring_info {
	__u64 ctx;         /* kernel address of the io_ring_ctx: identity only */
	__u64 first_ns;    /* bpf_ktime_get_ns() when first seen */
	__u32 tgid;        /* owning process */
	__s32 fd;          /* ring fd in the owner, -1 while unknown */
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 setup_flags; /* IORING_SETUP_* */
	__u32 source;      /* enum us_ring_source */
	char comm[16];     /* thread-group leader's comm */
	__u32 sq_tid;      /* SQPOLL thread, 0 when none or not seen yet */
	__u32 pad;
};

/* In-flight request state (struct us_inflight.state bits). */
#define US_IF_PUNTED (1u << 0)    /* went to io-wq at some point */
#define US_IF_CQE_SKIP (1u << 1)  /* IOSQE_CQE_SKIP_SUCCESS: success posts no CQE */
#define US_IF_FAILED (1u << 2)    /* rejected before issue: its CQE carries no latency */
#define US_IF_ABANDONED (1u << 3) /* cancelled by the kernel because its owner exited */
/* A zero-copy send past its result CQE, waiting for its notification under its
 * (ring, user_data) key (its io_kiocb is freed and reused at once). */
#define US_IF_ZC_WAIT (1u << 6)
/* ... and a second send with the same key is waiting too: the next notification cannot
 * be told apart, so it ends neither's latency (US_TOOL_ZC_AMBIGUOUS). */
#define US_IF_ZC_SHARED (1u << 7)
/* Where the request was last seen waiting (bits 4-5): a request still in flight at the
 * end is a leak or a legitimate wait depending on this. */
#define US_IF_WHERE_SHIFT 4
#define US_IF_WHERE_MASK (3u << US_IF_WHERE_SHIFT)
#define US_WHERE_ISSUED 0u   /* submitted, nothing seen since */
#define US_WHERE_POLL 1u     /* armed poll: waiting for the file to become ready */
#define US_WHERE_IOWQ 2u     /* handed to an io-wq worker */
#define US_WHERE_TASKWORK 3u /* finished in the kernel, its completion queued as task work */

struct us_inflight {
	__u64 req;       /* io_kiocb address; 0 = empty way */
	__u64 start_ns;  /* submit time */
	__u64 user_data;
	__u32 opstat;    /* row in the opstat table */
	__u16 ring;
	__u8 opcode;
	__u8 state;      /* US_IF_* */
};

/* One cache line: two ways of the set-associative in-flight table. */
struct us_inflight_bucket {
	struct us_inflight way[2];
};

/* Per-(ring, opcode, errno) error counts, for the top error codes of each op. */
struct us_errno_key {
	__u32 ring;
	__u16 opcode;
	__u16 err; /* positive errno */
};

/* Threads of the targets: SQPOLL threads (keyed to their ring) and io-wq workers. */
#define US_THREAD_SQPOLL 1u
#define US_THREAD_WORKER 2u
struct us_thread {
	__u32 tgid;
	__u32 kind; /* US_THREAD_* */
	__u32 ring; /* SQPOLL threads: their ring's row */
	__u32 pad;
	__u64 first_ns;
};

/* The (ring, user_data) index: 2-way sets of these, at an even slot and the next. */
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

/* Tool-fidelity counters (global, in .bss as us_tool[]). */
enum us_tool_counter {
	US_TOOL_RINGS_FULL,      /* events attributed to the catch-all ring: ring table full */
	US_TOOL_OPSTATS_FULL,    /* events attributed to the catch-all opstat row */
	US_TOOL_OP_OUT_OF_RANGE, /* opcodes >= US_OP_OTHER */
	US_TOOL_ENTER_NO_RING,   /* enter calls on a ring we could not resolve */
	US_TOOL_OVERFLOW_NO_REQ, /* overflowed CQEs whose request was not tracked */
	US_TOOL_ERRNO_FULL,      /* error CQEs whose errno found no room in the errno table */
	US_TOOL_THREADS_FULL,    /* io threads not recorded: the thread table was full */
	US_TOOL_TRACE_DROPS,     /* --trace records lost: the ring buffer was full */
	US_TOOL_ZC_AMBIGUOUS,    /* zero-copy sends whose notification could belong to another
				  * send with the same (ring, user_data): no latency sample */
	US_TOOL_NOTIF_NO_REQ,    /* notification CQEs whose send was not tracked */
	US_TOOL_LATENCY_TORN,    /* latency samples discarded: the entry changed under us */
	US_TOOL_UDATA_AMBIGUOUS, /* CQEs without a request pointer whose (ring, user_data)
				  * belongs to two or more live requests: not attributed */
	US_TOOL_UDATA_EVICTED,   /* live requests dropped from the (ring, user_data) index by
				  * unrelated ones: a CQE of theirs without a request pointer
				  * would be untracked */
	US_TOOL_CHECK_DROPS,     /* --check records lost: the check buffer was full */
	US_TOOL_CHECK_UNSEEN,    /* --check: iovecs beyond US_CHECK_MAX_IOVECS, or memory
				  * ranges that could not be read: not checked */
	US_TOOL_FILES_FULL,      /* CQEs left out of the per-file rows: that table was full */
	US_TOOL_NAMES_FULL,      /* files left unnamed: the file name table was full */
	US_TOOL__COUNT,
};

/* REQ_F_* bits above 6 move between kernels in an anonymous enum CO-RE cannot relocate:
 * userspace looks them up in BTF into .rodata req_bit[] (-1: no such bit). */
enum us_req_flag {
	US_RF_FORCE_ASYNC, /* IOSQE_ASYNC (bit 4 everywhere, looked up anyway) */
	US_RF_CQE_SKIP,    /* IOSQE_CQE_SKIP_SUCCESS (bit 6) */
	US_RF_ISREG,       /* file is a regular file */
	US_RF__COUNT,
};

/* --trace: one record per request event, through a BPF ring buffer in per-CPU batches
 * (struct us_trace_batch) submitted with BPF_RB_NO_WAKEUP and drained on a timer; a full
 * buffer drops the batch and counts its records (US_TOOL_TRACE_DROPS). The default mode
 * sends nothing per event. */
enum us_trace_kind {
	US_TR_SUBMIT = 1,   /* request submitted (submitter or SQPOLL thread) */
	US_TR_PUNT = 2,     /* handed to io-wq (aux = punt reason, US_OC_PUNT_*) */
	US_TR_ISSUE = 3,    /* a thread picked up its file to issue it: the io-wq worker
			     * for a punted request (io_uring_file_get; fixed files emit none) */
	US_TR_POLL_ARM = 4, /* waits on poll for its file */
	US_TR_COMPLETE = 5, /* a CQE was posted (res, cflags; aux = CQEs now waiting) */
	US_TR_FAILED = 6,   /* rejected before issue (res = error) */
};

struct us_trace_event {
	__u64 ts;        /* bpf_ktime_get_ns() */
	__u64 req;       /* io_kiocb address; 0 for CQEs without a request pointer */
	__u64 user_data;
	__u32 ring;      /* ring row (US_RING_CATCHALL when unknown) */
	__u32 tgid;      /* of the thread below, in uringscope's pid namespace */
	__u32 tid;       /* the thread the event happened on (kernel tid) */
	__s32 res;       /* COMPLETE and FAILED: the result */
	__u32 cflags;    /* COMPLETE: CQE flags */
	__u32 aux;       /* PUNT: reason; COMPLETE: CQ depth after this CQE */
	__u16 kind;      /* enum us_trace_kind */
	__u8 opcode;     /* US_OP_OTHER when unknown */
	__u8 pad;
	__u32 pad2;
	char comm[16];   /* of the thread: names the worker and SQPOLL tracks */
};

#define US_DEFAULT_TRACE_BYTES (8u << 20) /* ring buffer size with --trace: power of two */

/* Records are staged per CPU and reach trace_rb as batches: one ring-buffer reservation
 * (a lock, and a line the reader's CPU keeps writing) per US_TRACE_BATCH records instead
 * of per record. A stage goes out when full, at the first emit after its oldest record
 * turned US_TRACE_STAGE_AGE_NS old, or when userspace runs usc_trace_flush on its CPU
 * (every drain, so a CPU gone idle does not hold records back). */
#define US_TRACE_BATCH 32
#define US_TRACE_STAGE_AGE_NS 1000000ull

/* One trace_rb record: `count` events, then nothing (the record is cut after them). */
struct us_trace_batch {
	__u32 count;
	__u32 staging;   /* in the stage: a program on its CPU is writing it (not for readers) */
	__u64 first_ts;  /* ts of ev[0] */
	struct us_trace_event ev[US_TRACE_BATCH];
};

/* usc_trace_flush's return value: the stage was being written by a program it interrupted,
 * try again. */
#define US_TRACE_FLUSH_BUSY 1

/* --check: the memory each request targets, when it stops, and what the program does
 * to memory and registered buffers meanwhile, through check_rb to src/check/ (drops:
 * US_TOOL_CHECK_DROPS). */
enum us_check_kind {
	US_CK_RANGE = 1,  /* a request targets [addr, addr + len) (one record per iovec) */
	US_CK_END = 2,    /* the request posted its final CQE (or was cancelled): done */
	US_CK_UNMAP = 3,  /* [addr, addr + len) unmapped, moved by mremap(), or its pages dropped
			   * by madvise(MADV_DONTNEED/FREE/REMOVE) */
	US_CK_BUFREG = 4, /* io_uring_register() changing a ring's registered buffers */
};

#define US_CKF_INTO (1u << 0)  /* RANGE: the kernel writes this memory (reads, receives) */
#define US_CKF_FIXED (1u << 1) /* RANGE: a registered buffer; `index` is its index */
#define US_CKF_MORE (1u << 2)  /* RANGE: a later iovec of a request already recorded */

/* UNMAP: which call, in `opcode`. */
#define US_CK_MUNMAP 0
#define US_CK_MADVISE 1
#define US_CK_MREMAP 2 /* aux: US_CK_MREMAP_MOVED or US_CK_MREMAP_SHRUNK */
#define US_CK_MREMAP_MOVED 1
#define US_CK_MREMAP_SHRUNK 2

struct us_check_event {
	__u64 ts;        /* bpf_ktime_get_ns() */
	__u64 req;       /* RANGE, END: io_kiocb address */
	__u64 user_data; /* RANGE */
	__u64 addr;      /* RANGE, UNMAP: user address; END (with --files): the file's inode
			  * address, 0 for none */
	__u64 len;       /* RANGE, UNMAP: bytes; BUFREG: buffers affected (0 = all); END:
			  * the file's inode number */
	__u32 ring;      /* RANGE, BUFREG: ring row */
	__u32 tgid;      /* of the thread it happened on, in uringscope's pid namespace */
	__u16 kind;      /* enum us_check_kind */
	__u8 opcode;     /* RANGE: IORING_OP_*; UNMAP: US_CK_MUNMAP/MADVISE/MREMAP; BUFREG:
			  * the IORING_(UN)REGISTER_* opcode */
	__u8 flags;      /* RANGE: US_CKF_* */
	__u16 index;     /* RANGE: iovec index, or buffer index with US_CKF_FIXED; BUFREG:
			  * first buffer affected */
	__u16 pad;
	__u32 aux;       /* UNMAP: the madvise advice, or US_CK_MREMAP_*; END: the file's
			  * i_generation */
	__u32 pad2;
};

#define US_DEFAULT_CHECK_BYTES (8u << 20)
#define US_CHECK_MAX_IOVECS 8 /* iovecs of a vectored request checked; the rest counted */

/* Per-file attribution (files.bpf.h): a row per (ring, opcode, file), keyed by the inode
 * the request's file points at (a fixed file's too), its number and generation: a file
 * opened and closed a thousand times is one row, a new file in a recycled inode another.
 * Names are made once per inode at its first CQE, while the file is held open. */
#define US_DEFAULT_FILE_ROWS 4096
#define US_DEFAULT_FILE_NAMES 4096
#define US_PATH_BYTES 768    /* the path's components, leaf first, each NUL-terminated */
#define US_PATH_NAME_MAX 256 /* one component, NUL included */
#define US_PATH_DEPTH 32     /* components walked before a path counts as cut */

struct us_file_id {
	__u64 inode; /* struct inode address: identity only */
	__u64 ino;
	__u32 gen;   /* i_generation */
	__u32 pad;
};

struct us_file_key {
	struct us_file_id id;
	__u32 ring;
	__u32 opcode; /* US_OP_OTHER for out-of-range opcodes */
};

enum us_file_counter {
	US_FC_REQUESTS,   /* requests ended: their final CQE */
	US_FC_CQES, US_FC_BYTES, US_FC_ERRORS, /* as US_OC_COMPLETED, _BYTES, _ERRORS */
	US_FC_PUNTED,     /* requests ended that went to io-wq */
	US_FC_UNTRACKED,  /* ... that were never seen submitted: no latency */
	US_FC_DIRECT,     /* ... whose file was opened O_DIRECT */
	US_FC_LAT_SUM_NS, US_FC_LAT_MAX_NS,
	US_FC_POLL_ARMED, /* io_uring_poll_arm events: the file was not ready */
	US_FC__COUNT,
};

struct us_filestat {
	__u64 counters[US_FC__COUNT];
	__u64 hist[US_HIST_SLOTS];
};

/* The file of a request still in flight, noted where the kernel has given the request its
 * file before any CQE (poll arm, punt to io-wq), so that a request that never completes
 * (LEAK) can name it. Keyed by the io_kiocb address; start_ns is the in-flight entry's,
 * so that a recycled io_kiocb's older note is never taken for the newer request's. */
#define US_DEFAULT_REQ_FILES 4096
struct us_req_file {
	struct us_file_id id;
	__u64 start_ns;
};

#define US_FN_CUT (1u << 0)    /* longer than US_PATH_BYTES or US_PATH_DEPTH components */
#define US_FN_PSEUDO (1u << 1) /* a dentry in no directory: pipe, socket, anon inode */
#define US_FN_UNREAD (1u << 2) /* a component could not be read */
#define US_FN_SOCKET (1u << 3) /* the socket fields are filled */

struct us_file_name {
	__u64 ino;
	__u32 dev, magic, flags;    /* s_dev, s_magic, US_FN_* */
	__u16 mode, components;     /* i_mode; components in path[] */
	__u16 family, sock_type, protocol, lport, rport, pad[3]; /* sockets; ports host order */
	__u8 laddr[16], raddr[16];  /* network order, IPv4 in the first 4 bytes */
	char path[US_PATH_BYTES];
};

/* io_uring UAPI constants the BPF side needs (stable ABI). */
#define US_CQE_F_MORE (1u << 1)
#define US_CQE_F_NOTIF (1u << 3)
#define US_OP_SEND_ZC 47
#define US_OP_SENDMSG_ZC 48
/* Ops whose positive result is bytes moved, one bit per opcode (opcode_moves_data()). */
#define US_DATA_OPS 0x340380024cc00636ull
#define US_ENTER_SQ_WAKEUP (1u << 1)
#define US_ENTER_REGISTERED_RING (1u << 4)
#define US_SETUP_SQPOLL (1u << 1)
#define US_SETUP_DEFER_TASKRUN (1u << 13)
#define US_SETUP_REGISTERED_FD_ONLY (1u << 15)

#endif /* URINGSCOPE_ABI_H */
