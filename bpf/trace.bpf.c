// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * --trace only: the moment a request is picked up to be issued. io_uring_file_get fires
 * when the issuing thread assigns the request's file (since 5.18 at issue time, so for a
 * punted request inside the io-wq worker that runs it): the worker's tid is what puts
 * the request on its track. Fixed files emit nothing, and 5.15-5.17 fire it at submit.
 * Issues on other threads than io threads are inline and emit nothing: the submit
 * record says the same (a page-cache read pays two records, not three).
 *
 *   usc_file_get     io_uring_file_get(req, fd)   6.0+
 *   usc_trace_flush  run by userspace on each CPU before a drain (below)
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include "trace.bpf.h"
#include <bpf/bpf_tracing.h>

US_PROG("tp_btf/io_uring_file_get", usc_file_get, struct io_kiocb *req, int fd)
{
	struct us_trace_args t = { .kind = US_TR_ISSUE };
	struct us_inflight *w;

	/* Only a hop to an io thread (an io-wq worker picking a punted request up) is news:
	 * an inline issue happens on the submitting thread, at its submit record. */
	if (!trace_on || !current_is_io_thread())
		return 0;
	w = inflight_find(tp_arg_bits(ctx, 0));
	if (!w)
		return 0;
	t.req = w->req;
	t.user_data = w->user_data;
	t.ring = w->ring;
	t.opcode = w->opcode;
	trace_emit(&t);
	return 0;
}

/*
 * Not attached: userspace runs it on every CPU before each drain (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU, an IPI), so the records a CPU staged before it went idle leave
 * with the drain instead of waiting for that CPU's next event. The interrupt may land
 * inside trace_emit on that CPU: then it leaves the stage alone and says so.
 */
SEC("raw_tp")
int usc_trace_flush(void *ctx)
{
	__u32 zero = 0;
	struct us_trace_batch *st = bpf_map_lookup_elem(&trace_stage, &zero);

	if (!st)
		return 0;
	if (__sync_lock_test_and_set(&st->staging, 1))
		return US_TRACE_FLUSH_BUSY;
	trace_stage_flush(st);
	barrier();
	st->staging = 0;
	return 0;
}
