/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
#ifndef URINGSCOPE_BITS_BPF_H
#define URINGSCOPE_BITS_BPF_H

#include "vmlinux.h"
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

static __always_inline __u32 hist_slot(__u64 ns)
{
	__u32 slot = log2_u64(ns);

	return slot < US_HIST_SLOTS ? slot : US_HIST_SLOTS - 1;
}

#endif /* URINGSCOPE_BITS_BPF_H */
