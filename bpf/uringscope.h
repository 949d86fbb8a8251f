/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The ABI between uringscope's BPF programs and its userspace: the layouts of what userspace
 * reads or writes (map values, records, .bss and .rodata), their indices and flags, and the
 * defaults of the sizes it sets. Nothing else crosses; what the programs keep to themselves
 * is in bpf/state.bpf.h and bpf/constants.bpf.h. Plain __u32/__u64, no includes: BPF gets
 * the types from vmlinux.h, userspace from <linux/types.h> (include/uringscope/abi.h).
 */
#ifndef URINGSCOPE_ABI_H
#define URINGSCOPE_ABI_H

/* Latency histograms: slot i counts [2^i, 2^(i+1)) ns, slot 0 also 0 ns; the last
 * (2^39 ns, about 9 minutes) also everything longer. */
#define US_HIST_SLOTS 40

/* Opcode slots (IORING_OP_LAST is 63 on 6.18): an opcode at or beyond US_OP_OTHER, the
 * last, is counted there. */
#define US_OP_SLOTS 80
#define US_OP_OTHER (US_OP_SLOTS - 1)

/* Table sizes: userspace sets the real ones before load and mirrors them into .rodata.
 * Ring and opstat row 0 is the catch-all when the table is full. In-flight buckets and
 * (ring, user_data) slots are powers of two (bpf/state.bpf.h says how they are used). */
#define US_DEFAULT_MAX_RINGS 1024
#define US_DEFAULT_OPSTAT_SLOTS 4096
#define US_DEFAULT_INFLIGHT_BUCKETS 32768
#define US_DEFAULT_UDATA_SLOTS 65536
#define US_DEFAULT_THREAD_ENTRIES 8192
#define US_RING_CATCHALL 0
#define US_OPSTAT_CATCHALL 0

/* A ring whose teardown ended, queued for userspace to copy out, clear and give back. */
struct us_retired {
	__u32 row;
	__u32 pad;
	__u64 ns; /* bpf_ktime_get_ns() when the teardown ended */
};

/* struct us_ring_stats counters (per-op numbers are in struct us_opstat). */
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
	US_RC_LOCAL_TW_PENDING_NS, /* ktime local task work waits since, 0: none (not a count) */
	US_RC_LOCAL_TW_LAG_MAX_NS, /* longest wait from queueing to a local_work_run */
	US_RC_SQPOLL_OFFCPU_NS,   /* time the ring's SQPOLL thread spent switched out */
	US_RC_SQPOLL_OUT_NS,      /* ktime of its current switch-out, 0 while on CPU */
	US_RC_SQPOLL_SLEEPS,      /* voluntary switch-outs (idle sleeps) of that thread */
	US_RC_SQPOLL_PREEMPTS,    /* involuntary ones */
	/* Every CQE from its post until the CQ head is seen past it (boundary.bpf.h): */
	US_RC_REAPS,              /* CQEs seen reaped, their post time known */
	US_RC_REAP_LAG_SUM_NS,    /* ... sum of post -> first sight of the head past it */
	US_RC_REAP_LAG_MAX_NS,
	US_RC_REAP_GAP_SUM_NS,    /* ... sum of last-unreaped -> reaped sighting gaps (resolution) */
	US_RC_REAP_GAP_MAX_NS,
	US_RC_REAP_LO_MAX_NS,     /* the largest lower bound (lag - gap) */
	US_RC_REAP_TICKS,         /* timer looks at a quiet ring's waiting CQEs */
	US_RC_REAP_UNTIMED,       /* CQEs seen reaped whose post time was not kept */
	US_RC_REAP_NEVER,         /* CQEs still unreaped when their ring was torn down */
	US_RC_REAP_NEVER_MAX_NS,  /* ... the oldest one's age then */
	US_RC_AUX_BY_REQ,         /* pointer-less CQEs matched by io_req_post_cqe's request */
	/* SQPOLL rings, one SQE at a time from first sighting to taken (boundary_sq.bpf.h): */
	US_RC_SQ_WAITS,           /* watched SQEs seen taken */
	US_RC_SQ_WAIT_SUM_NS,     /* ... sum of first sighting -> taken */
	US_RC_SQ_WAIT_MAX_NS,
	US_RC_SQ_RES_SUM_NS,      /* ... sum of their resolutions (since the look before) */
	US_RC_SQ_RES_MAX_NS,
	US_RC_SQ_TICKS,           /* timer looks at the SQ ring while its poller was off-CPU */
	US_RC_SQ_TAKEN_UNSEEN,    /* SQEs taken, none watched, before a look saw them: waits of 0 */
	/* liburing's exported calls, where a target maps a shared liburing (liburing.bpf.c): */
	US_RC_LU_SUBMIT_CALLS,    /* io_uring_submit*() calls that returned >= 0 */
	US_RC_LU_SUBMIT_SQES,     /* ... the SQEs they returned as submitted */
	US_RC_LU_SUBMIT_MAX,      /* ... the most in one call */
	US_RC_LU_CQES_HANDED,     /* CQEs handed to the program by its waiting/batch calls */
	US_RC_LU_REAPS,           /* ... of which the boundary kept the post time: exact reap lag */
	US_RC_LU_REAP_SUM_NS,
	US_RC_LU_REAP_MAX_NS,
	/* The CQ ring's indices (boundary.bpf.h), sampled at each CQE posted. */
	US_RC_CQ_DEPTH_SAMPLES,   /* CQEs sampled */
	US_RC_CQ_DEPTH_SUM,       /* ... sum of the CQEs ready and not reaped, this one included */
	US_RC_CQ_DEPTH_MAX,
	US_RC__COUNT,
};

/* Whether io_uring_complete fires before the cached CQ tail counts the CQE (it moved
 * between releases): learnt from a NOP of uringscope's own after attach (cqe_order.h). */
enum us_cqe_order {
	US_CQE_ORDER_UNKNOWN,
	US_CQE_ORDER_BEFORE_TAIL,
	US_CQE_ORDER_IN_TAIL,
};

#define US_REAP_TICK_NS 1000000ull /* the boundary timer's first tick: its resolution */
#define US_CQ_POSTS 128u /* CQEs of a ring whose post times are kept (boundary.bpf.h) */

/* Rows of this and us_opstat are whole cache lines (in page-aligned tables). */
struct us_ring_stats {
	__u64 counters[US_RC__COUNT];
	__u64 reap_hist[US_HIST_SLOTS]; /* reap lag of the CQEs, log2 ns slots */
	__u64 sq_wait_hist[US_HIST_SLOTS]; /* SQ wait of the watched SQEs, log2 ns slots */
	__u64 lu_reap_hist[US_HIST_SLOTS]; /* CQEs' post -> handed over by liburing */
	__u64 reap_lo_hist[US_HIST_SLOTS]; /* lower bounds: post -> last seen unreaped */
} __attribute__((aligned(64)));

/* Per (ring, opcode) counters: those written at submit and issue, then from byte 128 those
 * written where CQEs are posted, often another CPU (one line would move twice a request). */
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
	US_OC_ZC_RESULTS,     /* zero-copy sends whose result CQE (F_MORE) came; the
			       * notification CQE that follows ends the request */
	US_OC_ZC_RESULT_SUM_NS, /* ... sum of their submit-to-result-CQE times */
	US_OC_ZC_NOTIFS,      /* IORING_CQE_F_NOTIF CQEs matched to their send */
	US_OC_BYTES,          /* sum of positive results of ops in US_DATA_OPS: bytes moved */
	US_OC__COUNT,
};

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
	__u32 retired;     /* set by the first path to retire the row: it is queued once */
};

/* struct us_inflight.state bits. */
#define US_IF_PUNTED (1u << 0)    /* went to io-wq at some point */
#define US_IF_CQE_SKIP (1u << 1)  /* IOSQE_CQE_SKIP_SUCCESS: success posts no CQE */
#define US_IF_FAILED (1u << 2)    /* rejected before issue: its CQE carries no latency */
#define US_IF_ABANDONED (1u << 3) /* cancelled by the kernel because its owner exited */
#define US_IF_ZC_WAIT (1u << 6)   /* zero-copy send waiting for its notification, by its
				   * (ring, user_data): its io_kiocb is reused at once */
#define US_IF_ZC_SHARED (1u << 7) /* ... and another with that key too (US_TOOL_ZC_AMBIGUOUS) */
/* Where the request was last seen waiting (bits 4-5): a leak or a legitimate wait. */
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

struct us_inflight_bucket { /* one cache line */
	struct us_inflight way[2];
};

/* Per-(ring, opcode, errno) error counts, for the top error codes of each op. */
struct us_errno_key {
	__u32 ring;
	__u16 opcode;
	__u16 err; /* positive errno */
};

#define US_THREAD_SQPOLL 1u /* struct us_thread.kind: the targets' io threads */
#define US_THREAD_WORKER 2u
struct us_thread {
	__u32 tgid;
	__u32 kind; /* US_THREAD_* */
	__u32 ring; /* SQPOLL threads: their ring's row */
	__u32 pad;
	__u64 first_ns;
};

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
	US_TOOL_ZC_AMBIGUOUS,    /* zero-copy sends sharing a (ring, user_data): no latency */
	US_TOOL_NOTIF_NO_REQ,    /* notification CQEs whose send was not tracked */
	US_TOOL_LATENCY_TORN,    /* latency samples discarded: the entry changed under us */
	US_TOOL_UDATA_AMBIGUOUS, /* pointer-less CQEs whose (ring, user_data) two or more live
				  * requests share: not attributed */
	US_TOOL_UDATA_EVICTED,   /* live requests pushed out of the (ring, user_data) index by
				  * others: a pointer-less CQE of theirs would be untracked */
	US_TOOL_CHECK_DROPS,     /* --check records lost: the check buffer was full */
	US_TOOL_CHECK_UNSEEN,    /* --check: iovecs past the eighth, or unreadable: unchecked */
	US_TOOL_FILES_FULL,      /* CQEs left out of the per-file rows: that table was full */
	US_TOOL_NAMES_FULL,      /* files left unnamed: the file name table was full */
	US_TOOL_KERNEL_MISSES,   /* the kernel's recursion misses, written by userspace only */
	US_TOOL_MISSES_CAUGHT,   /* of those, events a catcher handled (catch.bpf.h): not lost */
	US_TOOL__COUNT,
};

/* REQ_F_* bits move between kernels in an enum CO-RE cannot relocate: userspace looks
 * them up in BTF into .rodata req_bit[] (-1: no such bit). */
enum us_req_flag {
	US_RF_FORCE_ASYNC, /* IOSQE_ASYNC (bit 4 everywhere, looked up anyway) */
	US_RF_CQE_SKIP,    /* IOSQE_CQE_SKIP_SUCCESS (bit 6) */
	US_RF_ISREG,       /* file is a regular file */
	US_RF__COUNT,
};

/* --trace: one record per request event, through a BPF ring buffer in per-CPU batches
 * drained on a timer; a full buffer drops the batch (US_TOOL_TRACE_DROPS). */
enum us_trace_kind {
	US_TR_SUBMIT = 1,   /* request submitted (submitter or SQPOLL thread) */
	US_TR_PUNT = 2,     /* handed to io-wq (aux = punt reason, US_OC_PUNT_*) */
	US_TR_ISSUE = 3,    /* a thread (an io-wq worker, when punted) took its file to issue
			     * it (io_uring_file_get; fixed files emit none) */
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

/* Records are staged per CPU and reach trace_rb in batches of up to US_TRACE_BATCH (one
 * reservation each); usc_trace_flush, which userspace runs on each CPU at every drain,
 * sends a CPU's stage out early, so an idle CPU does not hold records back. */
#define US_TRACE_BATCH 32

/* One trace_rb record: `count` events, then nothing (the record is cut after them). */
struct us_trace_batch {
	__u32 count;
	__u32 staging;   /* in the stage: a program on its CPU is writing it (not for readers) */
	__u64 first_ts;  /* ts of ev[0] */
	struct us_trace_event ev[US_TRACE_BATCH];
};

#define US_TRACE_FLUSH_BUSY 1 /* usc_trace_flush: the stage was being written, try again */

/* --check: the memory each request targets, when it stops, and what the program does to
 * memory and registered buffers meanwhile, via check_rb (drops: US_TOOL_CHECK_DROPS). */
enum us_check_kind {
	US_CK_RANGE = 1,  /* a request targets [addr, addr + len) (one record per iovec) */
	US_CK_END = 2,    /* the request posted its final CQE (or was cancelled): done */
	US_CK_UNMAP = 3,  /* [addr, addr + len) unmapped, moved, or dropped by madvise() */
	US_CK_BUFREG = 4, /* io_uring_register() changing a ring's registered buffers */
};

#define US_CKF_INTO (1u << 0)  /* RANGE: the kernel writes this memory (reads, receives) */
#define US_CKF_FIXED (1u << 1) /* RANGE: a registered buffer; `index` is its index */
#define US_CKF_MORE (1u << 2)  /* RANGE: a later iovec of a request already recorded */

/* UNMAP: which call, in `opcode`; for mremap(), what it did, in `aux`. */
#define US_CK_MUNMAP 0
#define US_CK_MADVISE 1
#define US_CK_MREMAP 2
#define US_CK_MREMAP_MOVED 1
#define US_CK_MREMAP_SHRUNK 2

struct us_check_event {
	__u64 ts;        /* bpf_ktime_get_ns() */
	__u64 req;       /* RANGE, END: io_kiocb address */
	__u64 user_data; /* RANGE */
	__u64 addr;      /* RANGE, UNMAP: user address; END (--files): inode address or 0 */
	__u64 len;       /* RANGE, UNMAP: bytes; BUFREG: buffers (0 = all); END: inode number */
	__u32 ring;      /* RANGE, BUFREG: ring row */
	__u32 tgid;      /* of the thread it happened on, in uringscope's pid namespace */
	__u16 kind;      /* enum us_check_kind */
	__u8 opcode;     /* RANGE: IORING_OP_*; UNMAP: US_CK_*; BUFREG: IORING_(UN)REGISTER_* */
	__u8 flags;      /* RANGE: US_CKF_* */
	__u16 index;     /* RANGE: iovec, or buffer with US_CKF_FIXED; BUFREG: first buffer */
	__u16 pad;
	__u32 aux;       /* UNMAP: madvise advice or US_CK_MREMAP_*; END: i_generation */
	__u32 ring_gen;  /* RANGE: low 32 bits of the ring's first_ns, which ring held the row */
};

#define US_DEFAULT_CHECK_BYTES (8u << 20)

/* Per-file attribution (files.bpf.h): a row per (ring, opcode, file), the file known by
 * its inode's address, number and generation (a file reopened a thousand times is one
 * row, a new file in a recycled inode another), named once, at its first CQE. */
#define US_DEFAULT_FILE_ROWS 4096
#define US_DEFAULT_FILE_NAMES 4096
#define US_PATH_BYTES 768    /* the path's components, leaf first, each NUL-terminated */

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

/* The file of a request in flight, noted at its poll arm or punt, so that a request that
 * never completes (LEAK) can name it. By io_kiocb address; start_ns, the in-flight
 * entry's, tells a recycled io_kiocb's older note from the newer request's. */
#define US_DEFAULT_REQ_FILES 4096
struct us_req_file {
	struct us_file_id id;
	__u64 start_ns;
};

#define US_FN_CUT (1u << 0)    /* longer than US_PATH_BYTES, a component or the walk too long */
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

/* Ops whose positive result is bytes moved, one bit per opcode (opcode_moves_data()). */
#define US_DATA_OPS 0x340380024cc00636ull

#endif /* URINGSCOPE_ABI_H */
