// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Poll-arm retries: io_uring_poll_arm fires when a request's nonblocking attempt got
 * -EAGAIN on a pollable file and io_uring armed internal poll to retry it once the file
 * is ready. Normal for sockets and pipes (the data was not there yet); on a regular file
 * it means the file system has no nowait reads and every read takes the slow road.
 * With --files the arm counts on the file's row, and the file is noted under the request
 * (files.bpf.h), since a request waiting on poll may never complete.
 *
 *   usc_poll_arm      (req, mask, events)                                    6.0+
 *   usc_poll_arm_ctx  (ctx, req, opcode|user_data, user_data|opcode, mask, events)
 *                                                                            5.15-5.19
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include "trace.bpf.h"
#include "files.bpf.h"
#include <bpf/bpf_tracing.h>

static __always_inline void on_poll_arm(struct io_kiocb *req, __u64 req_addr, bool direct)
{
	struct us_inflight *w = inflight_find(req_addr);
	struct us_opstat *os;

	if (w)
		set_where(w, US_WHERE_POLL);
	os = req_opstat_row(w, req, direct);
	if (!os)
		return;
	opstat_count(os, US_OC_POLL_ARMED);
	if (req_has_flag(req_flags(req, direct), US_RF_ISREG))
		opstat_count(os, US_OC_POLL_ARMED_REG);
	if (files_on) {
		struct us_filestat *row = file_note_request(req_addr, w, os->ring, os->opcode);

		if (row)
			__sync_fetch_and_add(&row->counters[US_FC_POLL_ARMED], 1);
	}
	if (trace_on) {
		struct us_trace_args t = { .req = req_addr, .ring = os->ring, .kind = US_TR_POLL_ARM,
					   .opcode = (__u8)os->opcode };

		t.user_data = w ? w->user_data : 0;
		trace_emit(&t);
	}
}

US_PROG("tp_btf/io_uring_poll_arm", usc_poll_arm, struct io_kiocb *req, int mask, int events)
{
	on_poll_arm(req, tp_arg_bits(ctx, 0), true);
	return 0;
}

US_PROG("tp_btf/io_uring_poll_arm", usc_poll_arm_ctx, void *ring_ctx, void *req)
{
	on_poll_arm(req, (__u64)req, false);
	return 0;
}
