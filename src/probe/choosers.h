// SPDX-License-Identifier: MIT
// One chooser per feature: reads the tracepoint's prototype in BTF and picks the BPF
// program variant that reads that shape, or says why the feature is off.
#pragma once

#include "probe/choice.h"
#include "probe/probe.h"

namespace uringscope {

// The spine: several shapes across kernels (spine_choosers.cpp).
Choice<SubmitShape> choose_submit(const btf* vmlinux);
Choice<CompleteShape> choose_complete(const btf* vmlinux);
Choice<PuntShape> choose_punt(const btf* vmlinux);

// Turns a spine choice off, naming the helpers, when its program calls BPF helpers the
// kernel lacks, whatever the tracepoint's shape (helper_floor.cpp).
void require_spine_helpers(const btf* vmlinux, Choice<SubmitShape>& submit,
                           Choice<CompleteShape>& complete);

// io_uring events read in one or two shapes (event_choosers.cpp).
Choice<bool> choose_create(const btf* vmlinux);
Choice<bool> choose_overflow(const btf* vmlinux);
Choice<bool> choose_poll_arm(const btf* vmlinux);
Choice<bool> choose_task_add(const btf* vmlinux);
Choice<bool> choose_task_work(const btf* vmlinux);
Choice<bool> choose_local_work(const btf* vmlinux);
Choice<bool> choose_short_write(const btf* vmlinux);
Choice<bool> choose_req_failed(const btf* vmlinux);

// Scheduler, syscall and iterator hooks, and file_get (host_choosers.cpp).
Choice<bool> choose_io_threads(const btf* vmlinux);
Choice<bool> choose_file_get(const btf* vmlinux);
Choice<bool> choose_fork(const btf* vmlinux);
// sched_process_exit with the exiting task first: -f drops exited processes there.
bool process_exit_traceable(const btf* vmlinux);
Choice<bool> choose_fd_walk(const btf* vmlinux);
Choice<bool> choose_enter(const btf* vmlinux, const ProbeEnvironment& env);
Choice<bool> choose_ring_exit(const btf* vmlinux, const ProbeEnvironment& env);
Choice<bool> choose_aux_req(const btf* vmlinux, const ProbeEnvironment& env);

// Whether this kernel runs tracepoint programs preemptibly, so that each program loads
// with its catcher (catchers.cpp).
Choice<bool> choose_catchers(const ProbeEnvironment& env);

// --check's detectors (check_choosers.cpp).
Choice<bool> choose_check_overlap(const btf* vmlinux);
Choice<bool> choose_check_unmap(const ProbeEnvironment& env);
Choice<bool> choose_check_bufreg(const ProbeEnvironment& env);

}  // namespace uringscope
