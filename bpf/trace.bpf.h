/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * --trace: one us_trace_event per request event. Every caller tests trace_on first, a
 * .rodata constant, so with tracing off the verifier removes the call and the default
 * mode's cost does not change.
 *
 * Events are staged per CPU and go to trace_rb in batches (struct us_trace_batch in
 * uringscope.h says when). A reservation per record cost more than the rest of the
 * record (measured on NOPs: __bpf_ringbuf_reserve alone ~45 ns a record, most of it the
 * reader's consumer position bouncing between CPUs); a batch pays it once per 32. Batches
 * are submitted with BPF_RB_NO_WAKEUP: userspace drains on a timer instead of being woken.
 */
#ifndef URINGSCOPE_TRACE_BPF_H
#define URINGSCOPE_TRACE_BPF_H

#include "tables.bpf.h"

struct us_trace_args {
	__u64 ts;  /* the caller's clock read, if it has one (0: read it here) */
	__u64 req;
	__u64 user_data;
	__u32 ring;
	__s32 res;
	__u32 cflags;
	__u32 aux;
	__u16 kind;
	__u8 opcode;
};

static __always_inline void trace_fill(struct us_trace_event *e, const struct us_trace_args *a,
				       __u64 ts)
{
	/* Loads through the task's BTF pointer instead of a helper call per field; a comm
	 * being renamed at this moment may come out torn, which names a track oddly. */
	struct task_struct *task = bpf_get_current_task_btf();

	e->ts = ts;
	e->req = a->req;
	e->user_data = a->user_data;
	e->ring = a->ring;
	e->tgid = task_tgid(task);
	e->tid = task->pid;
	e->res = a->res;
	e->cflags = a->cflags;
	e->aux = a->aux;
	e->kind = a->kind;
	e->opcode = a->opcode;
	e->pad = 0;
	e->pad2 = 0;
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));
}

/* The stage's events as one record; a full ring buffer loses them all, counted. The
 * caller owns the stage (its `staging` flag is set). */
static __always_inline void trace_stage_flush(struct us_trace_batch *st)
{
	__u32 n = st->count;

	if (n == 0 || n > US_TRACE_BATCH)
		return;
	if (bpf_ringbuf_output(&trace_rb, st,
			       offsetof(struct us_trace_batch, ev) + n * sizeof(struct us_trace_event),
			       BPF_RB_NO_WAKEUP))
		tool_add(US_TOOL_TRACE_DROPS, n);
	st->count = 0;
}

/* An emit that finds its CPU's stage taken (it interrupted another emit or, on
 * PREEMPT_RT, preempted one) cannot touch it: its record goes out alone, a batch of one. */
static __noinline void trace_emit_alone(const struct us_trace_args *a, __u64 ts)
{
	struct us_trace_batch *b = bpf_ringbuf_reserve(
		&trace_rb, offsetof(struct us_trace_batch, ev) + sizeof(struct us_trace_event), 0);

	if (!b) {
		tool_count(US_TOOL_TRACE_DROPS);
		return;
	}
	b->count = 1;
	b->staging = 0;
	b->first_ts = ts;
	trace_fill(&b->ev[0], a, ts);
	bpf_ringbuf_submit(b, BPF_RB_NO_WAKEUP);
}

static __always_inline void trace_emit(const struct us_trace_args *a)
{
	/* The submit and CQE programs read the clock already: one read less per record. */
	__u64 ts = a->ts ? a->ts : bpf_ktime_get_ns();
	__u32 zero = 0, n;
	struct us_trace_batch *st = bpf_map_lookup_elem(&trace_stage, &zero);

	if (!st)
		return;
	/* Taken with an exchange, not a test and a store: an interrupt on this CPU (or, on a
	 * PREEMPT_RT kernel, where these programs run preemptible, another task) may come
	 * between the two. Whoever finds it taken sends its record alone. */
	if (__sync_lock_test_and_set(&st->staging, 1)) {
		trace_emit_alone(a, ts);
		return;
	}
	/* Below US_TRACE_BATCH already (a full stage goes out at once, and a flush empties it
	 * even when the ring buffer is full): the mask is for the verifier. */
	n = st->count & (US_TRACE_BATCH - 1);
	if (n == 0)
		st->first_ts = ts;
	trace_fill(&st->ev[n], a, ts);
	st->count = n + 1;
	if (n + 1 == US_TRACE_BATCH || ts - st->first_ts >= US_TRACE_STAGE_AGE_NS)
		trace_stage_flush(st);
	barrier();
	st->staging = 0;
}

#endif /* URINGSCOPE_TRACE_BPF_H */
