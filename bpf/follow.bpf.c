// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * -f: a process forked by a target becomes a target, in the kernel, at the fork, so
 * nothing the child does is missed. New threads share their process's tgid and need no
 * entry. io-wq and SQPOLL threads do not come through here (create_io_thread() does not
 * fire sched_process_fork) and need none either.
 *
 *   usc_fork  sched_process_fork(parent, child)
 */
#include "tables.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("tp_btf/sched_process_fork")
int BPF_PROG(usc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid, word;
	__u64 *bits;

	if (!follow_forks || child->pid != child->tgid)
		return 0;
	if (!is_target_tgid(task_tgid(parent)))
		return 0;
	tgid = task_tgid(child);
	word = tgid >> 6;
	bits = bpf_map_lookup_elem(&targets, &word);
	if (bits)
		__sync_fetch_and_or(bits, 1ull << (tgid & 63));
	return 0;
}
