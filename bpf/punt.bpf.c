// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Punts to io-wq: io_uring_queue_async_work fires in io_queue_iowq() just before the
 * request is handed to a worker, in the context of whoever punts it.
 *
 *   usc_punt          (req, int rw)                                        6.0+
 *   usc_punt_ctx_req  (ctx, req, user_data, opcode, flags, work, int rw)   5.18-5.19
 *   usc_punt_ctx_rw   (ctx, int rw, req, work, flags)                      5.15-5.17
 *
 * rw is io_wq_is_hashed(): 1 when the work is serialized per inode (buffered writes).
 *
 * The reason is read off the request at that moment, in this order: REQ_F_FORCE_ASYNC
 * (IOSQE_ASYNC: no inline attempt was made; with it the file may not even be assigned
 * yet, so nothing else can be told), hashed work, a regular file (the nonblocking
 * buffered attempt could not be served from the page cache), anything else (the
 * nonblocking attempt returned -EAGAIN and no poll could be armed).
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include "trace.bpf.h"
#include "files.bpf.h"
#include <bpf/bpf_tracing.h>

static __always_inline enum us_op_counter punt_reason(__u64 flags, int hashed)
{
	if (req_has_flag(flags, US_RF_FORCE_ASYNC))
		return US_OC_PUNT_FORCED;
	if (hashed)
		return US_OC_PUNT_HASHED;
	if (req_has_flag(flags, US_RF_ISREG))
		return US_OC_PUNT_REGFILE;
	return US_OC_PUNT_EAGAIN;
}

static __always_inline void on_punt(struct io_kiocb *req, __u64 req_addr, int hashed, bool direct)
{
	struct us_inflight *w = inflight_find(req_addr);
	enum us_op_counter reason;
	struct us_opstat *os;

	if (w) {
		w->state |= US_IF_PUNTED;
		set_where(w, US_WHERE_IOWQ);
	}
	os = req_opstat_row(w, req, direct);
	if (!os)
		return;
	reason = punt_reason(req_flags(req, direct), hashed);
	opstat_count(os, US_OC_PUNTED);
	opstat_count(os, reason);
	/* A request blocked in io-wq may never complete: note its file while it has one. */
	if (files_on)
		file_note_request(req_addr, w, os->ring, os->opcode);
	if (trace_on) {
		struct us_trace_args t = { .req = req_addr, .ring = os->ring, .aux = reason,
					   .kind = US_TR_PUNT, .opcode = (__u8)os->opcode };

		t.user_data = w ? w->user_data : 0;
		trace_emit(&t);
	}
}

US_PROG("tp_btf/io_uring_queue_async_work", usc_punt, struct io_kiocb *req, int rw)
{
	on_punt(req, tp_arg_bits(ctx, 0), rw, true);
	return 0;
}

US_PROG("tp_btf/io_uring_queue_async_work", usc_punt_ctx_req, void *ring_ctx, void *req,
	__u64 user_data, __u8 opcode, unsigned int flags, void *work, int rw)
{
	on_punt(req, (__u64)req, rw, false);
	return 0;
}

US_PROG("tp_btf/io_uring_queue_async_work", usc_punt_ctx_rw, void *ring_ctx, int rw, void *req)
{
	on_punt(req, (__u64)req, rw, false);
	return 0;
}
