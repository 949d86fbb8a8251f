// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Request lifecycle, second half: the CQE. Each CQE finds its request again (by the
 * io_kiocb address, or by (ring, user_data) when the tracepoint has no request pointer),
 * counts, and on the final CQE adds the latency to the (ring, opcode) log2 histogram.
 *
 * Program variants, one per tracepoint shape (the probe enables exactly one of each):
 *   complete usc_cqe          io_uring_complete(ctx, req, cqe)               6.13+
 *            usc_cqe_req      io_uring_complete(ctx, req, user_data, res, cflags[, x1, x2])
 *                                                                            5.18-6.12
 *            usc_cqe_old      io_uring_complete(ctx, user_data, res, cflags) 5.15-5.17
 *   overflow usc_cqe_ovf      io_uring_cqe_overflow(ctx, user_data, res, cflags, ocqe)
 *                                                                            5.19+
 */
#include "tables.bpf.h"
#include "bits.bpf.h"
#include "trace.bpf.h"
#include <bpf/bpf_tracing.h>

#define US_EINTR 4
#define US_ECANCELED 125
#define US_ERESTARTSYS 512 /* kernel-internal: a blocked io-wq request interrupted at exit */

static __always_inline void trace_cqe(void *ring_ctx, __u64 req, __u64 user_data, __u32 ring,
				      __u8 opcode, __s32 res, __u32 cflags)
{
	struct us_trace_args t = { .req = req, .user_data = user_data, .ring = ring, .res = res,
				   .cflags = cflags, .kind = US_TR_COMPLETE, .opcode = opcode };

	t.aux = cq_depth(ring_ctx);
	trace_emit(&t);
}

static __always_inline void record_latency(struct us_opstat *os, __u64 lat)
{
	__sync_fetch_and_add(&os->hist[hist_slot(lat)], 1);
	__sync_fetch_and_add(&os->counters[US_OC_LAT_SUM_NS], lat);
	/* A lost race here only under-reports the max by one concurrent sample. */
	if (lat > os->counters[US_OC_LAT_MAX_NS])
		os->counters[US_OC_LAT_MAX_NS] = lat;
}

/* Per-(ring, op, errno) counts, so the report can name the codes behind an error rate. */
static __always_inline void count_errno(const struct us_opstat *os, __s32 res)
{
	struct us_errno_key key = {
		.ring = os->ring,
		.opcode = (__u16)os->opcode,
		.err = (__u16)(-res),
	};
	__u64 one = 1, *n;

	n = bpf_map_lookup_elem(&errnos, &key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return;
	}
	if (!bpf_map_update_elem(&errnos, &key, &one, BPF_NOEXIST))
		return;
	n = bpf_map_lookup_elem(&errnos, &key); /* another CPU inserted it first */
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		tool_count(US_TOOL_ERRNO_FULL);
}

static __always_inline void count_cqe(struct us_opstat *os, __s32 res, __u32 cflags)
{
	opstat_count(os, US_OC_COMPLETED);
	if (res < 0 && res != -US_EAGAIN) {
		opstat_count(os, US_OC_ERRORS);
		count_errno(os, res);
	}
	if (cflags & US_CQE_F_MORE)
		opstat_count(os, US_OC_MULTISHOT_CQES);
}

/* A cancellation posted because the request's ring or owner is being torn down: by the
 * exiting task, a kworker running the ring's exit work, or an io-wq worker whose
 * blocking call the teardown interrupted. */
static __always_inline bool abandoned_cqe(void *ring_ctx, __s32 res)
{
	if (res != -US_ECANCELED && res != -US_EINTR && res != -US_ERESTARTSYS)
		return false;
	return current_is_teardown() || ctx_is_dying(ring_ctx);
}

/*
 * A CQE of a request we saw submitted. The final CQE (no F_MORE) ends it, except when
 * the kernel posts it because the owner exited: that request was abandoned, not
 * completed, and stays in the table for the leak scan.
 */
static __always_inline void complete_tracked(void *ring_ctx, struct us_inflight *w, __s32 res,
					     __u32 cflags)
{
	struct us_opstat *os = opstat_row(w->opstat);

	if (!os)
		return;
	count_cqe(os, res, cflags);
	if (trace_on)
		trace_cqe(ring_ctx, w->req, w->user_data, w->ring, w->opcode, res, cflags);
	if (cflags & US_CQE_F_MORE)
		return;
	if (abandoned_cqe(ring_ctx, res)) {
		opstat_count(os, US_OC_CANCELLED_AT_EXIT);
		w->state |= US_IF_ABANDONED;
		return;
	}
	/* A request rejected before issue has no latency worth a sample. */
	if (!(w->state & US_IF_FAILED))
		record_latency(os, bpf_ktime_get_ns() - w->start_ns);
	w->req = 0;
}

/* The in-flight entry of a CQE that came without a request pointer. */
static __always_inline struct us_inflight *find_by_udata(__u32 ring, __u64 user_data)
{
	struct us_udata_slot *u = udata_slot(ring, user_data);
	struct us_inflight *w;

	if (!u || u->ring != ring || u->user_data != user_data)
		return NULL;
	w = inflight_find(u->req);
	return w && w->user_data == user_data ? w : NULL;
}

/*
 * A CQE on a target ring for a request we never saw submitted: submitted before attach,
 * failed before submit (io_uring_req_failed), or evicted from the table.
 */
static __always_inline void complete_untracked(void *ring_ctx, __u32 ring, __u64 req_addr,
					       __s32 res, __u32 cflags)
{
	struct us_opstat *os;
	__u8 opcode;

	if (!req_addr) {
		ring_count(ring, US_RC_UNTRACKED_CQES, 1);
		if (trace_on)
			trace_cqe(ring_ctx, 0, 0, ring, US_OP_OTHER, res, cflags);
		return;
	}
	opcode = req_opcode((struct io_kiocb *)req_addr, false);
	os = opstat_row(opstat_for(ring, opcode));
	if (!os)
		return;
	count_cqe(os, res, cflags);
	if (trace_on)
		trace_cqe(ring_ctx, req_addr, 0, ring, (__u8)op_slot(opcode), res, cflags);
	opstat_count(os, US_OC_UNTRACKED);
	if (abandoned_cqe(ring_ctx, res))
		opstat_count(os, US_OC_CANCELLED_AT_EXIT);
}

/*
 * req_addr is 0 for CQEs without a request: aux CQEs (multishot intermediates on 6.13+,
 * MSG_RING targets) and every CQE on 5.15-5.17. Those are found by (ring, user_data).
 */
static __always_inline void on_complete(void *ctx, __u64 req_addr, __u64 user_data, __s32 res,
					__u32 cflags)
{
	struct us_inflight *w;
	__u32 ring;

	if (req_addr) {
		w = inflight_find(req_addr);
		if (w && w->user_data == user_data) {
			complete_tracked(ctx, w, res, cflags);
			return;
		}
	}
	ring = ring_lookup((__u64)ctx);
	if (ring == US_NO_RING)
		return;
	w = req_addr ? NULL : find_by_udata(ring, user_data);
	if (w)
		complete_tracked(ctx, w, res, cflags);
	else
		complete_untracked(ctx, ring, req_addr, res, cflags);
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(usc_cqe, void *ring_ctx, void *req, struct io_uring_cqe *cqe)
{
	on_complete(ring_ctx, (__u64)req, cqe->user_data, cqe->res, cqe->flags);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(usc_cqe_req, void *ring_ctx, void *req, __u64 user_data, int res, unsigned int cflags)
{
	on_complete(ring_ctx, (__u64)req, user_data, res, cflags);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(usc_cqe_old, void *ring_ctx, __u64 user_data, int res, unsigned int cflags)
{
	on_complete(ring_ctx, 0, user_data, res, cflags);
	return 0;
}

/*
 * On 6.1+ an overflowed CQE fires only this event, never io_uring_complete, so it is the
 * request's completion: without this every overflow would look like a leak. (In
 * 5.19-6.0 code both fired for one CQE; the tracked request is then already gone here
 * and only the overflow is counted.)
 */
SEC("tp_btf/io_uring_cqe_overflow")
int BPF_PROG(usc_cqe_ovf, void *ring_ctx, __u64 user_data, __s32 res, __u32 cflags, void *ocqe)
{
	__u32 ring = ring_lookup((__u64)ring_ctx);
	struct us_inflight *w;

	if (ring == US_NO_RING)
		return 0;
	ring_count(ring, US_RC_CQ_OVERFLOWS, 1);
	w = find_by_udata(ring, user_data);
	if (w)
		complete_tracked(ring_ctx, w, res, cflags);
	else
		tool_count(US_TOOL_OVERFLOW_NO_REQ);
	return 0;
}
