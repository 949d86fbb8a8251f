/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Constants only the BPF programs use: userspace neither reads nor writes what they
 * describe (bpf/uringscope.h is what crosses). #defines and nothing else, so that
 * test/unit can check the liburing offsets against liburing.h.
 */
#ifndef URINGSCOPE_CONSTANTS_BPF_H
#define URINGSCOPE_CONSTANTS_BPF_H

/* io_uring UAPI flags. They are #defines, absent from BTF and so from vmlinux.h (the
 * opcodes and register operations are enums: the programs take those from vmlinux.h). */
#define US_CQE_F_MORE (1u << 1)
#define US_CQE_F_NOTIF (1u << 3)
#define US_ENTER_SQ_WAKEUP (1u << 1)
#define US_ENTER_REGISTERED_RING (1u << 4)
#define US_SETUP_SQPOLL (1u << 1)
#define US_SETUP_CQE32 (1u << 11)
#define US_SETUP_DEFER_TASKRUN (1u << 13)
#define US_SETUP_REGISTERED_FD_ONLY (1u << 15)

/* liburing.so.2's struct io_uring on LP64 (stable across 2.x), as the uprobes read it
 * from the program's memory; test/unit checks it against liburing.h. */
#define US_LU_CQ_CQES_OFF 152 /* struct io_uring_cqe *cq.cqes */
#define US_LU_FLAGS_OFF 192   /* unsigned flags (IORING_SETUP_*) */
#define US_LU_RING_FD_OFF 196 /* int ring_fd */
#define US_LU_BATCH_LOOK 8    /* io_uring_peek_batch_cqe(): CQEs of a batch looked at */

/* The ring's timer (boundary_timer.bpf.h) looks every US_REAP_TICK_NS (bpf/uringscope.h)
 * for 32 ticks, then every 1/US_REAP_TICK_BACKOFF of the age of what it waits for, at
 * most US_REAP_TICK_MAX_NS: the resolution stays a small share of the lag, and a CQE
 * left unreaped for minutes costs a few timer runs a second, not a thousand. */
#define US_REAP_TICK_BACKOFF 32
#define US_REAP_TICK_MAX_NS 1000000000ull

/* How a ring's CQ post times are kept (US_CQ_POSTS, ring_watch.bpf.h). */
#define US_CQ_POST_SHIFT 7 /* log2(US_CQ_POSTS) */
#define US_CQ_POST_NS_BITS 52
#define US_CQ_POST_NS_MASK ((1ull << US_CQ_POST_NS_BITS) - 1)
/* reap_next (ring_watch.bpf.h): the CQ index in the low 32 bits, the state above. */
#define US_REAP_ON (1ull << 32)                      /* accounting from the index on */
#define US_REAP_CLAIMED (1ull << 33)                 /* a CPU accounts up to the index */
#define US_REAP_BUSY (US_REAP_CLAIMED | US_REAP_ON)
#define US_REAP_OFF (1ull << 34)                 /* the ring is torn down */
#define US_REAP_TEARDOWN_TRIES 512               /* reads of a claim held at teardown */

/* --trace: a CPU's staged records go out at the first emit after the oldest turned this
 * old (trace.bpf.h), so a quiet CPU holds them back at most this long plus one drain. */
#define US_TRACE_STAGE_AGE_NS 1000000ull

/* --files: a path walk's limits (file_names.bpf.c). A component longer than
 * US_PATH_NAME_MAX, or a path deeper than US_PATH_DEPTH, makes the name US_FN_CUT. */
#define US_PATH_NAME_MAX 256 /* one component, NUL included */
#define US_PATH_DEPTH 32     /* components walked before a path counts as cut */

/* Sizes of the tables userspace leaves as they are: per-(ring, opcode, errno) counts, and
 * the processes whose io-wq workers were seen. */
#define US_DEFAULT_ERRNO_ENTRIES 4096
#define US_DEFAULT_WORKER_PROCS 4096

/* --check: iovecs of a vectored request checked; the rest are counted as
 * US_TOOL_CHECK_UNSEEN. */
#define US_CHECK_MAX_IOVECS 8

#endif /* URINGSCOPE_CONSTANTS_BPF_H */
