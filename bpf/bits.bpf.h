/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
#ifndef URINGSCOPE_BITS_BPF_H
#define URINGSCOPE_BITS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringscope.h"

/* floor(log2(v)) for v > 0, 0 for v == 0; branch-light so the verifier sees no loop. */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

/*
 * The slot as a bounded 64-bit value. Clang would clamp a __u32 with a 32-bit compare;
 * the 6.1 verifier then keeps the 64-bit register unbounded and rejects the later
 * hist[slot] access ("math between map_value pointer and register with unbounded min
 * value"), while 6.12+ accept it. The empty asm makes clang compare the full register.
 */
static __always_inline __u64 hist_slot(__u64 ns)
{
	__u64 slot = log2_u64(ns);

	asm volatile("" : "+r"(slot));
	if (slot > US_HIST_SLOTS - 1)
		slot = US_HIST_SLOTS - 1;
	return slot;
}

/* 1 when x != 0, else 0, without a compare: the asm keeps clang from folding it back
 * into one (a compare is a branch in BPF). */
static __always_inline __u64 nonzero_flat(__u64 x)
{
	__u64 neg = -x;

	asm volatile("" : "+r"(neg));
	return (x | neg) >> 63;
}

/*
 * hist_slot() without a branch on `ns`. In a loop the verifier walks each iteration's
 * paths apart until they meet in the same state, and log2_u64()'s compares split the
 * value itself by range (every copy of a register is narrowed with it): five compares
 * carry up to 40 versions of the lag through the rest of the iteration. Here only the
 * final clamp branches, on the slot.
 */
static __always_inline __u64 hist_slot_flat(__u64 ns)
{
	__u64 v = ns, r = 0, shift;

	shift = nonzero_flat(v >> 32) << 5; v >>= shift; r |= shift;
	shift = nonzero_flat(v >> 16) << 4; v >>= shift; r |= shift;
	shift = nonzero_flat(v >> 8) << 3; v >>= shift; r |= shift;
	shift = nonzero_flat(v >> 4) << 2; v >>= shift; r |= shift;
	shift = nonzero_flat(v >> 2) << 1; v >>= shift; r |= shift;
	r |= (v >> 1) & 1;
	asm volatile("" : "+r"(r));
	if (r > US_HIST_SLOTS - 1)
		r = US_HIST_SLOTS - 1;
	return r;
}

/*
 * n more in a shared counter. serial: the caller's kernel context already keeps any
 * other writer of this slot out (opstat_serial() in tables.bpf.h), so a plain add
 * is exact; a locked add drains the store buffer, and the CQE program's three per
 * request were over a quarter of its samples (docs/overhead.md).
 */
static __always_inline void counter_add(__u64 *slot, __u64 n, bool serial)
{
	if (serial)
		*slot += n;
	else
		__sync_fetch_and_add(slot, n);
}

/* One latency into a log2 histogram with its sum and maximum. A lost race on the
 * maximum under-reports it by one concurrent sample at most. */
static __always_inline void latency_add(__u64 *hist, __u64 *sum, __u64 *max, __u64 lat,
					bool serial)
{
	counter_add(&hist[hist_slot(lat)], 1, serial);
	counter_add(sum, lat, serial);
	if (lat > *max)
		*max = lat;
}

#endif /* URINGSCOPE_BITS_BPF_H */
