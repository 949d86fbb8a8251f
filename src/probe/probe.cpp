// SPDX-License-Identifier: MIT
#include "probe/probe.h"

#include <bpf/btf.h>

#include <array>
#include <initializer_list>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace uringscope {

namespace {

// What each feature costs the user when it is off; every off-reason ends with one.
constexpr std::string_view kSubmitLoss =
    "requests are not tracked: no submissions, opcodes or latencies";
constexpr std::string_view kCompleteLoss = "completions, errors and latencies are not measured";
constexpr std::string_view kPuntLoss = "punts to io-wq are not counted";
constexpr std::string_view kCreateLoss =
    "rings created during the run are found at their first submission, without sizes or "
    "setup flags";
constexpr std::string_view kOverflowLoss = "overflowed CQEs are not counted";
constexpr std::string_view kFdWalkLoss =
    "rings opened before attach are found only at their first submission, without fd, "
    "sizes or setup flags";
constexpr std::string_view kEnterLoss =
    "io_uring_enter calls and submit batch sizes are not counted";
constexpr std::string_view kPollArmLoss = "poll-arm retries (POLL-RETRY) are not counted";
constexpr std::string_view kTaskAddLoss =
    "poll wakeups queued as task work are not counted (DEFER-TW cannot measure lag)";
constexpr std::string_view kTaskWorkLoss = "task-work runs are not counted";
constexpr std::string_view kLocalWorkLoss =
    "DEFER_TASKRUN local task work is not counted (no DEFER-TW finding)";
constexpr std::string_view kShortWriteLoss = "short writes are not counted";
constexpr std::string_view kReqFailedLoss =
    "requests rejected before issue are counted only by their CQE, possibly under the "
    "wrong opcode";
constexpr std::string_view kFileGetLoss =
    "--trace cannot show which io-wq worker issued a punted request";
constexpr std::string_view kForkLoss = "-f cannot follow forked children";
constexpr std::string_view kIoThreadsLoss =
    "SQPOLL sleeps and io-wq workers are not seen (no SQPOLL or WORKERS finding)";

// Typedef chains in real BTF are a few links long; the cap only guards against a
// corrupt (cyclic) chain turning the probe into an endless loop.
constexpr int kMaxAliasDepth = 32;

// "<what is wrong><sep><what the user loses>"; after "unrecognised prototype" a colon
// would read as if the loss explained the prototype, hence the separator.
std::string join(std::string_view head, std::string_view loss, std::string_view sep = ": ") {
  std::string out(head);
  out += sep;
  out += loss;
  return out;
}

// The type behind typedefs and const/volatile/restrict/type-tag wrappers: that is what
// decides an argument's width, not the spelling (u8, __u8, unsigned char).
const btf_type* skip_aliases(const btf* vmlinux, __u32 id) {
  for (int depth = 0; depth < kMaxAliasDepth; ++depth) {
    const btf_type* type = btf__type_by_id(vmlinux, id);
    if (type == nullptr) return nullptr;
    if (!btf_is_typedef(type) && !btf_is_mod(type)) return type;
    id = type->type;
  }
  return nullptr;
}

struct Prototype {
  enum class Status { Absent, Malformed, Found };
  Status status = Status::Absent;
  const btf_type* proto = nullptr;
  int args = 0;  // parameters after the leading void *, i.e. what tp_btf sees as ctx[]
};

Prototype find_typedef_proto(const btf* vmlinux, const std::string& name) {
  const int id = btf__find_by_name_kind(vmlinux, name.c_str(), BTF_KIND_TYPEDEF);
  if (id <= 0) return {};
  const btf_type* tdef = btf__type_by_id(vmlinux, static_cast<__u32>(id));
  const btf_type* ptr = tdef ? skip_aliases(vmlinux, tdef->type) : nullptr;
  if (ptr == nullptr || !btf_is_ptr(ptr)) return {Prototype::Status::Malformed};
  const btf_type* proto = skip_aliases(vmlinux, ptr->type);
  // Every tracepoint prototype starts with the void * of the probe data; without it the
  // argument numbering below would be off by one.
  if (proto == nullptr || !btf_is_func_proto(proto) || btf_vlen(proto) == 0)
    return {Prototype::Status::Malformed};
  return {Prototype::Status::Found, proto, btf_vlen(proto) - 1};
}

Prototype find_tracepoint(const btf* vmlinux, std::string_view event) {
  return find_typedef_proto(vmlinux, "btf_trace_io_uring_" + std::string(event));
}

// Byte size of tracepoint argument `index` (0-based, after the void *) when it is an
// integer; 0 when it is anything else.
unsigned int_arg_size(const btf* vmlinux, const Prototype& tp, int index) {
  if (index < 0 || index >= tp.args) return 0;
  const btf_param& param = btf_params(tp.proto)[index + 1];
  const btf_type* type = skip_aliases(vmlinux, param.type);
  return type != nullptr && btf_is_int(type) ? type->size : 0;
}

std::string arg_count_reason(std::string_view event, int args, std::string_view loss) {
  return join("io_uring_" + std::string(event) + " has " + std::to_string(args) +
                  " args: unrecognised prototype",
              loss, "; ");
}

std::string malformed_reason(std::string_view event, std::string_view loss) {
  return join("btf_trace_io_uring_" + std::string(event) +
                  " is not a pointer to a function prototype: unrecognised prototype",
              loss, "; ");
}

template <typename Shape>
struct Choice {
  Shape shape{};
  std::string detail;
  std::string_view program;  // empty when the feature is off
};

// Most tracepoints are told apart by their argument count alone: the shapes that exist,
// each with the program that reads it; a missing tracepoint is `none`, a count not in
// the list `unrecognised`.
template <typename Shape>
struct ShapeByArgs {
  int args;
  Shape shape;
  std::string_view detail;
  std::string_view program;
};

template <typename Shape>
Choice<Shape> choose_shape(const btf* vmlinux, std::string_view event,
                           std::initializer_list<ShapeByArgs<Shape>> shapes, Shape none,
                           Shape unrecognised, std::string_view absent, std::string_view loss) {
  const Prototype tp = find_tracepoint(vmlinux, event);
  switch (tp.status) {
    case Prototype::Status::Absent:
      return {none, join(absent, loss), {}};
    case Prototype::Status::Malformed:
      return {unrecognised, malformed_reason(event, loss), {}};
    case Prototype::Status::Found:
      break;
  }
  for (const ShapeByArgs<Shape>& s : shapes) {
    if (s.args == tp.args) return {s.shape, std::string(s.detail), s.program};
  }
  return {unrecognised, arg_count_reason(event, tp.args, loss), {}};
}

Choice<SubmitShape> choose_submit(const btf* vmlinux) {
  constexpr auto kOff = SubmitShape::Unrecognised;
  const Prototype req = find_tracepoint(vmlinux, "submit_req");
  if (req.status == Prototype::Status::Malformed)
    return {kOff, malformed_reason("submit_req", kSubmitLoss), {}};
  if (req.status == Prototype::Status::Found) {
    if (req.args != 1) return {kOff, arg_count_reason("submit_req", req.args, kSubmitLoss), {}};
    return {SubmitShape::SubmitReq, "io_uring_submit_req(req), 6.4+ shape", "usc_sub_req"};
  }

  const Prototype sqe = find_tracepoint(vmlinux, "submit_sqe");
  switch (sqe.status) {
    case Prototype::Status::Absent:
      return {SubmitShape::None,
              join("no io_uring_submit_req or io_uring_submit_sqe tracepoint", kSubmitLoss),
              {}};
    case Prototype::Status::Malformed:
      return {kOff, malformed_reason("submit_sqe", kSubmitLoss), {}};
    case Prototype::Status::Found:
      break;
  }
  if (sqe.args == 2)
    return {SubmitShape::SubmitSqe, "io_uring_submit_sqe(req, force_nonblock), 6.0-6.3 shape",
            "usc_sub_sqe"};
  if (sqe.args != 7) return {kOff, arg_count_reason("submit_sqe", sqe.args, kSubmitLoss), {}};
  // 5.15-5.17 and 5.18-5.19 both have 7 args; only the third tells them apart.
  switch (int_arg_size(vmlinux, sqe, 2)) {
    case 1:
      return {SubmitShape::SubmitSqe515,
              "io_uring_submit_sqe(ctx, req, opcode, user_data, ...), 5.15-5.17 shape",
              "usc_sub_sqe_old"};
    case 8:
      return {SubmitShape::SubmitSqe518,
              "io_uring_submit_sqe(ctx, req, user_data, opcode, ...), 5.18-5.19 shape",
              "usc_sub_sqe_old"};
    default:
      return {kOff,
              join("io_uring_submit_sqe has 7 args but arg 2 is neither a u8 opcode nor a u64 "
                   "user_data: unrecognised prototype",
                   kSubmitLoss, "; "),
              {}};
  }
}

Choice<CompleteShape> choose_complete(const btf* vmlinux) {
  return choose_shape<CompleteShape>(
      vmlinux, "complete",
      {{3, CompleteShape::Cqe, "io_uring_complete(ctx, req, cqe), 6.13+ shape", "usc_cqe"},
       {7, CompleteShape::Req7,
        "io_uring_complete(ctx, req, user_data, res, cflags, extra1, extra2), 5.19-6.12 shape",
        "usc_cqe_req"},
       // usc_cqe_req reads only args 0..4, which 5.18 has in the same order.
       {5, CompleteShape::Req5, "io_uring_complete(ctx, req, user_data, res, cflags), 5.18 shape",
        "usc_cqe_req"},
       {4, CompleteShape::Legacy4,
        "io_uring_complete(ctx, user_data, res, cflags), 5.15-5.17 shape: no request pointer, "
        "completions are matched to requests by user_data",
        "usc_cqe_old"}},
      CompleteShape::None, CompleteShape::Unrecognised, "no io_uring_complete tracepoint",
      kCompleteLoss);
}

Choice<PuntShape> choose_punt(const btf* vmlinux) {
  return choose_shape<PuntShape>(
      vmlinux, "queue_async_work",
      {{2, PuntShape::Req2, "io_uring_queue_async_work(req, rw), 6.0+ shape", "usc_punt"},
       {7, PuntShape::Legacy7,
        "io_uring_queue_async_work(ctx, req, user_data, opcode, flags, work, rw), 5.18-5.19 shape",
        "usc_punt_518"},
       {5, PuntShape::Legacy5,
        "io_uring_queue_async_work(ctx, rw, req, work, flags), 5.15-5.17 shape", "usc_punt_515"}},
      PuntShape::None, PuntShape::Unrecognised, "no io_uring_queue_async_work tracepoint",
      kPuntLoss);
}

Choice<bool> choose_by_args(const btf* vmlinux, std::string_view event,
                            std::initializer_list<ShapeByArgs<bool>> shapes,
                            std::string_view absent, std::string_view loss) {
  return choose_shape<bool>(vmlinux, event, shapes, false, false, absent, loss);
}

// create and cqe_overflow have kept one prototype since they appeared; a different
// count means a kernel we have not seen, and tp_btf would reject the program anyway.
Choice<bool> choose_create(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "create",
      {{5, true, "io_uring_create(fd, ctx, sq_entries, cq_entries, flags), 5.15+ shape", "usc_create"}},
      "no io_uring_create tracepoint", kCreateLoss);
}

Choice<bool> choose_overflow(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "cqe_overflow",
      {{5, true, "io_uring_cqe_overflow(ctx, user_data, res, cflags, ocqe), 5.19+ shape",
        "usc_cqe_ovf"}},
      "no io_uring_cqe_overflow tracepoint (added in 5.19)", kOverflowLoss);
}


Choice<bool> choose_poll_arm(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "poll_arm",
      {{3, true, "io_uring_poll_arm(req, mask, events), 6.0+ shape", "usc_poll_arm"},
       {6, true, "io_uring_poll_arm(ctx, req, ...), 5.15-5.19 shape", "usc_poll_arm_old"}},
      "no io_uring_poll_arm tracepoint", kPollArmLoss);
}

Choice<bool> choose_task_add(const btf* vmlinux) {
  // The 5.15-5.19 shapes lead with ctx and differ among themselves; only 6.0+ is read.
  return choose_by_args(vmlinux, "task_add",
                        {{2, true, "io_uring_task_add(req, mask), 6.0+ shape", "usc_task_add"}},
                        "no io_uring_task_add tracepoint", kTaskAddLoss);
}

Choice<bool> choose_task_work(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "task_work_run",
      {{2, true, "io_uring_task_work_run(tctx, count), 6.9+ shape", "usc_tw_run"},
       {3, true, "io_uring_task_work_run(tctx, count, loops), 6.0-6.8 shape", "usc_tw_run"}},
      "no io_uring_task_work_run tracepoint (added in 6.0)", kTaskWorkLoss);
}

Choice<bool> choose_local_work(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "local_work_run",
      {{3, true, "io_uring_local_work_run(ctx, count, loops), 6.1+ shape", "usc_local_tw"}},
      "no io_uring_local_work_run tracepoint (added in 6.1 with DEFER_TASKRUN)",
      kLocalWorkLoss);
}

Choice<bool> choose_short_write(const btf* vmlinux) {
  return choose_by_args(
      vmlinux, "short_write",
      {{4, true, "io_uring_short_write(ctx, fpos, wanted, got), 6.0+ shape", "usc_short_write"}},
      "no io_uring_short_write tracepoint (added in 6.0)", kShortWriteLoss);
}

Choice<bool> choose_req_failed(const btf* vmlinux) {
  // 5.16-5.17 (sqe, error) and 5.18-5.19 (sqe, ctx, req, error) are not read.
  return choose_by_args(
      vmlinux, "req_failed",
      {{3, true, "io_uring_req_failed(sqe, req, error), 6.0+ shape", "usc_req_failed"}},
      "no io_uring_req_failed tracepoint", kReqFailedLoss);
}

// sched_switch gained prev_state in 5.18; the program reads only (preempt, prev, next).
Choice<bool> choose_io_threads(const btf* vmlinux) {
  const Prototype tp = find_typedef_proto(vmlinux, "btf_trace_sched_switch");
  switch (tp.status) {
    case Prototype::Status::Absent:
      return {false, join("no sched_switch tracepoint", kIoThreadsLoss), {}};
    case Prototype::Status::Malformed:
      return {false,
              join("btf_trace_sched_switch is not a pointer to a function prototype",
                   kIoThreadsLoss, "; "),
              {}};
    case Prototype::Status::Found:
      break;
  }
  if (tp.args == 3 || tp.args == 4)
    return {true, "sched_switch(preempt, prev, next[, prev_state])", "usc_sched"};
  return {false,
          join("sched_switch has " + std::to_string(tp.args) + " args: unrecognised prototype",
               kIoThreadsLoss, "; "),
          {}};
}

// Whether tracepoint argument `index` is a pointer to the struct `name`: 6.0's
// io_uring_file_get(req, fd) and 5.15's (ctx, fd) have the same count, and only the
// first argument's type tells them apart.
bool arg_points_to_struct(const btf* vmlinux, const Prototype& tp, int index, std::string_view name) {
  if (index < 0 || index >= tp.args) return false;
  const btf_type* ptr = skip_aliases(vmlinux, btf_params(tp.proto)[index + 1].type);
  if (ptr == nullptr || !btf_is_ptr(ptr)) return false;
  const btf_type* target = skip_aliases(vmlinux, ptr->type);
  if (target == nullptr || !btf_is_struct(target)) return false;
  const char* target_name = btf__name_by_offset(vmlinux, target->name_off);
  return target_name != nullptr && name == target_name;
}

Choice<bool> choose_file_get(const btf* vmlinux) {
  const Prototype tp = find_tracepoint(vmlinux, "file_get");
  switch (tp.status) {
    case Prototype::Status::Absent:
      return {false, join("no io_uring_file_get tracepoint", kFileGetLoss), {}};
    case Prototype::Status::Malformed:
      return {false, malformed_reason("file_get", kFileGetLoss), {}};
    case Prototype::Status::Found:
      break;
  }
  const bool request_first = arg_points_to_struct(vmlinux, tp, 0, "io_kiocb");
  if (tp.args == 2 && request_first)
    return {true, "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)", "usc_file_get"};
  if (request_first) return {false, arg_count_reason("file_get", tp.args, kFileGetLoss), {}};
  return {false,
          join("io_uring_file_get has " + std::to_string(tp.args) +
                   " args without a request first: an older shape",
               kFileGetLoss, "; "),
          {}};
}

Choice<bool> choose_fork(const btf* vmlinux) {
  const Prototype tp = find_typedef_proto(vmlinux, "btf_trace_sched_process_fork");
  switch (tp.status) {
    case Prototype::Status::Absent:
      return {false, join("no sched_process_fork tracepoint", kForkLoss), {}};
    case Prototype::Status::Malformed:
      return {false,
              join("btf_trace_sched_process_fork is not a pointer to a function prototype",
                   kForkLoss, "; "),
              {}};
    case Prototype::Status::Found:
      break;
  }
  if (tp.args == 2 && arg_points_to_struct(vmlinux, tp, 0, "task_struct") &&
      arg_points_to_struct(vmlinux, tp, 1, "task_struct"))
    return {true, "sched_process_fork(parent, child) (used by -f)", "usc_fork"};
  return {false,
          join("sched_process_fork is not (task_struct *parent, task_struct *child): "
               "unrecognised prototype",
               kForkLoss, "; "),
          {}};
}

Choice<bool> choose_fd_walk(const btf* vmlinux) {
  if (btf__find_by_name_kind(vmlinux, "bpf_iter__task_file", BTF_KIND_STRUCT) > 0)
    return {true, "BPF task_file iterator (bpf_iter__task_file), 5.8+", "usc_ring_fds"};
  return {false, join("no bpf_iter__task_file in kernel BTF (added in 5.8)", kFdWalkLoss), {}};
}

// The fentry goes on the x86-64 syscall entry, __x64_sys_io_uring_enter(const struct
// pt_regs *), which is traceable (the typed __do_sys_ body is `inline`, so notrace). Its
// BTF FUNC must exist and take the one pt_regs pointer the program reads.
bool enter_fentry_possible(const btf* vmlinux) {
  const int id = btf__find_by_name_kind(vmlinux, kEnterFentryFunction, BTF_KIND_FUNC);
  if (id <= 0) return false;
  const btf_type* func = btf__type_by_id(vmlinux, static_cast<__u32>(id));
  const btf_type* proto = func ? btf__type_by_id(vmlinux, func->type) : nullptr;
  if (proto == nullptr || !btf_is_func_proto(proto) || btf_vlen(proto) != 1) return false;
  const btf_type* ptr = skip_aliases(vmlinux, btf_params(proto)[0].type);
  if (ptr == nullptr || !btf_is_ptr(ptr)) return false;
  const btf_type* regs = skip_aliases(vmlinux, ptr->type);
  return regs != nullptr && btf_is_struct(regs) &&
         std::string_view(btf__name_by_offset(vmlinux, regs->name_off)) == "pt_regs";
}

// The fentry program first: the syscall tracepoint slows every syscall on the machine.
// Whether a trampoline attaches is only known by trying (the kernel may lack ftrace), so
// with both available both are loaded and the tracer keeps the tracepoint as fallback.
Choice<bool> choose_enter(const btf* vmlinux, const ProbeEnvironment& env) {
  const bool refused = env.enter_fentry.state == FentryTrial::Refused;
  const bool fentry = enter_fentry_possible(vmlinux) && !refused;
  // The trial load failed: this kernel takes no trampoline, say so once here rather than
  // fail the same load again in the tracer.
  if (refused && env.syscall_tracepoints)
    return {true,
            "syscalls/sys_enter_io_uring_enter tracepoint (fentry refused: " +
                env.enter_fentry.reason + ")",
            "usc_enter"};
  if (fentry && env.syscall_tracepoints)
    return {true,
            "fentry on __x64_sys_io_uring_enter, else the syscalls/sys_enter_io_uring_enter "
            "tracepoint",
            "usc_enter_fentry"};
  if (fentry) return {true, "fentry on __x64_sys_io_uring_enter", "usc_enter_fentry"};
  if (env.syscall_tracepoints)
    return {true, "syscalls/sys_enter_io_uring_enter tracepoint", "usc_enter"};
  return {false,
          join("no syscalls/sys_enter_io_uring_enter tracepoint (needs CONFIG_FTRACE_SYSCALLS) "
               "and no __x64_sys_io_uring_enter for fentry",
               kEnterLoss),
          {}};
}

struct Enumerator {
  __u32 name_off;
  int64_t value;
};

Enumerator enumerator_at(const btf_type* type, __u16 index) {
  if (btf_is_enum(type)) {
    const struct btf_enum& e = btf_enum(type)[index];
    return {e.name_off, e.val};
  }
  // struct btf_enum64 may be missing from older UAPI headers; libbpf itself reads it
  // as three u32s (name_off, lo32, hi32), and so do we.
  const auto* e64 = reinterpret_cast<const __u32*>(btf_enum64(type)) + 3 * index;
  return {e64[0], static_cast<int64_t>((static_cast<uint64_t>(e64[2]) << 32) | e64[1])};
}

// The REQ_F_*_BIT enum is anonymous, so CO-RE cannot relocate it: find the enumerators
// by name wherever they are. A number outside a 64-bit flags word cannot be a bit, so
// it counts as absent rather than being handed to the BPF side as a shift.
std::array<int, US_RF__COUNT> find_req_bits(const btf* vmlinux) {
  struct Wanted {
    std::string_view name;
    us_req_flag slot;
  };
  static constexpr Wanted kWanted[] = {
      {"REQ_F_FORCE_ASYNC_BIT", US_RF_FORCE_ASYNC},
      {"REQ_F_CQE_SKIP_BIT", US_RF_CQE_SKIP},
      {"REQ_F_ISREG_BIT", US_RF_ISREG},
  };
  std::array<int, US_RF__COUNT> bits;
  bits.fill(-1);
  const __u32 count = btf__type_cnt(vmlinux);
  for (__u32 id = 1; id < count; ++id) {
    const btf_type* type = btf__type_by_id(vmlinux, id);
    if (type == nullptr || !btf_is_any_enum(type)) continue;
    for (__u16 i = 0; i < btf_vlen(type); ++i) {
      const Enumerator e = enumerator_at(type, i);
      const char* name = btf__name_by_offset(vmlinux, e.name_off);
      if (name == nullptr) continue;
      for (const Wanted& wanted : kWanted) {
        if (wanted.name != name || bits[wanted.slot] != -1) continue;
        if (e.value >= 0 && e.value < 64) bits[wanted.slot] = static_cast<int>(e.value);
      }
    }
  }
  return bits;
}

bool submit_usable(SubmitShape shape) {
  return shape != SubmitShape::None && shape != SubmitShape::Unrecognised;
}

bool complete_usable(CompleteShape shape) {
  return shape != CompleteShape::None && shape != CompleteShape::Unrecognised;
}

bool complete_has_req(CompleteShape shape) {
  return shape == CompleteShape::Cqe || shape == CompleteShape::Req7 ||
         shape == CompleteShape::Req5;
}

bool punt_usable(PuntShape shape) {
  return shape != PuntShape::None && shape != PuntShape::Unrecognised;
}

Tier choose_tier(const KernelSupport& support) {
  if (!submit_usable(support.submit) || !complete_usable(support.complete))
    return Tier::Unsupported;
  if (complete_has_req(support.complete) && punt_usable(support.punt)) return Tier::Full;
  return Tier::Legacy;
}

// CO-RE relocations need kernel BTF, so without it not even the enter program, which
// needs no tracepoint typedef, can load: everything is off, whatever the environment says.
KernelSupport without_btf() {
  constexpr std::string_view kNoBtf = "no kernel BTF (/sys/kernel/btf/vmlinux)";
  KernelSupport support;
  support.req_bits.fill(-1);
  support.features = {
      {"submit", false, join(kNoBtf, kSubmitLoss)},
      {"complete", false, join(kNoBtf, kCompleteLoss)},
      {"punt", false, join(kNoBtf, kPuntLoss)},
      {"create", false, join(kNoBtf, kCreateLoss)},
      {"overflow", false, join(kNoBtf, kOverflowLoss)},
      {"fd_walk", false, join(kNoBtf, kFdWalkLoss)},
      {"enter", false, join(kNoBtf, kEnterLoss)},
      {"poll_arm", false, join(kNoBtf, kPollArmLoss)},
      {"task_add", false, join(kNoBtf, kTaskAddLoss)},
      {"task_work", false, join(kNoBtf, kTaskWorkLoss)},
      {"local_work", false, join(kNoBtf, kLocalWorkLoss)},
      {"short_write", false, join(kNoBtf, kShortWriteLoss)},
      {"req_failed", false, join(kNoBtf, kReqFailedLoss)},
      {"io_threads", false, join(kNoBtf, kIoThreadsLoss)},
      {"file_get", false, join(kNoBtf, kFileGetLoss)},
      {"fork", false, join(kNoBtf, kForkLoss)},
  };
  return support;
}

}  // namespace

std::string_view tier_name(Tier tier) {
  switch (tier) {
    case Tier::Full:
      return "full";
    case Tier::Legacy:
      return "legacy";
    case Tier::Unsupported:
      return "unsupported";
  }
  return "unsupported";
}

KernelSupport probe_kernel(const struct btf* vmlinux, const ProbeEnvironment& env) {
  if (vmlinux == nullptr) return without_btf();

  KernelSupport support;
  const auto submit = choose_submit(vmlinux);
  const auto complete = choose_complete(vmlinux);
  const auto punt = choose_punt(vmlinux);
  const auto create = choose_create(vmlinux);
  const auto overflow = choose_overflow(vmlinux);
  const auto fd_walk = choose_fd_walk(vmlinux);
  const auto enter = choose_enter(vmlinux, env);

  support.submit = submit.shape;
  support.complete = complete.shape;
  support.punt = punt.shape;
  support.create = create.shape;
  support.overflow = overflow.shape;
  support.fd_walk = fd_walk.shape;
  support.enter = enter.shape;
  support.req_bits = find_req_bits(vmlinux);
  support.tier = choose_tier(support);

  auto add = [&support](std::string_view name, std::string_view program, std::string detail) {
    support.features.push_back({std::string(name), !program.empty(), std::move(detail)});
    if (!program.empty()) support.programs.emplace_back(program);
  };
  add("submit", submit.program, submit.detail);
  add("complete", complete.program, complete.detail);
  add("punt", punt.program, punt.detail);
  add("create", create.program, create.detail);
  add("overflow", overflow.program, overflow.detail);
  add("fd_walk", fd_walk.program, fd_walk.detail);
  add("enter", enter.program, enter.detail);
  if (enter.program == "usc_enter_fentry" && env.syscall_tracepoints)
    support.programs.emplace_back("usc_enter");  // the fallback, attached only if fentry fails
  for (auto [name, choice] : {std::pair{"poll_arm", choose_poll_arm(vmlinux)},
                              std::pair{"task_add", choose_task_add(vmlinux)},
                              std::pair{"task_work", choose_task_work(vmlinux)},
                              std::pair{"local_work", choose_local_work(vmlinux)},
                              std::pair{"short_write", choose_short_write(vmlinux)},
                              std::pair{"req_failed", choose_req_failed(vmlinux)},
                              std::pair{"io_threads", choose_io_threads(vmlinux)},
                              std::pair{"file_get", choose_file_get(vmlinux)},
                              std::pair{"fork", choose_fork(vmlinux)}}) {
    add(name, choice.program, choice.detail);
  }
  return support;
}

KernelInfo kernel_info(const KernelSupport& support, const std::string& release) {
  return KernelInfo{release, std::string(tier_name(support.tier)), support.features};
}

}  // namespace uringscope
