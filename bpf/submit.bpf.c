// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Request lifecycle, first half: the submit. Each submit records the request in the
 * in-flight table (keyed by the io_kiocb address, overwritten at every submit because
 * the kernel recycles request structs at once) and in the (ring, user_data) index, where
 * its CQE finds it again (complete.bpf.c).
 *
 * Program variants, one per tracepoint shape (the probe enables exactly one of each):
 *   submit   usc_sub_req      io_uring_submit_req(req)                       6.4+
 *            usc_sub_sqe      io_uring_submit_sqe(req, force_nonblock)       6.0-6.3
 *            usc_sub_sqe_ctx  io_uring_submit_sqe(ctx, req, ... 7 args)      5.15-5.19
 *   failure  usc_req_failed   io_uring_req_failed(sqe, req, error)           6.0+
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include "trace.bpf.h"
#include "check.bpf.h"
#include "boundary_sq.bpf.h"
#include <bpf/bpf_tracing.h>


static __always_inline void track(struct us_inflight *w, __u64 req_addr, __u64 user_data,
				  __u32 ring, __u32 row, __u8 opcode, __u8 state, __u64 now)
{
	w->start_ns = now;
	w->user_data = user_data;
	w->opstat = row;
	w->ring = ring;
	w->opcode = opcode;
	w->state = state;
	w->req = req_addr;
}

static __always_inline bool udata_holds(const struct us_udata_slot *u, __u32 ring,
					__u64 user_data)
{
	return u->ring == ring && u->user_data == user_data;
}

static __always_inline void udata_fill(struct us_udata_slot *u, __u32 ring, __u64 user_data,
				       __u64 req_addr, __u32 flags)
{
	u->user_data = user_data;
	u->ring = ring;
	u->req = req_addr;
	u->flags = flags;
}

/*
 * Files the request under (ring, user_data), for its CQEs that come without a request
 * pointer. A way whose request has ended is free. Two live requests with the same key
 * take both ways (the lookup then refuses to guess between them); a third marks the set
 * crowded. An unrelated live request is displaced only when no way is free, and that
 * is counted (US_TOOL_UDATA_EVICTED), never silent.
 */
static __always_inline void index_by_udata(__u32 ring, __u64 user_data, __u64 req_addr)
{
	__u32 set = udata_set(ring, user_data);
	struct us_udata_slot *u0 = udata_way(set, 0), *u1 = udata_way(set, 1);

	if (!u0 || !u1)
		return;
	/* In this order, so that the common case (the first way's request has ended) costs
	 * one in-flight lookup, not two. */
	if ((udata_holds(u0, ring, user_data) && u0->req == req_addr) || !udata_live(u0)) {
		udata_fill(u0, ring, user_data, req_addr, 0);
		return;
	}
	if ((udata_holds(u1, ring, user_data) && u1->req == req_addr) || !udata_live(u1)) {
		udata_fill(u1, ring, user_data, req_addr, 0);
		return;
	}
	if (udata_holds(u0, ring, user_data) && udata_holds(u1, ring, user_data)) {
		u0->flags |= US_UD_CROWDED;
		u1->flags |= US_UD_CROWDED;
		return;
	}
	tool_count(US_TOOL_UDATA_EVICTED);
	/* Keep a way that shares the key: it is the one this request could be confused with. */
	if (udata_holds(u0, ring, user_data))
		udata_fill(u1, ring, user_data, req_addr, 0);
	else
		udata_fill(u0, ring, user_data, req_addr, 0);
}

/* The ring row of ctx; a ring created before attach (or missed by the fd walk) is
 * adopted here, at its first request. */
static __always_inline __u32 ring_of_request(struct io_ring_ctx *ctx)
{
	struct us_ctx_geometry g = {};
	struct us_ring_seed seed = {};
	__u32 ring = ring_lookup((__u64)ctx);

	if (ring != US_NO_RING)
		return ring;
	ctx_geometry(ctx, &g);
	seed.ctx = (__u64)ctx;
	seed.tgid = current_tgid();
	seed.fd = -1;
	seed.sq_entries = g.sq_entries;
	seed.cq_entries = g.cq_entries;
	seed.setup_flags = g.flags;
	seed.source = US_RING_FROM_SUBMIT;
	seed.sq_tid = (g.flags & US_SETUP_SQPOLL) ? ctx_sqpoll_tid(ctx) : 0;
	return ring_add(&seed, false);
}

/*
 * A submit from an io thread: the ring's SQPOLL thread, which has just taken an SQE.
 * When the thread was not known when the ring got its row (it starts after
 * io_uring_create, or the ring was adopted), learn it here, so its sleeps can be timed;
 * and look at the SQ for the boundary (boundary_sq.bpf.h).
 */
static __always_inline void sqpoll_submit(struct io_ring_ctx *ctx, __u32 ring, __u64 now,
					  bool direct)
{
	struct us_ring_info *info;
	struct us_ring_stats *rs;
	struct us_ring_watch *w;
	__u32 tid;

	if (ring == US_RING_CATCHALL)
		return;
	info = ring_info_row(ring);
	if (!info || !(info->setup_flags & US_SETUP_SQPOLL))
		return;
	if (!info->sq_tid) {
		tid = (__u32)bpf_get_current_pid_tgid();
		info->sq_tid = tid;
		thread_add(tid, info->tgid, US_THREAD_SQPOLL, ring);
	}
	if (!boundary_on)
		return;
	rs = ring_stats_row(ring);
	w = ring_watch_row(ring);
	if (rs && w)
		sq_look(ctx, rs, w, now, direct, true);
}

/* req_addr: the io_kiocb address as a number (see tp_arg_bits). */
static __always_inline void on_submit(struct io_kiocb *req, __u64 req_addr, bool direct)
{
	struct io_ring_ctx *ctx;
	struct us_inflight_bucket *b;
	struct us_inflight *w;
	struct us_opstat *os;
	__u64 flags, user_data, now;
	__u32 ring, row;
	__u8 opcode;

	if (!current_is_target())
		return;
	/* One clock read for the request's start and the boundary's look (read_tsc is a
	 * large share of the whole cost on a virtual machine). */
	now = bpf_ktime_get_ns();
	ctx = req_ctx(req, direct);
	ring = ring_of_request(ctx);
	if (current_is_io_thread())
		sqpoll_submit(ctx, ring, now, direct);
	boundary_look(ctx, ring, now, direct);
	opcode = req_opcode(req, direct);
	row = opstat_for(ring, opcode);
	os = opstat_row(row);
	if (!os)
		return;
	opstat_add(os, US_OC_SUBMITTED, 1, opstat_serial(ring, row));

	b = inflight_bucket(req_addr);
	if (!b)
		return;
	w = inflight_claim(b, req_addr, ring);
	if (!w)
		return;
	flags = req_flags(req, direct);
	user_data = req_user_data(req, direct);
	track(w, req_addr, user_data, ring, row, opcode,
	      req_has_flag(flags, US_RF_CQE_SKIP) ? US_IF_CQE_SKIP : 0, now);
	index_by_udata(ring, user_data, req_addr);
	/* Only tracked requests: their end is seen, so the analysis never holds a stale one. */
	if (check_on)
		check_submit(req, req_addr, ring, opcode, user_data, flags);
	if (trace_on) {
		struct us_trace_args t = { .ts = now, .req = req_addr, .user_data = user_data,
					   .ring = ring, .kind = US_TR_SUBMIT, .opcode = opcode };

		trace_emit(&t);
	}
}

US_PROG("tp_btf/io_uring_submit_req", usc_sub_req, struct io_kiocb *req)
{
	on_submit(req, tp_arg_bits(ctx, 0), true);
	return 0;
}

US_PROG("tp_btf/io_uring_submit_sqe", usc_sub_sqe, struct io_kiocb *req, bool force_nonblock)
{
	on_submit(req, tp_arg_bits(ctx, 0), true);
	return 0;
}

US_PROG("tp_btf/io_uring_submit_sqe", usc_sub_sqe_ctx, void *ring_ctx, void *req)
{
	on_submit(req, (__u64)req, false);
	return 0;
}

/*
 * io_init_req() (prep included) rejected the SQE: the request never fires the submit
 * tracepoint, but still posts a CQE with the error. By then an out-of-range opcode has
 * been reset to 0 in req->opcode, so the opcode comes from the SQE itself.
 */
US_PROG("tp_btf/io_uring_req_failed", usc_req_failed,
	const struct io_uring_sqe *sqe, struct io_kiocb *req, int error)
{
	struct us_inflight_bucket *b;
	struct us_inflight *w;
	struct us_opstat *os;
	__u64 req_addr, user_data;
	__u32 ring, row;
	__u8 opcode;

	if (!current_is_target())
		return 0;
	req_addr = tp_arg_bits(ctx, 1);
	ring = ring_of_request(req->ctx);
	opcode = (__u8)op_slot(sqe->opcode);
	row = opstat_for(ring, opcode);
	os = opstat_row(row);
	if (!os)
		return 0;
	opstat_add(os, US_OC_FAILED, 1, opstat_serial(ring, row));
	b = inflight_bucket(req_addr);
	if (!b)
		return 0;
	user_data = sqe->user_data;
	w = inflight_claim(b, req_addr, ring);
	if (!w)
		return 0;
	track(w, req_addr, user_data, ring, row, opcode, US_IF_FAILED, bpf_ktime_get_ns());
	index_by_udata(ring, user_data, req_addr);
	if (trace_on) {
		struct us_trace_args t = { .req = req_addr, .user_data = user_data, .ring = ring,
					   .res = error, .kind = US_TR_FAILED, .opcode = opcode };

		trace_emit(&t);
	}
	return 0;
}
