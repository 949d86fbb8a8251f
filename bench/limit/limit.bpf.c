// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * bench/'s limits: one program per program of uringscope's BPF object, on the same
 * section (so the same hook), each returning at once. Attached on exactly the hooks a
 * real run attached (bench/limit/limit.cpp), they cost what being run there costs and
 * nothing more: the physical limit of the design. With `timed` set, the programs on the
 * submit and CQE tracepoints read the clock once before returning, the least that timing
 * a request needs.
 *
 * limit_in_step (bench/limit/in_step_test.cpp) fails when a program is added to, renamed
 * in or moved in bpf/ without its twin here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

const volatile bool timed = false;

#define EMPTY(section, name)  \
	SEC(section)          \
	int name(void *ctx)   \
	{                     \
		return 0;     \
	}

#define TIMED(section, name)              \
	SEC(section)                      \
	int name(void *ctx)               \
	{                                 \
		if (timed)                \
			bpf_ktime_get_ns(); \
		return 0;                 \
	}

/* A program of bpf/catch.bpf.h's US_PROG and its catcher, which returns at once here
 * (a real catcher does too for every event its program ran for). */
#define EMPTY_PAIR(section, name) EMPTY(section, name) EMPTY(section, name##_catch)
#define TIMED_PAIR(section, name) TIMED(section, name) EMPTY(section, name##_catch)

/* rings.bpf.c */
EMPTY_PAIR("tp_btf/io_uring_create", usc_create)
EMPTY("iter/task_file", usc_ring_fds)
#if defined(__TARGET_ARCH_arm64)
EMPTY("fentry/__arm64_sys_io_uring_enter", usc_enter_fentry)
#else
EMPTY("fentry/__x64_sys_io_uring_enter", usc_enter_fentry)
#endif
EMPTY("tp/syscalls/sys_enter_io_uring_enter", usc_enter)
/* retire.bpf.c */
EMPTY_PAIR("raw_tp/workqueue_execute_end", usc_ring_exit)
EMPTY("raw_tp/workqueue_execute_start", usc_ring_teardown)
/* submit.bpf.c */
TIMED_PAIR("tp_btf/io_uring_submit_req", usc_sub_req)
TIMED_PAIR("tp_btf/io_uring_submit_sqe", usc_sub_sqe)
TIMED_PAIR("tp_btf/io_uring_submit_sqe", usc_sub_sqe_ctx)
EMPTY_PAIR("tp_btf/io_uring_req_failed", usc_req_failed)
/* complete.bpf.c */
TIMED_PAIR("tp_btf/io_uring_complete", usc_cqe)
TIMED_PAIR("tp_btf/io_uring_complete", usc_cqe_req)
TIMED_PAIR("tp_btf/io_uring_complete", usc_cqe_ud)
EMPTY_PAIR("tp_btf/io_uring_cqe_overflow", usc_cqe_ovf)
/* aux_req.bpf.c */
EMPTY("fentry/io_req_post_cqe", usc_aux_req)
/* punt.bpf.c */
EMPTY_PAIR("tp_btf/io_uring_queue_async_work", usc_punt)
EMPTY_PAIR("tp_btf/io_uring_queue_async_work", usc_punt_ctx_req)
EMPTY_PAIR("tp_btf/io_uring_queue_async_work", usc_punt_ctx_rw)
/* poll.bpf.c */
EMPTY_PAIR("tp_btf/io_uring_poll_arm", usc_poll_arm)
EMPTY_PAIR("tp_btf/io_uring_poll_arm", usc_poll_arm_ctx)
/* taskwork.bpf.c */
EMPTY_PAIR("tp_btf/io_uring_task_add", usc_task_add)
EMPTY_PAIR("tp_btf/io_uring_task_work_run", usc_tw_run)
EMPTY_PAIR("tp_btf/io_uring_local_work_run", usc_local_tw)
/* writes.bpf.c */
EMPTY_PAIR("tp_btf/io_uring_short_write", usc_short_write)
/* threads.bpf.c */
EMPTY("tp_btf/sched_switch", usc_sched)
EMPTY_PAIR("tp_btf/sched_process_exit", usc_thread_exit)
/* trace.bpf.c */
EMPTY_PAIR("tp_btf/io_uring_file_get", usc_file_get)
EMPTY("raw_tp", usc_trace_flush)
/* follow.bpf.c */
EMPTY_PAIR("tp_btf/sched_process_fork", usc_fork)
EMPTY_PAIR("tp_btf/sched_process_exit", usc_fork_exit)
/* check.bpf.c */
EMPTY("tp/syscalls/sys_enter_mremap", usc_ck_mremap)
EMPTY("tp/syscalls/sys_exit_mremap", usc_ck_mremap_exit)
EMPTY("tp/syscalls/sys_enter_munmap", usc_ck_munmap)
EMPTY("tp/syscalls/sys_enter_madvise", usc_ck_madvise)
EMPTY("tp/syscalls/sys_enter_io_uring_register", usc_ck_register)
/* liburing.bpf.c */
EMPTY("uprobe", usc_lu_submit)
EMPTY("uretprobe", usc_lu_submit_ret)
EMPTY("uprobe", usc_lu_get)
EMPTY("uretprobe", usc_lu_get_ret)
EMPTY("uprobe", usc_lu_batch)
EMPTY("uretprobe", usc_lu_batch_ret)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
