// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * liburing's exported calls, where a target maps a shared liburing.so.2: uprobes the
 * loader attaches at run time (src/loader/liburing_probes.cpp), the exact source beside
 * the rings' indices (boundary.bpf.h). Calls that liburing inlines (io_uring_peek_cqe()
 * with a CQE ready, io_uring_cqe_seen()) and programs without a shared liburing pass
 * none of these; the indices see them all the same.
 *
 *   usc_lu_submit[_ret]  io_uring_submit(), io_uring_submit_and_wait(),
 *                        io_uring_submit_and_get_events(): the SQEs each call submitted
 *   usc_lu_get[_ret]     __io_uring_get_cqe(), io_uring_wait_cqes(),
 *                        io_uring_wait_cqe_timeout(), io_uring_submit_and_wait_timeout():
 *                        the CQE handed to the program
 *   usc_lu_batch[_ret]   io_uring_peek_batch_cqe(): the CQEs handed, the first
 *                        US_LU_BATCH_LOOK looked at
 *
 * A handed CQE whose post time the boundary kept (its CQ slot, from the cqe pointer and
 * cq.cqes, and the head) gives that CQE's reap lag exactly: post to the program holding it.
 * The ring is struct io_uring's ring_fd, resolved through the thread's fd table like an
 * io_uring_enter() argument. Entry and return pair up by thread; a call that nests
 * another of these (io_uring_wait_cqe_timeout() calls io_uring_wait_cqes()) is counted
 * once, by the inner return, which takes the entry.
 */
#include "tables.bpf.h"
#include "boundary.bpf.h"
#include <bpf/bpf_tracing.h>

struct us_lu_call {
	__u64 uring; /* the program's struct io_uring * */
	__u64 out;   /* struct io_uring_cqe ** (get) or the cqes[] array (batch) */
	__u32 ring;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct us_lu_call);
} lu_calls SEC(".maps");

static __always_inline __u32 lu_ring(__u64 uring)
{
	struct file *file;
	int fd;

	if (bpf_probe_read_user(&fd, sizeof(fd), (void *)(uring + US_LU_RING_FD_OFF)) || fd < 0)
		return US_NO_RING;
	file = enter_fd_file((__u32)fd, false);
	if (!file)
		return US_NO_RING;
	return ring_lookup((__u64)BPF_CORE_READ(file, private_data));
}

static __always_inline int lu_enter(__u64 uring, __u64 out)
{
	struct us_lu_call call = { .uring = uring, .out = out };
	__u32 tid;

	if (!current_is_target())
		return 0;
	call.ring = lu_ring(uring);
	if (call.ring == US_NO_RING || call.ring == US_RING_CATCHALL)
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&lu_calls, &tid, &call, BPF_ANY);
	return 0;
}

/* The thread's call, taken out of the table; its ring's row. */
static __always_inline struct us_ring_stats *lu_take(struct us_lu_call *call)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct us_lu_call *c = bpf_map_lookup_elem(&lu_calls, &tid);

	if (!c)
		return NULL;
	*call = *c;
	bpf_map_delete_elem(&lu_calls, &tid);
	return ring_stats_row(call->ring);
}

/* The program holds the CQE at `cqe` now: its exact reap lag, from the post time the
 * boundary kept for its CQ index. */
static __always_inline void lu_handed(const struct us_lu_call *call, struct us_ring_stats *rs,
				      __u64 cqe, __u64 now)
{
	struct us_ring_watch *w = ring_watch_row(call->ring);
	struct us_cq_posts *posts = cq_posts_row(call->ring);
	struct us_ring_info *info;
	__u64 cqes, next;
	__u32 flags, slot, head, pos;
	__s64 lag;

	__sync_fetch_and_add(&rs->counters[US_RC_LU_CQES_HANDED], 1);
	if (!boundary_on || !w || !posts || !reap_watching(w))
		return;
	if (bpf_probe_read_user(&cqes, sizeof(cqes), (void *)(call->uring + US_LU_CQ_CQES_OFF)) ||
	    bpf_probe_read_user(&flags, sizeof(flags), (void *)(call->uring + US_LU_FLAGS_OFF)))
		return;
	info = ring_info_row(call->ring);
	if (!info || !info->ctx || !info->cq_entries || cqe < cqes)
		return;
	slot = (__u32)((cqe - cqes) >> ((flags & US_SETUP_CQE32) ? 5 : 4));
	/* A CQE handed over is not reaped yet: its index is the first at or past the head
	 * that lands in its slot. */
	head = cq_head((struct io_ring_ctx *)info->ctx, false);
	pos = head + ((slot - head) & (info->cq_entries - 1));
	/* Once per CQE: a program may be handed the same CQE again before it marks it seen. */
	next = w->lu_next;
	if (next && (__s32)(pos - (__u32)next) < 0)
		return;
	lag = cq_post_age(posts, pos, now);
	if (lag < 0)
		return;
	w->lu_next = US_REAP_ON | (pos + 1);
	__sync_fetch_and_add(&rs->lu_reap_hist[hist_slot((__u64)lag)], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_LU_REAPS], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_LU_REAP_SUM_NS], (__u64)lag);
	counter_max(&rs->counters[US_RC_LU_REAP_MAX_NS], (__u64)lag);
}

SEC("uprobe")
int BPF_KPROBE(usc_lu_submit, void *uring)
{
	return lu_enter((__u64)uring, 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(usc_lu_submit_ret, int ret)
{
	struct us_lu_call call;
	struct us_ring_stats *rs = lu_take(&call);

	if (!rs || ret < 0)
		return 0;
	__sync_fetch_and_add(&rs->counters[US_RC_LU_SUBMIT_CALLS], 1);
	__sync_fetch_and_add(&rs->counters[US_RC_LU_SUBMIT_SQES], ret);
	counter_max(&rs->counters[US_RC_LU_SUBMIT_MAX], ret);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(usc_lu_get, void *uring, void *cqe_ptr)
{
	return lu_enter((__u64)uring, (__u64)cqe_ptr);
}

SEC("uretprobe")
int BPF_KRETPROBE(usc_lu_get_ret, int ret)
{
	struct us_lu_call call;
	struct us_ring_stats *rs = lu_take(&call);
	__u64 cqe = 0;

	if (!rs || ret < 0 || !call.out)
		return 0;
	if (bpf_probe_read_user(&cqe, sizeof(cqe), (void *)call.out) || !cqe)
		return 0;
	lu_handed(&call, rs, cqe, bpf_ktime_get_ns());
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(usc_lu_batch, void *uring, void *cqes)
{
	return lu_enter((__u64)uring, (__u64)cqes);
}

SEC("uretprobe")
int BPF_KRETPROBE(usc_lu_batch_ret, unsigned int ret)
{
	struct us_lu_call call;
	struct us_ring_stats *rs = lu_take(&call);
	__u64 now, cqe;
	__u32 i;

	if (!rs || !ret || !call.out)
		return 0;
	now = bpf_ktime_get_ns();
	for (i = 0; i < US_LU_BATCH_LOOK; i++) {
		if (i >= ret)
			return 0;
		if (bpf_probe_read_user(&cqe, sizeof(cqe), (void *)(call.out + i * sizeof(__u64))))
			return 0;
		lu_handed(&call, rs, cqe, now);
	}
	/* The rest of a long batch is counted, not looked at. */
	__sync_fetch_and_add(&rs->counters[US_RC_LU_CQES_HANDED], ret - US_LU_BATCH_LOOK);
	return 0;
}
