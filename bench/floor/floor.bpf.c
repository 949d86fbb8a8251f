// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * The floor: the least any BPF tool can do to time io_uring requests from submit to
 * completion through the same tracepoints uringscope uses. A hash map keyed by the
 * io_kiocb pointer holds the submit time, one log2 histogram counts latencies. No
 * target filter, no per-op or per-ring rows, no other events: whatever uringscope costs
 * above this is the price of what it does beyond timing requests.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
/* log2_u64() and hist_slot(): the same branch-free bucket uringscope uses, so the
 * histogram costs both the same. */
#include "bits.bpf.h"


struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u64);   /* io_kiocb address */
	__type(value, __u64); /* submit time, ns */
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, US_HIST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

static __always_inline void on_submit(__u64 req)
{
	__u64 ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&start, &req, &ts, BPF_ANY);
}

/* io_uring_submit_req(req), 6.4+ */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(floor_submit_req)
{
	on_submit(ctx[0]);
	return 0;
}

/* io_uring_submit_sqe(req, force_nonblock), 6.0-6.3: the same first argument */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(floor_submit_sqe)
{
	on_submit(ctx[0]);
	return 0;
}

/* io_uring_complete(ctx, req, ...): the request is the second argument from 5.18 on,
 * whatever follows it (6.13+ passes the cqe, 5.18-6.12 its fields). */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(floor_complete)
{
	__u64 req = ctx[1], *ts, *n;
	__u32 slot;

	ts = bpf_map_lookup_elem(&start, &req);
	if (!ts)
		return 0;
	slot = hist_slot(bpf_ktime_get_ns() - *ts);
	bpf_map_delete_elem(&start, &req);
	n = bpf_map_lookup_elem(&hist, &slot);
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
