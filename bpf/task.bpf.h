/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * What the programs ask about the current task and a ring: whether it is being torn
 * down, whether it is an io thread, its SQPOLL thread, a task's pid in our namespace and
 * its owner's name. These fields have kept their names and meaning through every
 * supported kernel (CO-RE finds where they are); what differs between kernels is in
 * compat.bpf.h.
 */
#ifndef URINGSCOPE_TASK_BPF_H
#define URINGSCOPE_TASK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/*
 * task_struct.flags and signal_struct.flags bits (include/linux/sched.h,
 * sched/signal.h). They are #defines, invisible to BTF, and have kept these values
 * through 5.15-6.18.
 */
#define US_PF_EXITING        0x00000004u /* set early in do_exit(), same value since 2.6 */
#define US_PF_IO_WORKER      0x00000010u /* io-wq workers and SQPOLL threads (5.12+) */
#define US_PF_KTHREAD        0x00200000u
#define US_SIGNAL_GROUP_EXIT 0x00000004u

/*
 * Whether the current task is the kernel tearing a process down: the exiting process
 * itself (io_uring_cancel_generic() in do_exit) or a kworker running the ring's exit
 * work. CQEs posted then are cancellations of requests the program abandoned.
 */
static __always_inline bool current_is_teardown(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->flags & (US_PF_EXITING | US_PF_KTHREAD))
		return true;
	return BPF_CORE_READ(task, signal, flags) & US_SIGNAL_GROUP_EXIT;
}

/*
 * The ring is being destroyed: io_ring_ctx_wait_and_kill() kills ctx->refs first, which
 * sets __PERCPU_REF_DEAD (bit 1) in percpu_count_ptr. Requests cancelled from then on
 * were abandoned with the ring (closed with requests in flight), whoever posts the CQE.
 */
#define US_PERCPU_REF_DEAD 2ul

static __always_inline bool ctx_is_dying(struct io_ring_ctx *ctx)
{
	return BPF_CORE_READ(ctx, refs.percpu_count_ptr) & US_PERCPU_REF_DEAD;
}

static __always_inline bool current_is_io_thread(void)
{
	return bpf_get_current_task_btf()->flags & US_PF_IO_WORKER;
}

/* The SQPOLL thread of a ring, 0 when it has none (or it has not started). */
static __always_inline __u32 ctx_sqpoll_tid(struct io_ring_ctx *ctx)
{
	return BPF_CORE_READ(ctx, sq_data, thread, pid);
}

/*
 * A task's thread-group id as seen from the pid namespace whose inode is `ns_ino`, or 0
 * when the task has no pid there (it lives outside that namespace). struct pid keeps one
 * upid per namespace level, from the root down to the task's own; the level of ours is
 * not known up front (a process cannot look above its own pid namespace), so search the
 * first few levels for it.
 */
#define US_MAX_PIDNS_DEPTH 8

static __always_inline __u32 task_tgid_in_ns(struct task_struct *task, __u64 ns_ino)
{
	struct pid *pid = BPF_CORE_READ(task, group_leader, thread_pid);
	__u32 level;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	for (__u32 i = 0; i < US_MAX_PIDNS_DEPTH; i++) {
		struct upid up = {};

		if (i > level)
			break;
		bpf_core_read(&up, sizeof(up), &pid->numbers[i]);
		if (up.ns && BPF_CORE_READ(up.ns, ns.inum) == ns_ino)
			return up.nr;
	}
	return 0;
}

/*
 * Name of a task's thread group leader (the current task's when task is NULL): io-wq and
 * SQPOLL threads report as their owner.
 */
static __always_inline void leader_comm(struct task_struct *task, char *comm, __u32 size)
{
	struct task_struct *leader;

	if (!task)
		task = (struct task_struct *)bpf_get_current_task();
	leader = BPF_CORE_READ(task, group_leader);
	bpf_core_read_str(comm, size, &leader->comm);
}

#endif /* URINGSCOPE_TASK_BPF_H */
