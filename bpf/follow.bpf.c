// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * -f: a process forked by a target becomes a target, in the kernel, at the fork, so
 * nothing the child does is missed. New threads share their process's tgid and need no
 * entry. io-wq and SQPOLL threads do not come through here (create_io_thread() does not
 * fire sched_process_fork) and need none either.
 *
 * A process that exits stops being a target, so that a process which later gets its
 * recycled pid does not join.
 *
 *   usc_fork       sched_process_fork(parent, child)
 *   usc_fork_exit  sched_process_exit(task, ...)
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include <bpf/bpf_tracing.h>

static __always_inline void set_target_bit(__u32 tgid, bool on)
{
	__u32 word = tgid >> 6;
	__u64 *bits = bpf_map_lookup_elem(&targets, &word);

	if (!bits)
		return;
	if (on)
		__sync_fetch_and_or(bits, 1ull << (tgid & 63));
	else
		__sync_fetch_and_and(bits, ~(1ull << (tgid & 63)));
}

US_PROG("tp_btf/sched_process_fork", usc_fork,
	struct task_struct *parent, struct task_struct *child)
{
	if (!follow_forks || child->pid != child->tgid)
		return 0;
	if (!is_target_tgid(task_tgid(parent)))
		return 0;
	set_target_bit(task_tgid(child), true);
	return 0;
}

/*
 * The last thread of a process exits (signal->live has just dropped to zero; the
 * tracepoint fires after that in do_exit()). The processes given on the command line
 * end the window when they exit, so clearing theirs too loses nothing: what the kernel
 * does for their rings afterwards (teardown cancellations) is attributed by ring.
 */
US_PROG("tp_btf/sched_process_exit", usc_fork_exit, struct task_struct *task)
{
	__u32 tgid = task_tgid(task);
	__u8 one = 1;

	if (!follow_forks || !is_target_tgid(tgid) || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	bpf_map_update_elem(&followed_exited, &tgid, &one, BPF_ANY);
	set_target_bit(tgid, false);
	return 0;
}
