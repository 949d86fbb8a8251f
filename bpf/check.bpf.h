/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * --check, the request side: at submit, the user memory a request targets; at its end,
 * that it no longer does (us_check_event in uringscope.h). Every caller tests check_on
 * first, a .rodata constant, so without --check the verifier removes the calls (and the
 * CO-RE reads of io_rw and io_sr_msg with them).
 *
 * The memory comes from the request's command area (io_kiocb starts with it in every
 * version: 5.15's union with struct io_rw, 6.0+'s struct io_cmd_data), which prep has
 * filled by the time the submit tracepoint fires:
 *   READ, WRITE, READ_FIXED, WRITE_FIXED   io_rw.addr, io_rw.len (a registered buffer's
 *                                          SQE address is the user address inside it)
 *   READV, WRITEV                          io_rw.addr is the iovec array, io_rw.len its
 *                                          length: each iovec is read from user memory
 *   SEND, RECV, SEND_ZC                    io_sr_msg.buf, io_sr_msg.len; with
 *                                          IORING_RECVSEND_FIXED_BUF the address is
 *                                          inside registered buffer req->buf_index
 *   SENDMSG, RECVMSG, SENDMSG_ZC           io_sr_msg.umsg (the same union member) is
 *                                          the user's msghdr: its iovecs are read from
 *                                          user memory, as for READV (the name and
 *                                          control buffers are not checked)
 * Requests that pick a provided buffer at issue (IOSQE_BUFFER_SELECT) target nothing
 * known at submit; CQE_SKIP_SUCCESS requests post no end; both are left out.
 */
#ifndef URINGSCOPE_CHECK_BPF_H
#define URINGSCOPE_CHECK_BPF_H

#include "tables.bpf.h"
#include "files.bpf.h"

/* The opcodes (IORING_OP_*) come from vmlinux.h: UAPI enums, the same on every kernel.
 * REQ_F_BUFFER_SELECT is IOSQE_BUFFER_SELECT_BIT's bit in every version. */

/* struct user_msghdr as a 64-bit program lays it out: the syscall ABI, not a kernel
 * layout, so fixed offsets are right where CO-RE would not apply. */
struct us_user_msghdr {
	__u64 name;
	__u32 namelen;
	__u32 pad;
	__u64 iov;
	__u64 iovlen;
};

struct us_check_range {
	__u64 req;
	__u64 user_data;
	__u32 ring;
	__u32 ring_gen;
	__u8 opcode;
	__u8 flags;
	__u16 index;
};

static __always_inline void check_emit(const struct us_check_range *r, __u16 kind, __u64 addr,
				       __u64 len, __u16 index)
{
	struct us_check_event *e = bpf_ringbuf_reserve(&check_rb, sizeof(*e), 0);

	if (!e) {
		tool_count(US_TOOL_CHECK_DROPS);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts = bpf_ktime_get_ns();
	e->req = r->req;
	e->user_data = r->user_data;
	e->addr = addr;
	e->len = len;
	e->ring = r->ring;
	e->ring_gen = r->ring_gen;
	e->tgid = current_tgid();
	e->kind = kind;
	e->opcode = r->opcode;
	e->flags = r->flags;
	e->index = index;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline bool check_writes_memory(__u8 opcode)
{
	return opcode == IORING_OP_READ || opcode == IORING_OP_READV || opcode == IORING_OP_READ_FIXED ||
	       opcode == IORING_OP_RECV || opcode == IORING_OP_RECVMSG;
}

static __always_inline bool check_targets_memory(__u8 opcode)
{
	return check_writes_memory(opcode) || opcode == IORING_OP_WRITE || opcode == IORING_OP_WRITEV ||
	       opcode == IORING_OP_WRITE_FIXED || opcode == IORING_OP_SEND || opcode == IORING_OP_SENDMSG ||
	       opcode == IORING_OP_SEND_ZC || opcode == IORING_OP_SENDMSG_ZC;
}

/* Vectored ops: one RANGE per iovec, the first US_CHECK_MAX_IOVECS of them, each named
 * by its iovec index (by the registered buffer's index when the op uses one). */
static __always_inline void check_iovecs(struct us_check_range *r, __u64 iov_addr, __u64 nr)
{
	struct iovec iov;

	if (nr > US_CHECK_MAX_IOVECS)
		tool_count(US_TOOL_CHECK_UNSEEN);
	for (__u32 i = 0; i < US_CHECK_MAX_IOVECS && i < nr; i++) {
		if (bpf_probe_read_user(&iov, sizeof(iov), (void *)(iov_addr + i * sizeof(iov)))) {
			tool_count(US_TOOL_CHECK_UNSEEN);
			return;
		}
		if (iov.iov_len) {
			check_emit(r, US_CK_RANGE, (__u64)iov.iov_base, iov.iov_len,
				   (r->flags & US_CKF_FIXED) ? r->index : (__u16)i);
			r->flags |= US_CKF_MORE;
		}
	}
}

static __always_inline void check_msghdr(struct us_check_range *r, __u64 umsg)
{
	struct us_user_msghdr msg;

	if (bpf_probe_read_user(&msg, sizeof(msg), (void *)umsg)) {
		tool_count(US_TOOL_CHECK_UNSEEN);
		return;
	}
	check_iovecs(r, msg.iov, msg.iovlen);
}

/* Sends with IORING_RECVSEND_FIXED_BUF name their registered buffer like READ_FIXED. */
static __always_inline void check_fixed_send(struct io_kiocb *req, struct us_check_range *r)
{
	if (req_sends_fixed_buffer(req)) {
		r->flags |= US_CKF_FIXED;
		r->index = BPF_CORE_READ(req, buf_index);
	}
}

static __always_inline void check_submit(struct io_kiocb *req, __u64 req_addr, __u32 ring,
					 __u8 opcode, __u64 user_data, __u64 flags)
{
	struct us_check_range r = { .req = req_addr, .user_data = user_data, .ring = ring,
				    .opcode = opcode };
	struct us_ring_info *info;
	__u64 addr;
	__u32 len;

	if (!check_targets_memory(opcode) || (flags >> IOSQE_BUFFER_SELECT_BIT) & 1 ||
	    req_has_flag(flags, US_RF_CQE_SKIP))
		return;
	/* The row's ring now: hazards are counted per ring, and rows are reused. */
	info = ring_info_row(ring);
	r.ring_gen = info ? (__u32)info->first_ns : 0;
	if (check_writes_memory(opcode))
		r.flags |= US_CKF_INTO;
	switch (opcode) {
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
		r.flags |= US_CKF_FIXED;
		r.index = BPF_CORE_READ(req, buf_index);
		/* fall through */
	case IORING_OP_READ:
	case IORING_OP_WRITE:
		if (req_rw_buffer(req, &addr, &len) && len)
			check_emit(&r, US_CK_RANGE, addr, len, r.index);
		return;
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
		if (req_rw_buffer(req, &addr, &len))
			check_iovecs(&r, addr, len);
		return;
	case IORING_OP_SEND:
	case IORING_OP_RECV:
	case IORING_OP_SEND_ZC:
		if (!req_sr_buffer(req, &addr, &len))
			return;
		if (opcode != IORING_OP_RECV)
			check_fixed_send(req, &r);
		if (len)
			check_emit(&r, US_CK_RANGE, addr, len, r.index);
		return;
	case IORING_OP_SENDMSG:
	case IORING_OP_RECVMSG:
	case IORING_OP_SENDMSG_ZC:
		if (!req_sr_buffer(req, &addr, &len))
			return;
		if (opcode == IORING_OP_SENDMSG_ZC)
			check_fixed_send(req, &r);
		check_msghdr(&r, addr);
		return;
	}
}

/* The request's final CQE, or its cancellation: it no longer targets its memory. Only
 * for the ops that can have a RANGE, so a NOP storm costs the buffer nothing. */
/* The request's end. With --files it carries the request's file (addr: the inode, len:
 * its number, aux: its generation), named now, while the request still holds it, so that
 * a hazard can say which file the overlapping requests were reading or writing. */
static __always_inline void check_end(__u64 req_addr, __u32 ring, __u8 opcode)
{
	struct us_check_event *e;
	struct file *f;

	if (!check_targets_memory(opcode))
		return;
	e = bpf_ringbuf_reserve(&check_rb, sizeof(*e), 0);
	if (!e) {
		tool_count(US_TOOL_CHECK_DROPS);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts = bpf_ktime_get_ns();
	e->req = req_addr;
	e->ring = ring;
	e->tgid = current_tgid();
	e->kind = US_CK_END;
	e->opcode = opcode;
	f = files_on ? BPF_CORE_READ((struct io_kiocb *)req_addr, file) : NULL;
	if (f) {
		struct us_file_id id = {};

		file_id_of(f, &id);
		us_name_file((__u64)f, id.inode, id.ino, id.gen);
		e->addr = id.inode;
		e->len = id.ino;
		e->aux = id.gen;
	}
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

#endif /* URINGSCOPE_CHECK_BPF_H */
