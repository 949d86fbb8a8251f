/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Catchers: the events the kernel skips a program for, handled by a second copy of it.
 *
 * The kernel runs a raw tracepoint program only if the same program is not already
 * running on that CPU; otherwise it skips the event and counts a recursion miss. Up to
 * 6.18 a tracepoint runs its programs with preemption disabled, so only an interrupt can
 * nest and the io_uring tracepoints do not fire from one while a program of ours runs.
 * From 6.19 (SRCU-guarded tracepoints; seen on the matrix's 7.2) a tracepoint
 * runs BPF programs with migration disabled only: where the kernel preempts (full or
 * lazy, every 7.x x86-64 and arm64 build), a task preempted inside usc_sub_req makes the
 * kernel skip usc_sub_req for every other task that submits on that CPU until it runs
 * again, and those requests are lost. Disabling preemption inside the program does not
 * help: the preemption it defers happens at the enable, still inside.
 *
 * US_PROG(section, name, args...) is BPF_PROG plus a catcher, name##_catch, attached to
 * the same tracepoint after it, with the same body. The first program marks the event as
 * its own on entry (catch_on, set by userspace where the probe loads the catchers); the
 * catcher runs the body only for an event that is not marked, i.e. one the kernel
 * skipped the first program for, and counts it in US_TOOL_MISSES_CAUGHT. An event is
 * lost only if the kernel skips both copies.
 *
 * An event is known by its task, its program and the address of the argument array the
 * kernel hands the programs: the tracepoint builds it on the task's stack, at the same
 * address for both copies of one event. A task handles its events of one tracepoint one
 * at a time (an interrupt runs its own on another stack), so the catcher's check also
 * clears the mark for the next.
 */
#ifndef URINGSCOPE_CATCH_BPF_H
#define URINGSCOPE_CATCH_BPF_H

#include "state.bpf.h"
#include <bpf/bpf_tracing.h>

#define US_CATCH_SLOTS 4096 /* marks by (task, program); two share a slot 1 in 4096 */

struct us_catch_mark {
	__u64 args; /* the event's argument array */
	__u32 tid;
	__u32 prog; /* US_PROG_ID of the program */
};

struct us_catch_marks_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_CATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct us_catch_mark);
};

extern struct us_catch_marks_map catch_marks SEC(".maps");
/* The catchers are loaded: the first programs mark their events. Off, the marks are
 * dead code the verifier drops. */
extern const volatile bool catch_on;

/*
 * A program's number: FNV-1a of its name, folded by the compiler. Marks are kept per
 * program because an interrupt can run another program's event on top of a task between
 * the two copies of one of its own; the argument arrays tell the events apart too, but a
 * pointer cannot be hashed (the verifier refuses arithmetic on it), only compared.
 */
#define US_FNV_CHAR(s, i) ((i) < sizeof(s) - 1 ? (__u8)(s)[(i) < sizeof(s) ? (i) : 0] : 0)
#define US_FNV_STEP(s, i, h) (((h) ^ US_FNV_CHAR(s, i)) * 16777619u)
#define US_FNV4(s, i, h)                                                                      \
	US_FNV_STEP(s, (i) + 3, US_FNV_STEP(s, (i) + 2, US_FNV_STEP(s, (i) + 1, US_FNV_STEP(s, i, h))))
#define US_PROG_ID(name)                                                                      \
	US_FNV4(#name, 20, US_FNV4(#name, 16, US_FNV4(#name, 12, US_FNV4(#name, 8,             \
		US_FNV4(#name, 4, US_FNV4(#name, 0, 2166136261u))))))

static __always_inline struct us_catch_mark *catch_mark_of(__u32 tid, __u32 prog)
{
	__u32 slot = ((tid * 0x9E3779B1u) ^ prog) & (US_CATCH_SLOTS - 1);

	return bpf_map_lookup_elem(&catch_marks, &slot);
}

static __always_inline void catch_mark(void *args, __u32 prog)
{
	struct us_catch_mark *m;
	__u32 tid;

	/* First: off, the helper call below must not run either (the compiler cannot drop a
	 * helper call on its own, the verifier drops only the code behind the check). */
	if (!catch_on)
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	m = catch_mark_of(tid, prog);
	if (!m)
		return;
	m->tid = tid;
	m->prog = prog;
	m->args = (__u64)args;
}

/* True when the first program ran for this event; its mark is cleared for the next. */
static __always_inline bool catch_handled(void *args, __u32 prog)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct us_catch_mark *m = catch_mark_of(tid, prog);

	if (m && m->tid == tid && m->prog == prog && m->args == (__u64)args) {
		m->args = 0;
		return true;
	}
	tool_count(US_TOOL_MISSES_CAUGHT);
	return false;
}

#define US_PROG(section, name, args...)						\
static __always_inline int ____##name(unsigned long long *ctx, ##args);		\
SEC(section) int name(unsigned long long *ctx)					\
{										\
	catch_mark(ctx, US_PROG_ID(name));					\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")			\
	return ____##name(___bpf_ctx_cast(args));				\
	_Pragma("GCC diagnostic pop")						\
}										\
SEC(section) int name##_catch(unsigned long long *ctx)				\
{										\
	if (catch_handled(ctx, US_PROG_ID(name)))				\
		return 0;							\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")			\
	return ____##name(___bpf_ctx_cast(args));				\
	_Pragma("GCC diagnostic pop")						\
}										\
static __always_inline int ____##name(unsigned long long *ctx, ##args)

#endif /* URINGSCOPE_CATCH_BPF_H */
