// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * io_uring's kernel threads: SQPOLL threads (iou-sqp-*), timed while switched out (and,
 * with the boundary on, their SQ looked at while they are out), and
 * io-wq workers (iou-wrk-*), counted once each. Both are created with create_io_thread()
 * inside the owner's thread group and carry PF_IO_WORKER; they fire no
 * sched_process_fork, so they are found where they run.
 *
 * sched_switch fires for every context switch on the machine: the first thing done is a
 * PF_IO_WORKER test on both tasks (two loads), and everything else only for io threads.
 *
 *   usc_sched        sched_switch(preempt, prev, next[, prev_state])  prev_state was added
 *                    in 5.18; the first three arguments are the same everywhere.
 *   usc_thread_exit  sched_process_exit(task[, group_dead]): an io thread's entry goes
 *                    when it exits, so a long run in which io-wq retires idle workers
 *                    and starts new ones never fills the table; each worker stays
 *                    counted in worker_counts.
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include "boundary_timer.bpf.h"
#include <bpf/bpf_tracing.h>

/* The poller leaves the CPU: SQEs written from now on wait for it. A look now is the
 * baseline their first sighting is measured from, and the ring's timer looks on while
 * the thread is out (boundary_sq.bpf.h). */
static __always_inline void sqpoll_out_look(__u32 ring, struct us_ring_stats *rs, __u64 now)
{
	struct us_ring_info *info = ring_info_row(ring);
	struct us_ring_watch *w = ring_watch_row(ring);

	if (!info || !info->ctx || !w)
		return;
	sq_look((struct io_ring_ctx *)info->ctx, rs, w, now, false, false);
	tick_start(ring);
}

static __always_inline void sqpoll_out(const struct us_thread *t, bool preempt, __u64 now)
{
	struct us_ring_stats *rs = ring_stats_row(t->ring);

	if (!rs)
		return;
	rs->counters[US_RC_SQPOLL_OUT_NS] = now;
	/* Atomic: orders the store above before tick_start() reads the timer's state. */
	__sync_fetch_and_add(&rs->counters[preempt ? US_RC_SQPOLL_PREEMPTS : US_RC_SQPOLL_SLEEPS], 1);
	if (boundary_on)
		sqpoll_out_look(t->ring, rs, now);
}

static __always_inline void sqpoll_in(const struct us_thread *t, __u64 now)
{
	struct us_ring_stats *rs = ring_stats_row(t->ring);
	__u64 out;

	if (!rs)
		return;
	out = rs->counters[US_RC_SQPOLL_OUT_NS];
	if (!out)
		return;
	rs->counters[US_RC_SQPOLL_OUT_NS] = 0;
	__sync_fetch_and_add(&rs->counters[US_RC_SQPOLL_OFFCPU_NS], now - out);
}

/* "iou-wrk-<tid>" vs "iou-sqp-<tid>". */
static __always_inline bool is_worker_comm(const struct task_struct *task)
{
	return task->comm[0] == 'i' && task->comm[4] == 'w';
}

SEC("tp_btf/sched_switch")
int BPF_PROG(usc_sched, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct us_thread *t;
	__u64 now;
	__u32 tid;

	if (!((prev->flags | next->flags) & US_PF_IO_WORKER))
		return 0;
	now = bpf_ktime_get_ns();
	if (prev->flags & US_PF_IO_WORKER) {
		tid = prev->pid;
		t = bpf_map_lookup_elem(&threads, &tid);
		/* A thread leaving for good is not idle: left timed, its "off-CPU" time
		 * would grow until the window closes, long after the ring is gone. */
		if (t && t->kind == US_THREAD_SQPOLL && !(prev->flags & US_PF_EXITING))
			sqpoll_out(t, preempt, now);
	}
	if (next->flags & US_PF_IO_WORKER) {
		tid = next->pid;
		t = bpf_map_lookup_elem(&threads, &tid);
		if (t) {
			if (t->kind == US_THREAD_SQPOLL)
				sqpoll_in(t, now);
		} else if (is_worker_comm(next) && !(next->flags & US_PF_EXITING)) {
			/* Not a thread on its way out: one that runs again after its
			 * sched_process_exit (6.1 does) would come back for good. */
			__u32 tgid = task_tgid(next);

			if (is_target_tgid(tgid))
				thread_add(tid, tgid, US_THREAD_WORKER, 0);
		}
	}
	return 0;
}

/* By its name, not PF_IO_WORKER: io-wq clears that flag in io_worker_exit() before the
 * thread exits (Debian 6.1 shows a worker's flags at sched_process_exit without it). */
static __always_inline bool is_io_thread_comm(const struct task_struct *task)
{
	return task->comm[0] == 'i' && task->comm[1] == 'o' && task->comm[2] == 'u' &&
	       task->comm[3] == '-';
}

US_PROG("tp_btf/sched_process_exit", usc_thread_exit, struct task_struct *task)
{
	__u32 tid;

	if (!is_io_thread_comm(task))
		return 0;
	tid = task->pid;
	bpf_map_delete_elem(&threads, &tid);
	return 0;
}
