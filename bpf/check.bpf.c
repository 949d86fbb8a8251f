// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * --check, the memory side: what a target does to memory and to its rings' registered
 * buffers while requests may be in flight (the request side is check.bpf.h). Syscall
 * tracepoints, so they fire before the call takes effect, while the requests it could
 * hurt are still in flight; loaded only with --check (each sends every syscall on the
 * machine through the tracing slow path).
 *
 *   usc_ck_munmap    sys_enter_munmap(addr, len)
 *   usc_ck_madvise   sys_enter_madvise(start, len, advice): DONTNEED, FREE, REMOVE drop
 *                    the pages (later reads see zeroes, a later fault maps new ones)
 *   usc_ck_mremap    sys_enter_mremap(addr, old_len, new_len, flags) and its exit: only
 *                    the result says whether the mapping moved (its old range then maps
 *                    nothing the request knows) or shrank in place (its tail is gone)
 *   usc_ck_register  sys_enter_io_uring_register(fd, opcode, arg, nr_args): buffers
 *                    unregistered (all), or updated (the range it names)
 */
#include "check.bpf.h"
#include <bpf/bpf_tracing.h>

#define US_MADV_DONTNEED 4
#define US_MADV_REMOVE 9
#define US_MADV_FREE 8

static __always_inline void memory_dropped(__u64 addr, __u64 len, __u8 what, __u32 advice)
{
	struct us_check_event *e;

	if (!current_is_target() || !len)
		return;
	e = bpf_ringbuf_reserve(&check_rb, sizeof(*e), 0);
	if (!e) {
		tool_count(US_TOOL_CHECK_DROPS);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts = bpf_ktime_get_ns();
	e->addr = addr;
	e->len = len;
	e->tgid = current_tgid();
	e->kind = US_CK_UNMAP;
	e->opcode = what;
	e->aux = advice;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* mremap's arguments, from its entry to its exit, by thread. */
struct us_mremap_call {
	__u64 addr;
	__u64 old_len;
	__u64 new_len;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct us_mremap_call);
} mremap_calls SEC(".maps");

SEC("tp/syscalls/sys_enter_mremap")
int usc_ck_mremap(struct trace_event_raw_sys_enter *args)
{
	struct us_mremap_call call = { .addr = args->args[0], .old_len = args->args[1],
				       .new_len = args->args[2] };
	__u64 tid = bpf_get_current_pid_tgid();

	if (current_is_target() && call.old_len)
		bpf_map_update_elem(&mremap_calls, &tid, &call, BPF_ANY);
	return 0;
}

SEC("tp/syscalls/sys_exit_mremap")
int usc_ck_mremap_exit(struct trace_event_raw_sys_exit *args)
{
	__u64 tid = bpf_get_current_pid_tgid();
	struct us_mremap_call *call = bpf_map_lookup_elem(&mremap_calls, &tid);
	__u64 result = (__u64)args->ret;

	if (!call)
		return 0;
	if (args->ret >= 0 || args->ret < -4095) {
		if (result != call->addr)
			memory_dropped(call->addr, call->old_len, US_CK_MREMAP, US_CK_MREMAP_MOVED);
		else if (call->new_len < call->old_len)
			memory_dropped(call->addr + call->new_len, call->old_len - call->new_len,
				       US_CK_MREMAP, US_CK_MREMAP_SHRUNK);
	}
	bpf_map_delete_elem(&mremap_calls, &tid);
	return 0;
}

SEC("tp/syscalls/sys_enter_munmap")
int usc_ck_munmap(struct trace_event_raw_sys_enter *args)
{
	memory_dropped(args->args[0], args->args[1], US_CK_MUNMAP, 0);
	return 0;
}

SEC("tp/syscalls/sys_enter_madvise")
int usc_ck_madvise(struct trace_event_raw_sys_enter *args)
{
	__u32 advice = (__u32)args->args[2];

	if (advice == US_MADV_DONTNEED || advice == US_MADV_FREE || advice == US_MADV_REMOVE)
		memory_dropped(args->args[0], args->args[1], US_CK_MADVISE, advice);
	return 0;
}

/* struct io_uring_rsrc_update2: the buffers an update replaces are [offset, offset + nr). */
struct us_rsrc_update2 {
	__u32 offset;
	__u32 resv;
	__u64 data;
	__u64 tags;
	__u32 nr;
	__u32 resv2;
};

SEC("tp/syscalls/sys_enter_io_uring_register")
int usc_ck_register(struct trace_event_raw_sys_enter *args)
{
	/* IORING_REGISTER_USE_REGISTERED_RING (6.3): the fd is a registered-ring index. */
	const __u32 use_registered = IORING_REGISTER_USE_REGISTERED_RING;
	__u32 opcode = (__u32)args->args[1] & ~use_registered;
	bool registered = (__u32)args->args[1] & use_registered;
	struct us_rsrc_update2 up = {};
	struct us_check_range r = { .opcode = (__u8)opcode };
	struct file *file;
	__u64 count = 0;

	if (opcode != IORING_UNREGISTER_BUFFERS && opcode != IORING_REGISTER_BUFFERS_UPDATE)
		return 0;
	if (!current_is_target())
		return 0;
	file = enter_fd_file((__u32)args->args[0], registered);
	if (!file)
		return 0;
	r.ring = ring_lookup((__u64)BPF_CORE_READ(file, private_data));
	if (r.ring == US_NO_RING)
		return 0;
	if (opcode == IORING_REGISTER_BUFFERS_UPDATE) {
		if (bpf_probe_read_user(&up, sizeof(up), (void *)args->args[2]))
			return 0;
		count = up.nr ? up.nr : 1;
	}
	check_emit(&r, US_CK_BUFREG, 0, count, (__u16)up.offset);
	return 0;
}
