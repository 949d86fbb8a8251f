// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Request lifecycle: submit -> CQE. Each submit records the request in the in-flight
 * table (keyed by the io_kiocb address, overwritten at every submit because the kernel
 * recycles request structs at once) and in the (ring, user_data) index; each CQE finds
 * it again, counts, and on the final CQE adds the latency to the (ring, opcode) log2
 * histogram.
 *
 * Program variants, one per tracepoint shape (the probe enables exactly one of each):
 *   submit   usc_sub_req      io_uring_submit_req(req)                       6.4+
 *            usc_sub_sqe      io_uring_submit_sqe(req, force_nonblock)       6.0-6.3
 *            usc_sub_sqe_old  io_uring_submit_sqe(ctx, req, ... 7 args)      5.15-5.19
 *   complete usc_cqe          io_uring_complete(ctx, req, cqe)               6.13+
 *            usc_cqe_req      io_uring_complete(ctx, req, user_data, res, cflags[, x1, x2])
 *                                                                            5.18-6.12
 *            usc_cqe_old      io_uring_complete(ctx, user_data, res, cflags) 5.15-5.17
 *   overflow usc_cqe_ovf      io_uring_cqe_overflow(ctx, user_data, res, cflags, ocqe)
 *                                                                            5.19+
 */
#include "state.bpf.h"
#include "bits.bpf.h"
#include <bpf/bpf_tracing.h>

static __always_inline struct us_inflight *inflight_claim(struct us_inflight_bucket *b, __u64 req)
{
	struct us_inflight *w;

	if (b->way[0].req == req)
		return &b->way[0];
	if (b->way[1].req == req)
		return &b->way[1];
	if (!b->way[0].req)
		return &b->way[0];
	if (!b->way[1].req)
		return &b->way[1];
	/* Both ways hold live requests: evict the older and say so. */
	w = b->way[0].start_ns <= b->way[1].start_ns ? &b->way[0] : &b->way[1];
	if (!(w->state & US_IF_CQE_SKIP))
		ring_count(w->ring, US_RC_INFLIGHT_DROPS, 1);
	return w;
}

/* req_addr: the io_kiocb address as a number (see tp_arg_bits). */
static __always_inline void on_submit(struct io_kiocb *req, __u64 req_addr, bool direct)
{
	struct us_inflight_bucket *b;
	struct us_udata_slot *u;
	struct us_inflight *w;
	struct us_opstat *os;
	struct io_ring_ctx *ctx;
	__u64 flags, user_data;
	__u32 ring, row;
	__u8 opcode;

	if (!current_is_target())
		return;
	ctx = req_ctx(req, direct);
	ring = ring_lookup((__u64)ctx);
	if (ring == US_NO_RING) {
		/* A ring created before attach (or missed by the fd walk): adopt it now. */
		struct us_ctx_geometry g = {};
		struct us_ring_seed seed = {};

		ctx_geometry(ctx, &g);
		seed.ctx = (__u64)ctx;
		seed.tgid = bpf_get_current_pid_tgid() >> 32;
		seed.fd = -1;
		seed.sq_entries = g.sq_entries;
		seed.cq_entries = g.cq_entries;
		seed.setup_flags = g.flags;
		seed.source = US_RING_FROM_SUBMIT;
		ring = ring_add(&seed, false);
	}
	opcode = req_opcode(req, direct);
	row = opstat_for(ring, opcode);
	os = opstat_row(row);
	if (!os)
		return;
	opstat_count(os, US_OC_SUBMITTED);

	b = inflight_bucket(req_addr);
	if (!b)
		return;
	w = inflight_claim(b, req_addr);
	flags = req_flags(req, direct);
	user_data = req_user_data(req, direct);
	w->start_ns = bpf_ktime_get_ns();
	w->user_data = user_data;
	w->opstat = row;
	w->ring = ring;
	w->opcode = opcode;
	w->state = req_has_flag(flags, US_RF_CQE_SKIP) ? US_IF_CQE_SKIP : 0;
	w->req = req_addr;

	u = udata_slot(ring, user_data);
	if (u) {
		u->user_data = user_data;
		u->ring = ring;
		u->req = req_addr;
	}
}

static __always_inline void record_latency(struct us_opstat *os, __u64 lat)
{
	__sync_fetch_and_add(&os->hist[hist_slot(lat)], 1);
	__sync_fetch_and_add(&os->counters[US_OC_LAT_SUM_NS], lat);
	/* A lost race here only under-reports the max by one concurrent sample. */
	if (lat > os->counters[US_OC_LAT_MAX_NS])
		os->counters[US_OC_LAT_MAX_NS] = lat;
}

static __always_inline void count_cqe(struct us_opstat *os, __s32 res, __u32 cflags)
{
	opstat_count(os, US_OC_COMPLETED);
	if (res < 0 && res != -US_EAGAIN)
		opstat_count(os, US_OC_ERRORS);
	if (cflags & US_CQE_F_MORE)
		opstat_count(os, US_OC_MULTISHOT_CQES);
}

/* A CQE of a request we saw submitted. The final CQE (no F_MORE) ends it. */
static __always_inline void complete_tracked(struct us_inflight *w, __s32 res, __u32 cflags)
{
	struct us_opstat *os = opstat_row(w->opstat);

	if (!os)
		return;
	count_cqe(os, res, cflags);
	if (cflags & US_CQE_F_MORE)
		return;
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
static __always_inline void complete_untracked(__u32 ring, __u64 req_addr, __s32 res,
					       __u32 cflags)
{
	struct us_opstat *os;

	if (!req_addr) {
		ring_count(ring, US_RC_UNTRACKED_CQES, 1);
		return;
	}
	os = opstat_row(opstat_for(ring, req_opcode((struct io_kiocb *)req_addr, false)));
	if (!os)
		return;
	count_cqe(os, res, cflags);
	opstat_count(os, US_OC_UNTRACKED);
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
			complete_tracked(w, res, cflags);
			return;
		}
	}
	ring = ring_lookup((__u64)ctx);
	if (ring == US_NO_RING)
		return;
	w = req_addr ? NULL : find_by_udata(ring, user_data);
	if (w)
		complete_tracked(w, res, cflags);
	else
		complete_untracked(ring, req_addr, res, cflags);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(usc_sub_req, struct io_kiocb *req)
{
	on_submit(req, tp_arg_bits(ctx, 0), true);
	return 0;
}

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(usc_sub_sqe, struct io_kiocb *req, bool force_nonblock)
{
	on_submit(req, tp_arg_bits(ctx, 0), true);
	return 0;
}

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(usc_sub_sqe_old, void *ring_ctx, void *req)
{
	on_submit(req, (__u64)req, false);
	return 0;
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
		complete_tracked(w, res, cflags);
	else
		tool_count(US_TOOL_OVERFLOW_NO_REQ);
	return 0;
}
