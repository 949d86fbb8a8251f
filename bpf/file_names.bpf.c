/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * The name of a file, made in the kernel at its first CQE while the request still holds
 * it open: programs open, read and close files inside the window, and nothing in /proc
 * could name them afterwards. bpf_d_path() is not allowed in tracepoint programs, so the
 * path is walked here: dentry names up to the mount's root, then across mount points up
 * to the process's root (or the root of the mount tree), leaf first (userspace joins
 * them in reverse). Sockets add their family, ports and addresses; userspace turns the
 * inode's mode and filesystem magic into a kind (pipe, anon inode, device).
 *
 * A global function, so the verifier checks the walk once, on its own, instead of once
 * per place a CQE program reaches it (inlined, the loop took the CQE program past the
 * verifier's million instructions).
 */
#include "state.bpf.h"
#include "files.bpf.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#define US_S_IFMT 0170000
#define US_S_IFSOCK 0140000
#define US_AF_INET 2
#define US_AF_INET6 10

_Static_assert(US_PATH_BYTES >= 3 * US_PATH_NAME_MAX, "room for the longest component");

/* One component, onto the end of n->path; false ends the walk. */
static __always_inline bool path_push(struct us_file_name *n, __u32 *off, struct dentry *d)
{
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	__u32 at = *off;
	long len;

	if (at > US_PATH_BYTES - US_PATH_NAME_MAX) {
		n->flags |= US_FN_CUT;
		return false;
	}
	len = bpf_probe_read_kernel_str(&n->path[at], US_PATH_NAME_MAX, name);
	if (len <= 0) {
		n->flags |= US_FN_UNREAD;
		return false;
	}
	*off = at + (__u32)len;
	n->components++;
	return true;
}

/*
 * A dentry that is its own parent and not its mount's root belongs to no directory: the
 * dentry of a pipe, socket or anon inode (its name, e.g. "[eventfd]", is all there is).
 */
static __always_inline void path_walk(struct us_file_name *n, struct file *f)
{
	/* The path as the process sees it ends at its root (a chroot, a container's root),
	 * as d_path() does. CQEs are posted by the owner's threads, its io-wq workers or its
	 * SQPOLL thread, which all share its fs_struct. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct dentry *root = BPF_CORE_READ(task, fs, root.dentry);
	struct vfsmount *root_mnt = BPF_CORE_READ(task, fs, root.mnt);
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *vfs = BPF_CORE_READ(f, f_path.mnt);
	__u64 mnt_off = bpf_core_field_offset(struct mount, mnt);
	struct mount *mnt = (struct mount *)((__u64)vfs - mnt_off);
	__u32 off = 0;

	for (int i = 0; i < US_PATH_DEPTH; i++) {
		struct dentry *parent = BPF_CORE_READ(d, d_parent);
		struct mount *up;

		if (d == root && vfs == root_mnt)
			return;
		if (d == BPF_CORE_READ(vfs, mnt_root)) {
			up = BPF_CORE_READ(mnt, mnt_parent);
			if (!up || up == mnt)
				return; /* the root of the mount tree */
			d = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = up;
			vfs = (struct vfsmount *)((__u64)up + mnt_off);
			continue;
		}
		if (d == parent || !parent) {
			n->flags |= US_FN_PSEUDO;
			path_push(n, &off, d);
			return;
		}
		if (!path_push(n, &off, d))
			return;
		d = parent;
	}
	n->flags |= US_FN_CUT;
}

static __always_inline void name_socket(struct us_file_name *n, struct file *f)
{
	struct socket *sock = BPF_CORE_READ(f, private_data);
	struct sock *sk = BPF_CORE_READ(sock, sk);

	if (!sk)
		return;
	n->flags |= US_FN_SOCKET;
	n->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	n->sock_type = BPF_CORE_READ(sk, sk_type);
	n->protocol = BPF_CORE_READ(sk, sk_protocol);
	n->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	n->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (n->family == US_AF_INET) {
		BPF_CORE_READ_INTO((__u32 *)n->laddr, sk, __sk_common.skc_rcv_saddr);
		BPF_CORE_READ_INTO((__u32 *)n->raddr, sk, __sk_common.skc_daddr);
	} else if (n->family == US_AF_INET6) {
		sock_v6_addresses(sk, (struct in6_addr *)n->laddr, (struct in6_addr *)n->raddr);
	}
}

static __always_inline void name_clear(struct us_file_name *n)
{
	__u64 *words = (__u64 *)&n->dev;

	/* Every field but the path, whose bytes past `components` are never read. */
	for (int i = 0; i < (int)((offsetof(struct us_file_name, path) - 8) / 8); i++)
		words[i] = 0;
}

/* The name of the file behind id, once per inode; a full table leaves it unnamed. The
 * arguments are plain numbers, as a global function's must be. */
__noinline int us_name_file(__u64 file, __u64 inode_addr, __u64 ino, __u32 gen)
{
	struct us_file_id id = { .inode = inode_addr, .ino = ino, .gen = gen };
	struct inode *inode = (struct inode *)inode_addr;
	struct file *f = (struct file *)file;
	struct us_file_name *n;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(&file_names, &id))
		return 0;
	n = bpf_map_lookup_elem(&name_scratch, &zero);
	if (!n)
		return 0;
	name_clear(n);
	n->ino = ino;
	n->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	n->magic = (__u32)BPF_CORE_READ(inode, i_sb, s_magic);
	n->mode = BPF_CORE_READ(inode, i_mode);
	if ((n->mode & US_S_IFMT) == US_S_IFSOCK)
		name_socket(n, f);
	path_walk(n, f);
	if (bpf_map_update_elem(&file_names, &id, n, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&file_names, &id))
		tool_count(US_TOOL_NAMES_FULL);
	return 0;
}
