/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Every kernel difference the BPF side handles, in one place: each CO-RE flavour
 * (struct foo___us), each bpf_core_*_exists test and each accessor of a field that moved
 * or changed width is here, with the kernel change and release that made it necessary.
 * Call sites use the accessors and never touch a versioned field directly. Which
 * program variant a kernel gets is decided in userspace, by the probe (src/probe/).
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
 * The buffer of a read or a write: for READ, WRITE and their _FIXED forms the memory,
 * for READV and WRITEV the iovec array and its count. It is struct io_rw, laid over the
 * start of the request: in 5.15 as the first member of io_kiocb's union of per-op
 * commands, with a u64 len (its low half is read: little-endian); from 6.0, when each
 * opcode family moved to a file of its own under io_uring/, as io_uring/rw.c's struct
 * over io_kiocb's command data, with a u32 len. False where the BTF has no struct io_rw.
 */
struct io_rw___us {
	__u64 addr;
	__u32 len;
} __attribute__((preserve_access_index));

static __always_inline bool req_rw_buffer(struct io_kiocb *req, __u64 *addr, __u32 *len)
{
	struct io_rw___us *rw = (void *)req;

	if (!bpf_core_type_exists(struct io_rw___us))
		return false;
	*addr = BPF_CORE_READ(rw, addr);
	*len = BPF_CORE_READ(rw, len);
	return true;
}

/*
 * The buffer of a send or a receive (for SENDMSG and RECVMSG the user's msghdr), from
 * struct io_sr_msg over the start of the request as io_rw above (io_uring/net.c from
 * 6.0): a size_t len in 5.15 (its low half is read), an int later; `flags`
 * (IORING_RECVSEND_*, 6.0+) says whether a send uses a registered buffer. False where
 * the BTF has no struct io_sr_msg.
 */
struct io_sr_msg___us {
	void *buf; /* in an anonymous union with the msghdr pointers */
	int len;
	__u16 flags;
} __attribute__((preserve_access_index));

#define US_RECVSEND_FIXED_BUF (1u << 2)

static __always_inline bool req_sr_buffer(struct io_kiocb *req, __u64 *buf, __u32 *len)
{
	struct io_sr_msg___us *sr = (void *)req;

	if (!bpf_core_type_exists(struct io_sr_msg___us))
		return false;
	*buf = (__u64)BPF_CORE_READ(sr, buf);
	*len = (__u32)BPF_CORE_READ(sr, len);
	return true;
}

static __always_inline bool req_sends_fixed_buffer(struct io_kiocb *req)
{
	struct io_sr_msg___us *sr = (void *)req;

	if (!bpf_core_type_exists(struct io_sr_msg___us) || !bpf_core_field_exists(sr->flags))
		return false;
	return BPF_CORE_READ(sr, flags) & US_RECVSEND_FIXED_BUF;
}

/*
 * A socket's IPv6 addresses: struct sock_common has skc_v6_daddr and skc_v6_rcv_saddr
 * only in a kernel built with IPv6 (CONFIG_IPV6). False without them.
 */
static __always_inline bool sock_v6_addresses(struct sock *sk, struct in6_addr *local,
					      struct in6_addr *remote)
{
	if (!bpf_core_field_exists(sk->__sk_common.skc_v6_daddr))
		return false;
	BPF_CORE_READ_INTO(local, sk, __sk_common.skc_v6_rcv_saddr);
	BPF_CORE_READ_INTO(remote, sk, __sk_common.skc_v6_daddr);
	return true;
}

/*
 * The ring whose exit work item `work` is (io_ring_exit_work runs &ctx->exit_work): the
 * item's address less the member's offset, which CO-RE relocates. A kernel whose BTF has
 * no io_ring_ctx.exit_work (Debian's 5.10) fails this relocation, so the probe turns the
 * ring_exit feature off there and the program is not loaded.
 */
static __always_inline __u64 ring_of_exit_work(__u64 work)
{
	return work - bpf_core_field_offset(struct io_ring_ctx, exit_work);
}

#endif /* URINGSCOPE_COMPAT_BPF_H */
