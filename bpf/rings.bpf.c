// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Rings: where each io_ring_ctx gets its row (created in the window, found in a target's
 * fd table at attach, or adopted at its first submit), and the io_uring_enter() calls
 * that drive it.
 */
#include "tables.bpf.h"
#include "row_retire.bpf.h"
#include "catch.bpf.h"
#include "boundary_sq.bpf.h"
#include <bpf/bpf_tracing.h>

/*
 * io_uring_create names a ctx that ring_ids still maps: the ring that had the address is
 * freed, but the end of its teardown has not fired yet (the kworker was preempted
 * between freeing the ctx and returning) or never will (a recursion miss on
 * workqueue_execute_end, tool_stats.kernel_misses). Its row is retired now, as the
 * retire program would have, so it is folded and reused like any other instead of
 * staying alive in the report for ever. Returns whether there was one.
 */
static __always_inline bool retire_stale_ctx(__u64 ctx)
{
	__u32 *row = bpf_map_lookup_elem(&ring_ids, &ctx);

	if (!row)
		return false;
	row_retire(*row);
	return true;
}

/*
 * Another process's new ring at the address of a target's ring that has been freed: the
 * address must stop meaning the target's row, or that process's completions (which are
 * not filtered by task: any thread may post them) would be charged to the target. The
 * old row keeps its numbers for the report.
 */
static __always_inline void forget_reused_ctx(__u64 ctx)
{
	retire_stale_ctx(ctx);
	if (!bpf_map_delete_elem(&ring_ids, &ctx))
		__sync_fetch_and_add(&ring_epoch, 1);
}

/* Same prototype in 5.15-6.18: (int fd, void *ctx, u32 sq_entries, u32 cq_entries, u32 flags). */
US_PROG("tp_btf/io_uring_create", usc_create,
	int fd, void *ring_ctx, __u32 sq_entries, __u32 cq_entries, __u32 flags)
{
	struct us_ring_seed seed = {};

	if (!current_is_target()) {
		forget_reused_ctx((__u64)ring_ctx);
		return 0;
	}
	/* The address is about to map the new ring: the old one's teardown end, when it
	 * fires, must leave it alone. A missed end leaves the mark until the new ring's own
	 * end, whose row then stays until the address is reused (bounded: an LRU map). */
	if (retire_stale_ctx((__u64)ring_ctx)) {
		__u64 key = (__u64)ring_ctx;
		__u32 one = 1;

		bpf_map_update_elem(&exits_superseded, &key, &one, BPF_ANY);
	}
	seed.ctx = (__u64)ring_ctx;
	seed.tgid = current_tgid();
	/* With IORING_SETUP_REGISTERED_FD_ONLY (6.5) "fd" is a registered-ring index. */
	seed.fd = (flags & US_SETUP_REGISTERED_FD_ONLY) ? -1 : fd;
	seed.sq_entries = sq_entries;
	seed.cq_entries = cq_entries;
	seed.setup_flags = flags;
	seed.source = US_RING_FROM_CREATE;
	seed.sq_tid = (flags & US_SETUP_SQPOLL) ? ctx_sqpoll_tid(ring_ctx) : 0;
	ring_add(&seed, true);
	return 0;
}

/*
 * Walked once at attach: rings the targets created before we attached never fire
 * io_uring_create, and without a row their completions could not be attributed.
 * io_uring files are anonymous-inode files named "[io_uring]".
 */
SEC("iter/task_file")
int usc_ring_fds(struct bpf_iter__task_file *it)
{
	static const char want[] = "[io_uring]";
	struct us_ring_seed seed = {};
	struct us_ctx_geometry g = {};
	struct task_struct *task = it->task;
	struct file *file = it->file;
	struct io_ring_ctx *ctx;
	char name[sizeof(want)] = {};
	const unsigned char *dname;
	__u32 tgid;

	if (!task || !file)
		return 0;
	tgid = task_tgid(task);
	if (!is_target_tgid(tgid))
		return 0;
	dname = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	if (bpf_probe_read_kernel_str(name, sizeof(name), dname) != sizeof(want))
		return 0;
	for (int i = 0; i < sizeof(want); i++)
		if (name[i] != want[i])
			return 0;
	ctx = BPF_CORE_READ(file, private_data);
	if (!ctx)
		return 0;
	if (ring_lookup((__u64)ctx) != US_NO_RING)
		return 0;
	ctx_geometry(ctx, &g);
	seed.ctx = (__u64)ctx;
	seed.tgid = tgid;
	seed.fd = it->fd;
	seed.sq_entries = g.sq_entries;
	seed.cq_entries = g.cq_entries;
	seed.setup_flags = g.flags;
	seed.source = US_RING_FROM_FDS;
	seed.task = task;
	seed.sq_tid = (g.flags & US_SETUP_SQPOLL) ? ctx_sqpoll_tid(ctx) : 0;
	ring_add(&seed, false);
	return 0;
}

/*
 * io_uring_enter(fd, to_submit, min_complete, flags, argp, argsz), counted per ring. The
 * ring is resolved through the caller's fd table, and only counted when it is a ring we
 * already know, so a bad fd never creates a row.
 */
static __always_inline int count_enter(__u32 fd, __u64 to_submit, __u32 flags)
{
	bool registered = flags & US_ENTER_REGISTERED_RING;
	struct io_ring_ctx *ctx;
	struct us_ring_stats *rs;
	struct us_ring_watch *w;
	struct us_ring_info *info;
	struct file *file;
	__u32 ring;

	if (!current_is_target())
		return 0;
	file = enter_fd_file(fd, registered);
	if (!file) {
		tool_count(US_TOOL_ENTER_NO_RING);
		return 0;
	}
	ctx = BPF_CORE_READ(file, private_data);
	ring = ring_lookup((__u64)ctx);
	if (ring == US_NO_RING) {
		tool_count(US_TOOL_ENTER_NO_RING);
		return 0;
	}
	rs = ring_stats_row(ring);
	if (!rs)
		return 0;
	/* Before waiting for more: the CQEs it reaped since its last call are reaped now. */
	w = boundary_on ? ring_watch_row(ring) : NULL;
	if (w)
		reap_look(ctx, ring, rs, w);
	__sync_fetch_and_add(&rs->counters[US_RC_ENTER_CALLS], 1);
	/* The SQPOLL thread had gone to sleep and the program had to wake it. */
	if (flags & US_ENTER_SQ_WAKEUP) {
		__sync_fetch_and_add(&rs->counters[US_RC_SQ_WAKEUPS], 1);
		/* SQEs it wrote for the poller that slept: their wait starts here at the latest. */
		sq_look_if_sqpoll(ring, ctx, rs, bpf_ktime_get_ns(), false);
	}
	if (to_submit) {
		__sync_fetch_and_add(&rs->counters[US_RC_ENTER_SUBMIT_CALLS], 1);
		__sync_fetch_and_add(&rs->counters[US_RC_TO_SUBMIT_SUM], to_submit);
	}
	if (!registered && ring != US_RING_CATCHALL) {
		info = bpf_map_lookup_elem(&ring_info, &ring);
		if (info && info->fd < 0)
			info->fd = fd;
	}
	return 0;
}

/*
 * Two ways in; the probe and the tracer pick one. An fentry on the architecture's
 * syscall entry point costs nothing to any other syscall. (__do_sys_io_uring_enter has
 * typed arguments but is `inline`, hence notrace: a trampoline there fails with EBUSY.)
 * The syscall tracepoint is the fallback: enabling any syscall tracepoint sends every
 * syscall of every task through the tracing slow path (bench/: +29 ns for each getppid()
 * on the machine), though its program only runs for this one. The 32-bit compat entries
 * (__ia32_sys_io_uring_enter, __arm64_compat_sys_io_uring_enter) are not covered by the
 * fentry. The entry's name and its pt_regs differ per architecture, and the object is
 * built for one: the probe looks for the same name (src/probe/probe.h).
 */
#if defined(__TARGET_ARCH_arm64)
SEC("fentry/__arm64_sys_io_uring_enter")
int BPF_PROG(usc_enter_fentry, const struct pt_regs *regs)
{
	/* arm64 syscall arguments: x0-x5. */
	return count_enter((__u32)BPF_CORE_READ(regs, regs[0]), (__u32)BPF_CORE_READ(regs, regs[1]),
			   (__u32)BPF_CORE_READ(regs, regs[3]));
}
#else
SEC("fentry/__x64_sys_io_uring_enter")
int BPF_PROG(usc_enter_fentry, const struct pt_regs *regs)
{
	/* x86-64 syscall arguments: di, si, dx, r10, r8, r9. */
	return count_enter((__u32)BPF_CORE_READ(regs, di), (__u32)BPF_CORE_READ(regs, si),
			   (__u32)BPF_CORE_READ(regs, r10));
}
#endif

SEC("tp/syscalls/sys_enter_io_uring_enter")
int usc_enter(struct trace_event_raw_sys_enter *args)
{
	return count_enter((__u32)args->args[0], (__u32)args->args[1], (__u32)args->args[3]);
}
