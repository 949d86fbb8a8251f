/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Every kernel-layout difference the BPF side handles, in one place. Call sites use the
 * accessors below and never touch a versioned field directly.
 *
 * "direct" accessors: on 6.0+ the request tracepoints pass a BTF-typed struct io_kiocb *
 * and plain (CO-RE relocated) loads are allowed. Before 6.0 every pointer argument is a
 * void *, which tp_btf treats as a scalar, so the same fields are read with
 * bpf_probe_read_kernel (BPF_CORE_READ). Handlers pass a compile-time constant and the
 * unused branch is removed by the compiler before the verifier sees it.
 */
#ifndef URINGSCOPE_COMPAT_BPF_H
#define URINGSCOPE_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

/*
 * The bits of tracepoint argument i as a number. A BTF-typed pointer argument (6.0+
 * io_kiocb) may be dereferenced, compared and used as a map key, but the verifier
 * forbids arithmetic on it, and hashing is arithmetic; copying the raw argument out
 * of the context yields a plain scalar.
 */
static __always_inline __u64 tp_arg_bits(unsigned long long *ctx, int i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &ctx[i]);
	return v;
}

/*
 * 5.19 "io_uring: add a struct io_cqe to io_kiocb" moved user_data (and res) into
 * req->cqe; 5.15-5.18 have it at the top level.
 */
struct io_kiocb___pre519 {
	__u64 user_data;
} __attribute__((preserve_access_index));

static __always_inline __u64 req_user_data(struct io_kiocb *req, bool direct)
{
	if (bpf_core_field_exists(req->cqe)) {
		if (direct)
			return req->cqe.user_data;
		return BPF_CORE_READ(req, cqe.user_data);
	}
	return BPF_CORE_READ((struct io_kiocb___pre519 *)req, user_data);
}

static __always_inline __u8 req_opcode(struct io_kiocb *req, bool direct)
{
	if (direct)
		return req->opcode;
	return BPF_CORE_READ(req, opcode);
}

static __always_inline struct io_ring_ctx *req_ctx(struct io_kiocb *req, bool direct)
{
	if (direct)
		return req->ctx;
	return BPF_CORE_READ(req, ctx);
}

/*
 * req->flags is unsigned int up to 6.8 and io_req_flags_t (u64) from 6.9 ("io_uring:
 * expand main struct io_kiocb flags to 64-bits"); bits above 31 are in use on 6.18, so
 * let the relocation pick the width and never truncate to 32 bits.
 */
static __always_inline __u64 req_flags(struct io_kiocb *req, bool direct)
{
	if (direct)
		return BPF_CORE_READ_BITFIELD(req, flags);
	return BPF_CORE_READ_BITFIELD_PROBED(req, flags);
}

/* Ring geometry; stable field names in 5.15-6.18, positions move. */
struct us_ctx_geometry {
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 flags;
};

static __always_inline void ctx_geometry(struct io_ring_ctx *ctx, struct us_ctx_geometry *g)
{
	g->sq_entries = BPF_CORE_READ(ctx, sq_entries);
	g->cq_entries = BPF_CORE_READ(ctx, cq_entries);
	g->flags = BPF_CORE_READ(ctx, flags);
}

/*
 * The io_uring file behind an io_uring_enter() fd argument. With
 * IORING_ENTER_REGISTERED_RING (5.18, "io_uring: add support for registering ring file
 * descriptors") the argument indexes current->io_uring->registered_rings[] instead of
 * the fd table.
 */
static __always_inline struct file *enter_fd_file(__u32 fd, bool registered)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct file *file = NULL;

	if (registered) {
		struct io_uring_task *tctx = BPF_CORE_READ(task, io_uring);

		if (!tctx || !bpf_core_field_exists(tctx->registered_rings))
			return NULL;
		if (fd >= bpf_core_field_size(tctx->registered_rings) / sizeof(struct file *))
			return NULL;
		bpf_probe_read_kernel(&file, sizeof(file), &tctx->registered_rings[fd]);
		return file;
	}

	/* Direct loads through the task's BTF pointer (the JIT guards them, as it does a
	 * probe read, at a fraction of a helper call's cost); only the array slot, indexed by
	 * a variable, needs the helper. */
	struct task_struct *self = bpf_get_current_task_btf();
	struct files_struct *files = self->files;
	struct fdtable *fdt;
	struct file **fds;

	if (!files)
		return NULL;
	fdt = files->fdt;
	if (!fdt || fd >= fdt->max_fds)
		return NULL;
	fds = fdt->fd;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	return file;
}

/*
 * task_struct.flags and signal_struct.flags bits (include/linux/sched.h,
 * sched/signal.h). They are #defines, invisible to BTF, and have kept these values
 * through 5.15-6.18.
 */
#define US_PF_EXITING 0x00000004u
#define US_PF_IO_WORKER 0x00000010u /* io-wq workers and SQPOLL threads (5.12+) */
#define US_PF_EXITING   0x00000004u /* set early in do_exit(), same value since 2.6 */
#define US_PF_KTHREAD 0x00200000u
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

#endif /* URINGSCOPE_COMPAT_BPF_H */
