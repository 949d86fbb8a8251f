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
 *            usc_cqe_ud      io_uring_complete(ctx, user_data, res, cflags) 5.15-5.17
 *   overflow usc_cqe_ovf      io_uring_cqe_overflow(ctx, user_data, res, cflags, ocqe)
 *                                                                            5.19+
 *
 * CQEs without a request pointer first take the request io_req_post_cqe was posting
 * them for (aux_req.bpf.h), then fall back to the (ring, user_data) index.
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include "bits.bpf.h"
#include "trace.bpf.h"
#include "check.bpf.h"
#include "boundary_cqe.bpf.h"
#include "aux_req.bpf.h"
#include "cqe_counts.bpf.h"
#include "files.bpf.h"
#include <bpf/bpf_tracing.h>

#define US_EINTR 4
#define US_ECANCELED 125
#define US_ERESTARTSYS 512 /* kernel-internal: a blocked io-wq request interrupted at exit */

/* ts: the CQE program's own clock read, or 0 where it has none. direct: ring_ctx is a
 * BTF-typed pointer (on_complete's), read with plain loads instead of probe reads. */
static __always_inline void trace_cqe(void *ring_ctx, bool direct, __u64 req, __u64 user_data,
				      __u32 ring, __u8 opcode, __s32 res, __u32 cflags, __u64 ts)
{
	struct us_trace_args t = { .ts = ts, .req = req, .user_data = user_data, .ring = ring,
				   .res = res, .cflags = cflags, .kind = US_TR_COMPLETE,
				   .opcode = opcode };

	t.aux = cq_depth(ring_ctx, direct);
	trace_emit(&t);
}

/*
 * The result CQE of a zero-copy send (it has F_MORE: a notification follows): the
 * request moves to its (ring, user_data) key, since its io_kiocb is freed now. A second
 * send already waiting under that key makes both ambiguous: they share one entry that
 * the next two notifications end, with no latency sample.
 */
static __always_inline void zc_wait_for_notif(const struct us_cqe_row *r, struct us_inflight *w,
					      __u64 now)
{
	struct us_inflight moved = *w;
	struct us_inflight_bucket *b;
	struct us_inflight *z;
	__u64 key = zc_key(w->ring, w->user_data), since;

	if (elapsed_since(w->start_ns, now, &since)) {
		opstat_add(r->os, US_OC_ZC_RESULTS, 1, r->serial);
		opstat_add(r->os, US_OC_ZC_RESULT_SUM_NS, since, r->serial);
	}
	w->req = 0;
	z = zc_waiting(moved.ring, moved.user_data);
	if (z) {
		/* US_IF_FAILED: "its CQE carries no latency", which is now true of both. */
		tool_count(US_TOOL_ZC_AMBIGUOUS);
		if (z->state & US_IF_ZC_SHARED)
			tool_count(US_TOOL_ZC_AMBIGUOUS);
		z->state |= US_IF_ZC_SHARED | US_IF_FAILED;
		return;
	}
	b = inflight_bucket(key);
	if (!b)
		return;
	z = inflight_claim(b, key, moved.ring);
	if (!z)
		return;
	moved.req = key;
	moved.state = (moved.state & ~US_IF_WHERE_MASK) | US_IF_ZC_WAIT;
	*z = moved;
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

/* The final CQE of a tracked request: its latency, and its way is free again. A request
 * rejected before issue has no latency worth a sample. Returns the latency recorded, or
 * US_NO_LATENCY. */
static __always_inline __u64 end_tracked(const struct us_cqe_row *r, struct us_inflight *w,
					 __u64 now)
{
	__u64 lat = US_NO_LATENCY;

	if (w->state & US_IF_FAILED || !elapsed_since(w->start_ns, now, &lat) ||
	    !record_latency(r, lat))
		lat = US_NO_LATENCY;
	w->req = 0;
	return lat;
}

/* The CQE on its file's row: each one counts, the final one ends the request there. A
 * zero-copy send ends at its result CQE on the file (its notification CQE has no
 * request to read the file from), without a latency. */
static __always_inline void file_count_tracked(const struct us_file_req *r, __s32 res,
					       __u32 cflags, __u64 lat)
{
	struct us_file_hit hit = {};

	if (!files_on || (r->state & US_IF_ZC_WAIT))
		return;
	file_cqe(&hit, r->req, r->ring, r->opcode, res);
	if (!(cflags & US_CQE_F_MORE) || is_zero_copy_send(r->opcode))
		file_end(&hit, r->state, true, lat);
}

/*
 * A CQE of a request we saw submitted. The final CQE (no F_MORE) ends it, except when
 * the kernel posts it because the owner exited: that request was abandoned, not
 * completed, and stays in the table for the leak scan.
 */
static __always_inline void complete_tracked(void *ring_ctx, bool direct, struct us_inflight *w,
					     __s32 res, __u32 cflags, __u64 now)
{
	struct us_cqe_row row = cqe_row(w->ring, w->opstat, w->opcode);
	/* Read before the request ends: once its way is free a new submit may rewrite it. */
	struct us_file_req seen = { w->req, w->ring, w->opcode, w->state };

	if (!row.os)
		return;
	count_cqe(&row, res, cflags);
	if (trace_on)
		trace_cqe(ring_ctx, direct, w->req, w->user_data, w->ring, w->opcode, res, cflags, now);
	if (cflags & US_CQE_F_MORE) {
		file_count_tracked(&seen, res, cflags, US_NO_LATENCY);
		if (is_zero_copy_send(w->opcode) && !(w->state & US_IF_ZC_WAIT))
			zc_wait_for_notif(&row, w, now);
		return;
	}
	if (check_on)
		check_end(w->req, w->ring, w->opcode);
	if (abandoned_cqe(ring_ctx, res)) {
		opstat_add(row.os, US_OC_CANCELLED_AT_EXIT, 1, row.serial);
		w->state |= US_IF_ABANDONED;
		return;
	}
	file_count_tracked(&seen, res, cflags, end_tracked(&row, w, now));
}

/*
 * The in-flight entry of a CQE that came without a request pointer, by (ring, user_data).
 * When two live requests share the key the CQE could be either's: it is attributed to
 * neither, and counted (US_TOOL_UDATA_AMBIGUOUS) rather than guessed.
 */
static __always_inline struct us_inflight *find_by_udata(__u32 ring, __u64 user_data)
{
	__u32 set = udata_set(ring, user_data);
	struct us_udata_slot *u0 = udata_way(set, 0), *u1 = udata_way(set, 1);
	struct us_inflight *w0 = NULL, *w1 = NULL;

	if (!u0 || !u1)
		return NULL;
	if (u0->ring == ring && u0->user_data == user_data)
		w0 = udata_live(u0);
	if (u1->ring == ring && u1->user_data == user_data)
		w1 = udata_live(u1);
	if ((w0 && (w1 || (u0->flags & US_UD_CROWDED))) || (w1 && (u1->flags & US_UD_CROWDED))) {
		tool_count(US_TOOL_UDATA_AMBIGUOUS);
		return NULL;
	}
	return w0 ? w0 : w1;
}

/*
 * A CQE on a target ring for a request we never saw submitted: submitted before attach,
 * failed before submit (io_uring_req_failed), or evicted from the table.
 */
static __always_inline void complete_untracked(void *ring_ctx, bool direct, __u32 ring,
					       __u64 req_addr, __s32 res, __u32 cflags)
{
	struct us_cqe_row row;
	__u8 opcode;

	if (!req_addr) {
		ring_count(ring, US_RC_UNTRACKED_CQES, 1);
		if (trace_on)
			trace_cqe(ring_ctx, direct, 0, 0, ring, US_OP_OTHER, res, cflags, 0);
		return;
	}
	opcode = req_opcode((struct io_kiocb *)req_addr, false);
	row = cqe_row(ring, opstat_for(ring, opcode), opcode);
	if (!row.os)
		return;
	count_cqe(&row, res, cflags);
	if (trace_on)
		trace_cqe(ring_ctx, direct, req_addr, 0, ring, (__u8)op_slot(opcode), res, cflags, 0);
	opstat_add(row.os, US_OC_UNTRACKED, 1, row.serial);
	if (files_on && req_addr) {
		struct us_file_hit hit = {};

		file_cqe(&hit, req_addr, ring, opcode, res);
		if (!(cflags & US_CQE_F_MORE))
			file_end(&hit, 0, false, US_NO_LATENCY);
	}
	if (abandoned_cqe(ring_ctx, res))
		opstat_add(row.os, US_OC_CANCELLED_AT_EXIT, 1, row.serial);
}

/*
 * A notification CQE (IORING_CQE_F_NOTIF): the zero-copy send it belongs to is done with
 * the user's buffer, and this ends it. It is posted by an internal io_kiocb that the
 * program never submitted (a NOP to the kernel), so it is matched by (ring, user_data),
 * never counted under NOP, and its res (0, or the ZC_COPIED usage bit) is no error.
 */
static __always_inline void on_zc_notif(void *ring_ctx, bool direct, __u32 ring,
					__u64 user_data, __s32 res, __u32 cflags, __u64 now)
{
	struct us_inflight *w = zc_waiting(ring, user_data);
	struct us_cqe_row row;

	if (!w) {
		tool_count(US_TOOL_NOTIF_NO_REQ);
		ring_count(ring, US_RC_UNTRACKED_CQES, 1);
		if (trace_on)
			trace_cqe(ring_ctx, direct, 0, user_data, ring, US_OP_OTHER, res, cflags, 0);
		return;
	}
	row = cqe_row(w->ring, w->opstat, w->opcode);
	if (!row.os)
		return;
	opstat_add(row.os, US_OC_COMPLETED, 1, row.serial);
	opstat_add(row.os, US_OC_ZC_NOTIFS, 1, row.serial);
	if (trace_on)
		trace_cqe(ring_ctx, direct, 0, user_data, ring, w->opcode, res, cflags, now);
	if (w->state & US_IF_ZC_SHARED) {
		w->state &= ~US_IF_ZC_SHARED; /* the other send's notification is still owed */
		return;
	}
	end_tracked(&row, w, now);
}

/* The tracked request behind req_addr, if its entry still names this user_data (an
 * io_kiocb is reused as soon as its request ends). */
static __always_inline struct us_inflight *tracked_by_req(__u64 req_addr, __u64 user_data)
{
	struct us_inflight *w = inflight_find(req_addr);

	return w && w->user_data == user_data ? w : NULL;
}

/*
 * direct: ctx is the 6.13+ tracepoint's typed io_ring_ctx pointer, which the boundary
 * loads from without probe reads (boundary.bpf.h's cq_head()).
 *
 * req_addr is 0 for CQEs without a request: aux CQEs (multishot intermediates, MSG_RING
 * targets) and every CQE on 5.15-5.17. Those take the request io_req_post_cqe left, if
 * any, and are otherwise found by (ring, user_data).
 */
static __always_inline void on_complete(void *ctx, bool direct, __u64 req_addr,
					__u64 user_data, __s32 res, __u32 cflags)
{
	struct us_inflight *w;
	bool by_aux = false;
	__u32 ring;
	__u64 now;

	if ((boundary_on || trace_on) && cqe_order == US_CQE_ORDER_UNKNOWN)
		cqe_order_learn(ctx, user_data);
	if (cflags & US_CQE_F_NOTIF) {
		ring = ring_lookup((__u64)ctx);
		if (ring != US_NO_RING) {
			now = bpf_ktime_get_ns();
			boundary_cqe(ctx, ring, direct, now);
			on_zc_notif(ctx, direct, ring, user_data, res, cflags, now);
		}
		return;
	}
	if (!req_addr) {
		req_addr = aux_req_take(ctx, user_data);
		by_aux = req_addr != 0;
	}
	if (req_addr) {
		w = tracked_by_req(req_addr, user_data);
		if (w) {
			if (by_aux)
				ring_count(w->ring, US_RC_AUX_BY_REQ, 1);
			/* One clock read for the latency and the boundary. */
			now = bpf_ktime_get_ns();
			boundary_cqe(ctx, w->ring, direct, now);
			complete_tracked(ctx, direct, w, res, cflags, now);
			return;
		}
	}
	ring = ring_lookup((__u64)ctx);
	if (ring == US_NO_RING)
		return;
	w = req_addr ? NULL : find_by_udata(ring, user_data);
	now = w || boundary_on ? bpf_ktime_get_ns() : 0;
	boundary_cqe(ctx, ring, direct, now);
	if (w)
		complete_tracked(ctx, direct, w, res, cflags, now);
	else
		complete_untracked(ctx, direct, ring, req_addr, res, cflags);
}

US_PROG("tp_btf/io_uring_complete", usc_cqe,
	struct io_ring_ctx *ring_ctx, void *req, struct io_uring_cqe *cqe)
{
	on_complete(ring_ctx, true, (__u64)req, cqe->user_data, cqe->res, cqe->flags);
	return 0;
}

US_PROG("tp_btf/io_uring_complete", usc_cqe_req,
	void *ring_ctx, void *req, __u64 user_data, int res, unsigned int cflags)
{
	on_complete(ring_ctx, false, (__u64)req, user_data, res, cflags);
	return 0;
}

US_PROG("tp_btf/io_uring_complete", usc_cqe_ud,
	void *ring_ctx, __u64 user_data, int res, unsigned int cflags)
{
	on_complete(ring_ctx, false, 0, user_data, res, cflags);
	return 0;
}

/*
 * On 6.1+ an overflowed CQE fires only this event, never io_uring_complete, so it is the
 * request's completion: without this every overflow would look like a leak. (In
 * 5.19-6.0 code both fired for one CQE; the tracked request is then already gone here
 * and only the overflow is counted.)
 */
US_PROG("tp_btf/io_uring_cqe_overflow", usc_cqe_ovf,
	void *ring_ctx, __u64 user_data, __s32 res, __u32 cflags, void *ocqe)
{
	__u32 ring = ring_lookup((__u64)ring_ctx);
	struct us_inflight *w;
	__u64 req;

	if (ring == US_NO_RING)
		return 0;
	ring_count(ring, US_RC_CQ_OVERFLOWS, 1);
	if (cflags & US_CQE_F_NOTIF) {
		on_zc_notif(ring_ctx, false, ring, user_data, res, cflags, bpf_ktime_get_ns());
		return 0;
	}
	req = aux_req_take(ring_ctx, user_data);
	w = req ? tracked_by_req(req, user_data) : find_by_udata(ring, user_data);
	if (w && req)
		ring_count(ring, US_RC_AUX_BY_REQ, 1);
	if (w)
		complete_tracked(ring_ctx, false, w, res, cflags, bpf_ktime_get_ns());
	else
		tool_count(US_TOOL_OVERFLOW_NO_REQ);
	return 0;
}
