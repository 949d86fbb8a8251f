/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * Per-file attribution: each CQE of a request with a file counts on its (ring, opcode,
 * file) row in file_stats, and the final CQE adds the request with its latency, whether
 * it was punted and whether the file was opened O_DIRECT. The file is req->file at the
 * CQE: for a fixed file that is the registered file it resolved to at issue
 * (io_assign_file), never its index. Requests without a file (NOP, TIMEOUT, ...) have
 * none and cost one read. A full table leaves the CQE out of the per-file rows only, and
 * counts it (US_TOOL_FILES_FULL).
 */
#ifndef URINGSCOPE_FILES_BPF_H
#define URINGSCOPE_FILES_BPF_H

#include "tables.bpf.h"
#include "bits.bpf.h"

/* O_DIRECT is per architecture in the UAPI (asm/fcntl.h). */
#if defined(__TARGET_ARCH_arm64)
#define US_O_DIRECT 0200000
#else
#define US_O_DIRECT 040000
#endif

/* Names the file behind (inode, ino, gen) once (file_names.bpf.c). */
int us_name_file(__u64 file, __u64 inode_addr, __u64 ino, __u32 gen);

/* The request a CQE belongs to, as its in-flight entry had it. */
struct us_file_req {
	__u64 req;
	__u32 ring, opcode, state;
};

/* What the CQE found: the row, and the file's open flags at this CQE. */
struct us_file_hit {
	struct us_filestat *row;
	__u32 f_flags;
};

static __always_inline void file_id_of(struct file *f, struct us_file_id *id)
{
	struct inode *inode = BPF_CORE_READ(f, f_inode);

	id->inode = (__u64)inode;
	id->ino = BPF_CORE_READ(inode, i_ino);
	id->gen = BPF_CORE_READ(inode, i_generation);
}

static __always_inline struct us_filestat *file_row_of(struct file *f, __u32 ring, __u32 opcode)
{
	struct us_file_key key = { .ring = ring, .opcode = op_slot(opcode) };
	struct us_filestat *row, *zero;
	__u32 first = 0;

	file_id_of(f, &key.id);
	row = bpf_map_lookup_elem(&file_stats, &key);
	if (row)
		return row;
	zero = bpf_map_lookup_elem(&filestat_zero, &first);
	if (zero && !bpf_map_update_elem(&file_stats, &key, zero, BPF_NOEXIST))
		us_name_file((__u64)f, key.id.inode, key.id.ino, key.id.gen);
	row = bpf_map_lookup_elem(&file_stats, &key); /* or another CPU made it first */
	if (!row)
		tool_count(US_TOOL_FILES_FULL);
	return row;
}

/*
 * A request that holds its file before its first CQE (at its poll arm, at its punt): its
 * file's row is made, and the file named, while the file is surely open, and the file is
 * noted under the request (req_files) for the leak scan: a request that never completes
 * has no CQE to name it. Returns the row; NULL when the request has no file yet.
 */
static __always_inline struct us_filestat *file_note_request(__u64 req_addr,
							     const struct us_inflight *w,
							     __u32 ring, __u32 opcode)
{
	struct file *f = BPF_CORE_READ((struct io_kiocb *)req_addr, file);
	struct us_req_file note = {};
	struct us_filestat *row;

	if (!f)
		return NULL;
	row = file_row_of(f, ring, opcode);
	if (w) {
		file_id_of(f, &note.id);
		note.start_ns = w->start_ns;
		bpf_map_update_elem(&req_files, &req_addr, &note, BPF_ANY);
	}
	return row;
}

/* Counts one CQE of the request at req_addr on its file's row; hit->row stays NULL for a
 * request without a file. */
static __always_inline void file_cqe(struct us_file_hit *hit, __u64 req_addr, __u32 ring,
				     __u32 opcode, __s32 res)
{
	struct file *f = BPF_CORE_READ((struct io_kiocb *)req_addr, file);
	struct us_filestat *row;

	if (!f)
		return;
	row = file_row_of(f, ring, opcode);
	if (!row)
		return;
	hit->row = row;
	hit->f_flags = BPF_CORE_READ(f, f_flags);
	__sync_fetch_and_add(&row->counters[US_FC_CQES], 1);
	if (res > 0 && opcode < 64 && ((US_DATA_OPS >> opcode) & 1))
		__sync_fetch_and_add(&row->counters[US_FC_BYTES], res);
	if (res < 0 && res != -US_EAGAIN)
		__sync_fetch_and_add(&row->counters[US_FC_ERRORS], 1);
}

/* The request ended at the CQE file_cqe() counted. lat is its latency, or US_NO_LATENCY
 * for one that has none (never seen submitted, rejected before issue, torn). */
#define US_NO_LATENCY (~0ull)
static __always_inline void file_end(const struct us_file_hit *hit, __u32 state, bool tracked,
				     __u64 lat)
{
	struct us_filestat *row = hit->row;

	if (!row)
		return;
	__sync_fetch_and_add(&row->counters[US_FC_REQUESTS], 1);
	if (state & US_IF_PUNTED)
		__sync_fetch_and_add(&row->counters[US_FC_PUNTED], 1);
	if (!tracked)
		__sync_fetch_and_add(&row->counters[US_FC_UNTRACKED], 1);
	if (hit->f_flags & US_O_DIRECT)
		__sync_fetch_and_add(&row->counters[US_FC_DIRECT], 1);
	if (lat != US_NO_LATENCY)
		latency_add(row->hist, &row->counters[US_FC_LAT_SUM_NS],
			    &row->counters[US_FC_LAT_MAX_NS], lat, false);
}

#endif /* URINGSCOPE_FILES_BPF_H */
