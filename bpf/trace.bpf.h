/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * --trace: one us_trace_event per request event into the trace_rb ring buffer. Every
 * caller tests trace_on first, a .rodata constant, so with tracing off the verifier
 * removes the call and the default mode's cost does not change.
 *
 * Records are submitted with BPF_RB_NO_WAKEUP: userspace drains on a timer instead of
 * being woken per record, which is what makes per-request streaming affordable (the
 * wakeup, not the copy, is the expensive part).
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

static __always_inline void trace_emit(const struct us_trace_args *a)
{
	struct us_trace_event *e = bpf_ringbuf_reserve(&trace_rb, sizeof(*e), 0);
	struct task_struct *task;

	if (!e) {
		tool_count(US_TOOL_TRACE_DROPS);
		return;
	}
	/* The submit and CQE programs read the clock already: one read less per record. */
	e->ts = a->ts ? a->ts : bpf_ktime_get_ns();
	e->req = a->req;
	e->user_data = a->user_data;
	e->ring = a->ring;
	e->tgid = current_tgid();
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->res = a->res;
	e->cflags = a->cflags;
	e->aux = a->aux;
	e->kind = a->kind;
	e->opcode = a->opcode;
	e->pad = 0;
	e->pad2 = 0;
	/* Two loads through the task's BTF pointer instead of a helper call per record; a
	 * comm being renamed at this moment may come out torn, which names a track oddly. */
	task = bpf_get_current_task_btf();
	__builtin_memcpy(e->comm, task->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* CQEs waiting for the program in the CQ ring: posted (cached tail) minus reaped (head). */
static __always_inline __u32 cq_depth(struct io_ring_ctx *ctx)
{
	__u32 tail = BPF_CORE_READ(ctx, cached_cq_tail);
	__u32 head = BPF_CORE_READ(ctx, rings, cq.head);

	return tail - head;
}

#endif /* URINGSCOPE_TRACE_BPF_H */
