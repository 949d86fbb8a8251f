// SPDX-License-Identifier: MIT
#include "probe/choosers.h"

#include <optional>
#include <string>

namespace uringscope {

namespace {

// A scheduler tracepoint's typedef is btf_trace_<event>, without the io_uring_ prefix.
// The off-choice when it is missing or not a prototype; nullopt when it is there.
std::optional<Choice<bool>> sched_tracepoint_off(const Prototype& tp, std::string_view event,
                                                 FeatureId feature) {
  switch (tp.status) {
    case Prototype::Status::Absent:
      return Choice<bool>{false, join("no " + std::string(event) + " tracepoint", loss_of(feature)), {}};
    case Prototype::Status::Malformed:
      return Choice<bool>{false,
                          join("btf_trace_" + std::string(event) +
                                   " is not a pointer to a function prototype",
                               loss_of(feature), "; "),
                          {}};
    case Prototype::Status::Found:
      break;
  }
  return std::nullopt;
}

}  // namespace

// sched_switch gained prev_state in 5.18; the program reads only (preempt, prev, next).
Choice<bool> choose_io_threads(const btf* vmlinux) {
  const Prototype tp = find_typedef_proto(vmlinux, "btf_trace_sched_switch");
  if (auto off = sched_tracepoint_off(tp, "sched_switch", FeatureId::IoThreads)) return *off;
  if (tp.args == 3 || tp.args == 4)
    return {true, "sched_switch(preempt, prev, next[, prev_state])", "usc_sched"};
  return {false,
          join("sched_switch has " + std::to_string(tp.args) + " args: unrecognised prototype",
               loss_of(FeatureId::IoThreads), "; "),
          {}};
}

// 6.0's io_uring_file_get(req, fd) and 5.15's (ctx, fd) have the same count: only the
// first argument's type tells them apart.
Choice<bool> choose_file_get(const btf* vmlinux) {
  const Prototype tp = find_tracepoint(vmlinux, "file_get");
  switch (tp.status) {
    case Prototype::Status::Absent:
      return {false, join("no io_uring_file_get tracepoint", loss_of(FeatureId::FileGet)), {}};
    case Prototype::Status::Malformed:
      return {false, malformed_reason("file_get", loss_of(FeatureId::FileGet)), {}};
    case Prototype::Status::Found:
      break;
  }
  const bool request_first = arg_points_to_struct(vmlinux, tp, 0, "io_kiocb");
  if (tp.args == 2 && request_first)
    return {true, "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)", "usc_file_get"};
  if (request_first) return {false, arg_count_reason("file_get", tp.args, loss_of(FeatureId::FileGet)), {}};
  return {false,
          join("io_uring_file_get has " + std::to_string(tp.args) +
                   " args without a request first: an older shape",
               loss_of(FeatureId::FileGet), "; "),
          {}};
}

Choice<bool> choose_fork(const btf* vmlinux) {
  const Prototype tp = find_typedef_proto(vmlinux, "btf_trace_sched_process_fork");
  if (auto off = sched_tracepoint_off(tp, "sched_process_fork", FeatureId::Fork)) return *off;
  if (tp.args == 2 && arg_points_to_struct(vmlinux, tp, 0, "task_struct") &&
      arg_points_to_struct(vmlinux, tp, 1, "task_struct"))
    return {true, "sched_process_fork(parent, child) (used by -f)", "usc_fork"};
  return {false,
          join("sched_process_fork is not (task_struct *parent, task_struct *child): "
               "unrecognised prototype",
               loss_of(FeatureId::Fork), "; "),
          {}};
}

// sched_process_exit(task[, group_dead]): where a followed process stops being a target.
// Without it -f still follows; a recycled pid could then join the targets.
bool process_exit_traceable(const btf* vmlinux) {
  const Prototype tp = find_typedef_proto(vmlinux, "btf_trace_sched_process_exit");
  return tp.status == Prototype::Status::Found && tp.args >= 1 &&
         arg_points_to_struct(vmlinux, tp, 0, "task_struct");
}

Choice<bool> choose_fd_walk(const btf* vmlinux) {
  if (btf__find_by_name_kind(vmlinux, "bpf_iter__task_file", BTF_KIND_STRUCT) > 0)
    return {true, "BPF task_file iterator (bpf_iter__task_file), 5.8+", "usc_ring_fds"};
  return {false, join("no bpf_iter__task_file in kernel BTF (added in 5.8)", loss_of(FeatureId::FdWalk)), {}};
}

// The fentry program first: the syscall tracepoint slows every syscall on the machine.
// Whether a trampoline attaches is only known by trying (the kernel may lack ftrace), so
// with both available both are loaded and the tracer keeps the tracepoint as fallback.
Choice<bool> choose_enter(const btf* vmlinux, const ProbeEnvironment& env) {
  const bool refused = env.enter_fentry.state == FentryTrial::Refused;
  // The fentry goes on the architecture's syscall entry, e.g. __x64_sys_io_uring_enter(
  // const struct pt_regs *), which is traceable (the typed __do_sys_ body is `inline`,
  // so notrace). Another architecture's entry would not do: the object reads this one's
  // pt_regs.
  const std::string entry = enter_fentry_function(env.arch);
  const bool fentry = takes_only_pt_regs(vmlinux, entry.c_str()) && !refused;
  // The trial load failed: this kernel takes no trampoline, say so once here rather than
  // fail the same load again in the tracer.
  if (refused && env.syscall_tracepoints)
    return {true,
            "syscalls/sys_enter_io_uring_enter tracepoint (fentry refused: " +
                env.enter_fentry.reason + ")",
            "usc_enter"};
  if (fentry && env.syscall_tracepoints)
    return {true, "fentry on " + entry + ", else the syscalls/sys_enter_io_uring_enter tracepoint",
            "usc_enter_fentry"};
  if (fentry) return {true, "fentry on " + entry, "usc_enter_fentry"};
  if (env.syscall_tracepoints)
    return {true, "syscalls/sys_enter_io_uring_enter tracepoint", "usc_enter"};
  return {false,
          join("no syscalls/sys_enter_io_uring_enter tracepoint (needs CONFIG_FTRACE_SYSCALLS) "
               "and no " + entry + " for fentry",
               loss_of(FeatureId::Enter)),
          {}};
}

// The end of io_ring_exit_work() is where a ring's row can be given back: it runs as a
// work item on ctx->exit_work, and workqueue_execute_end (5.8+) names the work and its
// function. Without kallsyms the program still works, at the cost of a lookup for every
// work item on the machine instead of one comparison.
Choice<bool> choose_ring_exit(const btf* vmlinux, const ProbeEnvironment& env) {
  const FeatureId id = FeatureId::RingExit;
  const Prototype tp = find_typedef_proto(vmlinux, "btf_trace_workqueue_execute_end");
  if (auto off = sched_tracepoint_off(tp, "workqueue_execute_end", id)) return *off;
  if (tp.args != 2 || !arg_points_to_struct(vmlinux, tp, 0, "work_struct"))
    return {false,
            join("workqueue_execute_end is not (work_struct *work, work_func_t function): "
                 "unrecognised prototype",
                 loss_of(id), "; "),
            {}};
  if (!struct_has_member(vmlinux, "io_ring_ctx", "exit_work") ||
      btf__find_by_name_kind(vmlinux, kRingExitFunction, BTF_KIND_FUNC) <= 0)
    return {false, join("no io_ring_ctx.exit_work or io_ring_exit_work in kernel BTF", loss_of(id), "; "),
            {}};
  if (env.ring_exit_work)
    return {true, "workqueue_execute_end of io_ring_exit_work", "usc_ring_exit"};
  return {true,
          "workqueue_execute_end, every work item looked up (io_ring_exit_work not in "
          "/proc/kallsyms)",
          "usc_ring_exit"};
}

// The request behind a CQE the complete tracepoint posts without one, from an fentry
// on the function posting it. Whether trampolines load at all is known from the trial on
// io_uring_enter's entry (the refusal is the kernel's, not the function's), so a refused
// trial costs this feature too without a second trial.
Choice<bool> choose_aux_req(const btf* vmlinux, const ProbeEnvironment& env) {
  const FeatureId id = FeatureId::AuxReq;
  if (!first_param_points_to(vmlinux, kAuxPostFunction, "io_kiocb"))
    return {false,
            join(std::string("no ") + kAuxPostFunction + "(struct io_kiocb *, ...) in kernel BTF",
                 loss_of(id), "; "),
            {}};
  if (env.enter_fentry.state == FentryTrial::Refused)
    return {false, join("fentry refused: " + env.enter_fentry.reason, loss_of(id), "; "), {}};
  return {true, std::string("fentry on ") + kAuxPostFunction, "usc_aux_req"};
}

}  // namespace uringscope
