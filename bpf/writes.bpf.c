// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * Short writes: io_uring_short_write(ctx, fpos, wanted, got), 6.0+, fires in io_write()
 * when a nonblocking buffered write wrote only part of its data; the rest is retried
 * from io-wq.
 */
#include "tables.bpf.h"
#include "catch.bpf.h"
#include <bpf/bpf_tracing.h>

US_PROG("tp_btf/io_uring_short_write", usc_short_write,
	void *ring_ctx, __u64 fpos, __u64 wanted, __u64 got)
{
	__u32 ring = ring_lookup((__u64)ring_ctx);

	if (ring != US_NO_RING)
		ring_count(ring, US_RC_SHORT_WRITES, 1);
	return 0;
}
