/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/* A destroyed ring's row, queued for userspace to copy out and give back (retire.bpf.c,
 * rings.bpf.c; the userspace half is src/loader/ring_reclaim.cpp). */
#ifndef URINGSCOPE_ROW_RETIRE_BPF_H
#define URINGSCOPE_ROW_RETIRE_BPF_H

#include "state.bpf.h"

/*
 * Queues a destroyed ring's row for userspace to copy out and give back. Two paths retire
 * rows (the teardown's end, and a new ring at a freed ring's address) and may race for
 * one row: the row's flag lets the first one queue it. A row queued twice would be given
 * back twice, and its second reclaim would clear a row a new ring already holds.
 */
static __always_inline void row_retire(__u32 row)
{
	struct us_retired retired = { .row = row };
	struct us_ring_info *info;

	if (row == US_RING_CATCHALL)
		return;
	info = bpf_map_lookup_elem(&ring_info, &row);
	if (!info || __sync_val_compare_and_swap(&info->retired, 0, 1) != 0)
		return;
	retired.ns = bpf_ktime_get_ns();
	/* The queue holds every row, so it cannot be full; if it were, the row would only
	 * stay unused (its numbers are still read with the live rows). */
	bpf_map_push_elem(&retired_rings, &retired, 0);
}

#endif
