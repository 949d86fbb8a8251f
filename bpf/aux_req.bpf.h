/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The request behind a CQE posted without one. Most such CQEs are posted for a request
 * the kernel does know: io_req_post_cqe(req, res, cflags) posts every intermediate CQE
 * of a multishot request through the aux path, whose io_uring_complete (or
 * io_uring_cqe_overflow) event, fired inside that call on the same thread, says
 * req == NULL. An fentry on it (aux_req.bpf.c) leaves the request in a per-CPU slot for
 * that event to take back. A slot left by another thread (this one was preempted and
 * moved), or by a call whose CQE the event never saw, names another (thread, ring,
 * user_data) and is ignored: the (ring, user_data) index then decides, as it does for
 * every such CQE where the fentry cannot load (no BPF trampolines, or a kernel without
 * io_req_post_cqe) and for CQEs posted without any request (MSG_RING targets).
 */
#ifndef URINGSCOPE_AUX_REQ_BPF_H
#define URINGSCOPE_AUX_REQ_BPF_H

#include "state.bpf.h"

struct us_aux_post {
	__u64 req;
	__u64 ring_ctx;
	__u64 user_data;
	__u32 tid;
	__u32 pad;
};

struct us_aux_posts_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct us_aux_post);
};

extern struct us_aux_posts_map aux_posts SEC(".maps");

/* The request io_req_post_cqe is posting this pointer-less CQE for, or 0. */
static __always_inline __u64 aux_req_take(void *ring_ctx, __u64 user_data)
{
	__u32 zero = 0;
	struct us_aux_post *p;
	__u64 req;

	if (!aux_req_on)
		return 0;
	p = bpf_map_lookup_elem(&aux_posts, &zero);
	if (!p || !p->req || p->ring_ctx != (__u64)ring_ctx || p->user_data != user_data ||
	    p->tid != (__u32)bpf_get_current_pid_tgid())
		return 0;
	req = p->req;
	p->req = 0;
	return req;
}

#endif
