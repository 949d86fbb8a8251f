/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * What a CQE adds to its (ring, opcode) row: the CQE itself, bytes, errors by errno,
 * multishot CQEs, and on the final CQE the request's latency. complete.bpf.c finds the
 * request; this counts it.
 */
#ifndef URINGSCOPE_CQE_COUNTS_BPF_H
#define URINGSCOPE_CQE_COUNTS_BPF_H

#include "tables.bpf.h"
#include "bits.bpf.h"

static __always_inline bool is_zero_copy_send(__u32 opcode)
{
	return opcode == IORING_OP_SEND_ZC || opcode == IORING_OP_SENDMSG_ZC;
}

/*
 * The row a CQE counts in, with what the CQE side needs to know of it (its opcode, and
 * opstat_serial()) taken from the request rather than from the row's first cache line,
 * which the submit side writes, often on another CPU.
 */
struct us_cqe_row {
	struct us_opstat *os; /* NULL when the row does not exist */
	__u32 opcode;
	bool serial;
};

/* Opstat row `opstat` of ring `ring`, for a CQE of a request with this opcode. */
static __always_inline struct us_cqe_row cqe_row(__u32 ring, __u32 opstat, __u32 opcode)
{
	return (struct us_cqe_row){ opstat_row(opstat), opcode, opstat_serial(ring, opstat) };
}

/* False for a sample that is not one, counted as such. */
static __always_inline bool record_latency(const struct us_cqe_row *r, __u64 lat)
{
	struct us_opstat *os = r->os;

	/* Far beyond any real request (2^40 ns is 18 minutes: the top bucket): a torn read of
	 * a start time, not a latency. */
	if (lat >> 50) {
		tool_count(US_TOOL_LATENCY_TORN);
		return false;
	}
	latency_add(os->hist, &os->counters[US_OC_LAT_SUM_NS], &os->counters[US_OC_LAT_MAX_NS], lat,
		    r->serial);
	return true;
}

/* Per-(ring, op, errno) counts, so the report can name the codes behind an error rate.
 * (Errors are rare: reading the row's first line here costs nothing that matters.) */
static __always_inline void count_errno(const struct us_opstat *os, __s32 res)
{
	struct us_errno_key key = {
		.ring = os->ring,
		.opcode = (__u16)os->opcode,
		.err = (__u16)(-res),
	};

	hash_count(&errnos, &key, US_TOOL_ERRNO_FULL);
}

static __always_inline void count_cqe(const struct us_cqe_row *r, __s32 res, __u32 cflags)
{
	opstat_add(r->os, US_OC_COMPLETED, 1, r->serial);
	if (res > 0 && r->opcode < 64 && ((US_DATA_OPS >> r->opcode) & 1))
		opstat_add(r->os, US_OC_BYTES, res, r->serial);
	if (res < 0 && res != -US_EAGAIN) {
		opstat_add(r->os, US_OC_ERRORS, 1, r->serial);
		count_errno(r->os, res);
	}
	/* A zero-copy send's F_MORE announces its notification, not more results. */
	if ((cflags & US_CQE_F_MORE) && !is_zero_copy_send(r->opcode))
		opstat_add(r->os, US_OC_MULTISHOT_CQES, 1, r->serial);
}

/* The time from submit to now; false, with the loss counted, when the entry's start
 * time is not one (being rewritten by a racing submit). */
static __always_inline bool elapsed_since(__u64 start_ns, __u64 now, __u64 *elapsed)
{
	if (!start_ns || start_ns > now) {
		tool_count(US_TOOL_LATENCY_TORN);
		return false;
	}
	*elapsed = now - start_ns;
	return true;
}

#endif /* URINGSCOPE_CQE_COUNTS_BPF_H */
