// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * aux_req: the request io_req_post_cqe(req, res, cflags) is about to post a CQE for,
 * left where the complete program will look for it (aux_req.bpf.h says why). One
 * program, an fentry: the probe enables it where the function takes the request first
 * and BPF trampolines load.
 */
#include "aux_req.bpf.h"
#include "compat.bpf.h"
#include <bpf/bpf_tracing.h>

SEC("fentry/io_req_post_cqe")
int BPF_PROG(usc_aux_req, struct io_kiocb *req)
{
	__u32 zero = 0;
	struct us_aux_post *p = bpf_map_lookup_elem(&aux_posts, &zero);

	if (!p)
		return 0;
	p->req = (__u64)req;
	p->ring_ctx = (__u64)req_ctx(req, true);
	p->user_data = req_user_data(req, true);
	p->tid = (__u32)bpf_get_current_pid_tgid();
	return 0;
}
