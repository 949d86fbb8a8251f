// SPDX-License-Identifier: MIT
// The kernel probe against synthetic BTF, one builder per kernel range. The prototypes
// mirror /work/shared/docs/kernel-io_uring-reference.md §1.2 and the REQ_F_*_BIT numbers
// §2.3, so a wrong branch in the probe shows up as a wrong shape, tier or program list.
// Never the host's /sys/kernel/btf/vmlinux: these must pass on any machine.
#include "probe/probe.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace uringscope {

// Readable failure messages for the shape enums (found by gtest through ADL).
void PrintTo(SubmitShape shape, std::ostream* os) {
  static constexpr const char* kNames[] = {"None",         "SubmitReq",    "SubmitSqe",
                                           "SubmitSqe518", "SubmitSqe515", "Unrecognised"};
  *os << "SubmitShape::" << kNames[static_cast<int>(shape)];
}
void PrintTo(CompleteShape shape, std::ostream* os) {
  static constexpr const char* kNames[] = {"None", "Cqe",     "Req7",
                                           "Req5", "Legacy4", "Unrecognised"};
  *os << "CompleteShape::" << kNames[static_cast<int>(shape)];
}
void PrintTo(PuntShape shape, std::ostream* os) {
  static constexpr const char* kNames[] = {"None", "Req2", "Legacy7", "Legacy5", "Unrecognised"};
  *os << "PuntShape::" << kNames[static_cast<int>(shape)];
}
void PrintTo(Tier tier, std::ostream* os) { *os << "Tier::" << tier_name(tier); }

namespace {

struct BtfFree {
  void operator()(btf* b) const { btf__free(b); }
};
using BtfPtr = std::unique_ptr<btf, BtfFree>;

using Bits = std::vector<std::pair<std::string, long long>>;

// Builds a kernel's BTF the way pahole lays it out: tracepoint typedefs
// `btf_trace_io_uring_<event>` (and `btf_trace_sched_switch`, `btf_trace_sched_process_fork`)
// -> PTR -> FUNC_PROTO(void *, args...), unnamed params.
class KernelBtf {
 public:
  // Type ids of the argument types the io_uring and sched tracepoints use.
  struct Types {
    int void_ptr, int_, unsigned_, u8, u32, s32, u64, ull, bool_;
    int req, ctx, cqe, work, sqe, task;
  };

  // `without`: events this kernel should lack, so one builder serves its variants.
  explicit KernelBtf(std::set<std::string> without = {})
      : btf_(btf__new_empty()), without_(std::move(without)) {
    if (!btf_) {
      ADD_FAILURE() << "btf__new_empty failed";
      return;
    }
    types_.void_ptr = check(btf__add_ptr(raw(), 0));
    types_.int_ = check(btf__add_int(raw(), "int", 4, BTF_INT_SIGNED));
    types_.unsigned_ = check(btf__add_int(raw(), "unsigned int", 4, 0));
    types_.ull = check(btf__add_int(raw(), "long long unsigned int", 8, 0));
    types_.bool_ = check(btf__add_int(raw(), "_Bool", 1, BTF_INT_BOOL));
    const int uchar = check(btf__add_int(raw(), "unsigned char", 1, 0));
    // The kernel's fixed-width names are two typedefs deep (u8 -> __u8 -> unsigned char).
    types_.u8 = typedef_chain("u8", "__u8", uchar);
    types_.u32 = typedef_chain("u32", "__u32", types_.unsigned_);
    types_.s32 = typedef_chain("s32", "__s32", types_.int_);
    types_.u64 = typedef_chain("u64", "__u64", types_.ull);
    types_.req = struct_ptr("io_kiocb");
    types_.ctx = struct_ptr("io_ring_ctx");
    types_.cqe = struct_ptr("io_uring_cqe");
    types_.work = struct_ptr("io_wq_work");
    types_.task = struct_ptr("task_struct");
    types_.sqe =
        check(btf__add_ptr(raw(), check(btf__add_const(raw(), struct_type("io_uring_sqe")))));
  }

  const btf* get() const { return btf_.get(); }
  const Types& types() const { return types_; }

  // For the kernel builders: adds the tracepoint unless this kernel is built without it.
  void tracepoint(const std::string& event, std::initializer_list<int> args) {
    if (!without_.count(event)) add_tracepoint(event, args);
  }

  // Adds the typedef chain for one tracepoint, e.g. to replace one left out above.
  void add_tracepoint(const std::string& event, std::initializer_list<int> args) {
    add_trace_typedef("btf_trace_io_uring_" + event, args);
  }

  // sched_switch is a scheduler event: its typedef is `btf_trace_sched_switch`, with no
  // io_uring_ prefix. Left out when `without` names "sched_switch".
  void sched_switch(std::initializer_list<int> args) {
    if (!without_.count("sched_switch")) add_sched_switch(args);
  }

  void add_sched_switch(std::initializer_list<int> args) {
    add_trace_typedef("btf_trace_sched_switch", args);
  }

  // Also a scheduler event: `btf_trace_sched_process_fork`. Left out when `without` names
  // "sched_process_fork".
  void sched_process_fork(std::initializer_list<int> args) {
    if (!without_.count("sched_process_fork")) add_sched_process_fork(args);
  }

  void add_sched_process_fork(std::initializer_list<int> args) {
    add_trace_typedef("btf_trace_sched_process_fork", args);
  }

  // A function as BTF shows it (FUNC -> FUNC_PROTO), e.g. the syscall entry
  // __x64_sys_io_uring_enter(const struct pt_regs *regs) that uringscope puts an fentry on.
  void function(const char* name, std::initializer_list<int> params) {
    const int proto = check(btf__add_func_proto(raw(), types_.int_));
    for (int param : params) check(btf__add_func_param(raw(), "p", param));
    check(btf__add_func(raw(), name, BTF_FUNC_STATIC, proto));
  }

  // A typedef of that name that is not a function pointer (corrupt or foreign BTF).
  void bogus_tracepoint(const std::string& event, int target) {
    check(btf__add_typedef(raw(), ("btf_trace_io_uring_" + event).c_str(), target));
  }

  int struct_type(const char* name) { return check(btf__add_struct(raw(), name, 0)); }

  int struct_ptr(const char* name) { return check(btf__add_ptr(raw(), struct_type(name))); }

  // The REQ_F_*_BIT enum: anonymous in every kernel, which is why the probe scans for it.
  void anonymous_enum(const Bits& values) {
    check(btf__add_enum(raw(), nullptr, 4));
    for (const auto& [name, value] : values) check(btf__add_enum_value(raw(), name.c_str(), value));
  }

  void anonymous_enum64(const Bits& values) {
    check(btf__add_enum64(raw(), nullptr, 8, false));
    for (const auto& [name, value] : values)
      check(btf__add_enum64_value(raw(), name.c_str(), static_cast<__u64>(value)));
  }

  // For tests that add odd types through libbpf directly.
  int checked(int id) { return check(id); }
  btf* raw() { return btf_.get(); }

 private:
  static int check(int id) {
    if (id < 0) ADD_FAILURE() << "libbpf BTF writer failed: " << id;
    return id;
  }

  void add_trace_typedef(const std::string& name, std::initializer_list<int> args) {
    const int proto = check(btf__add_func_proto(raw(), 0));
    check(btf__add_func_param(raw(), nullptr, types_.void_ptr));
    for (int arg : args) check(btf__add_func_param(raw(), nullptr, arg));
    const int ptr = check(btf__add_ptr(raw(), proto));
    check(btf__add_typedef(raw(), name.c_str(), ptr));
  }

  int typedef_chain(const char* outer, const char* inner, int target) {
    return check(btf__add_typedef(raw(), outer, check(btf__add_typedef(raw(), inner, target))));
  }

  BtfPtr btf_;
  std::set<std::string> without_;
  Types types_{};
};

// REQ_F_*_BIT as the kernel declares them: bits 0..5 (or 0..6 from 5.17) equal the
// IOSQE_* bits, then `REQ_F_FAIL_BIT = 8` and implicit increments (§2.3).
Bits req_f_bits(bool cqe_skip, std::initializer_list<const char*> from_bit_8) {
  Bits bits = {{"REQ_F_FIXED_FILE_BIT", 0},  {"REQ_F_IO_DRAIN_BIT", 1},
               {"REQ_F_LINK_BIT", 2},        {"REQ_F_HARDLINK_BIT", 3},
               {"REQ_F_FORCE_ASYNC_BIT", 4}, {"REQ_F_BUFFER_SELECT_BIT", 5}};
  if (cqe_skip) bits.emplace_back("REQ_F_CQE_SKIP_BIT", 6);
  long long bit = 8;
  for (const char* name : from_bit_8)
    bits.emplace_back(std::string("REQ_F_") + name + "_BIT", bit++);
  bits.emplace_back("__REQ_F_LAST_BIT", bit);
  return bits;
}

// sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next), plus
// `unsigned int prev_state` appended from 5.18 on.
void add_sched_switch_518(KernelBtf& k) {
  const auto& t = k.types();
  k.sched_switch({t.bool_, t.task, t.task, t.unsigned_});
}

void add_sched_switch_515(KernelBtf& k) {
  const auto& t = k.types();
  k.sched_switch({t.bool_, t.task, t.task});
}

// sched_process_fork(struct task_struct *parent, struct task_struct *child): one shape on
// every kernel in range.
void add_sched_process_fork(KernelBtf& k) {
  const auto& t = k.types();
  k.sched_process_fork({t.task, t.task});
}

// The 6.0-6.18 request-event prototypes that kept one shape over the whole range (§1.2):
// poll_arm(req, mask, events), task_add(req, mask), req_failed(sqe, req, error),
// short_write(ctx, fpos, wanted, got), file_get(struct io_kiocb *req, int fd).
void add_60_events(KernelBtf& k) {
  const auto& t = k.types();
  k.tracepoint("file_get", {t.req, t.int_});
  k.tracepoint("poll_arm", {t.req, t.int_, t.int_});
  k.tracepoint("task_add", {t.req, t.int_});
  k.tracepoint("req_failed", {t.sqe, t.req, t.int_});
  k.tracepoint("short_write", {t.void_ptr, t.u64, t.u64, t.u64});
}

// 6.14-6.18 prototypes (§1.2, [614]/[618]).
void add_618_tracepoints(KernelBtf& k) {
  const auto& t = k.types();
  k.tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32, t.u32});
  k.tracepoint("submit_req", {t.req});
  k.tracepoint("complete", {t.ctx, t.void_ptr, t.cqe});
  k.tracepoint("queue_async_work", {t.req, t.int_});
  k.tracepoint("cqe_overflow", {t.void_ptr, t.ull, t.s32, t.u32, t.void_ptr});
  add_60_events(k);
  k.tracepoint("task_work_run", {t.void_ptr, t.unsigned_});  // 6.9+: no loops
  k.tracepoint("local_work_run", {t.void_ptr, t.int_, t.unsigned_});
  add_sched_switch_518(k);
  add_sched_process_fork(k);
  // Neighbours the probe must not confuse with the ones it wants.
  k.tracepoint("link", {t.req, t.req});
  k.tracepoint("cqring_wait", {t.void_ptr, t.int_});
}

KernelBtf kernel_6_18(std::set<std::string> without = {}) {
  KernelBtf k(std::move(without));
  add_618_tracepoints(k);
  k.struct_type("bpf_iter__task_file");
  // §2.3, 6.18 column: FORCE_ASYNC 4, CQE_SKIP 6, ISREG 30.
  k.anonymous_enum(req_f_bits(true, {"FAIL",
                                     "INFLIGHT",
                                     "CUR_POS",
                                     "NOWAIT",
                                     "LINK_TIMEOUT",
                                     "NEED_CLEANUP",
                                     "POLLED",
                                     "HYBRID_IOPOLL_STATE",
                                     "BUFFER_SELECTED",
                                     "BUFFER_RING",
                                     "REISSUE",
                                     "CREDS",
                                     "REFCOUNT",
                                     "ARM_LTIMEOUT",
                                     "ASYNC_DATA",
                                     "SKIP_LINK_CQES",
                                     "SINGLE_POLL",
                                     "DOUBLE_POLL",
                                     "MULTISHOT",
                                     "APOLL_MULTISHOT",
                                     "CLEAR_POLLIN",
                                     "SUPPORT_NOWAIT",
                                     "ISREG",
                                     "POLL_NO_LAZY",
                                     "CAN_POLL",
                                     "BL_EMPTY",
                                     "BL_NO_RECYCLE",
                                     "BUFFERS_COMMIT",
                                     "BUF_NODE",
                                     "BUF_MORE",
                                     "HAS_METADATA",
                                     "IMPORT_BUFFER",
                                     "SQE_COPIED"}));
  // The mask enum next to it is ENUM64 on 6.9+ (bits above 31) and holds near-miss names
  // (REQ_F_ISREG = 1 << 30) that must not be taken for bit numbers.
  k.anonymous_enum64({{"REQ_F_FORCE_ASYNC", 1LL << 4},
                      {"REQ_F_CQE_SKIP", 1LL << 6},
                      {"REQ_F_ISREG", 1LL << 30},
                      {"REQ_F_SQE_COPIED", 1LL << 40}});
  return k;
}

KernelBtf kernel_6_12(std::set<std::string> without = {}) {
  KernelBtf k(std::move(without));
  const auto& t = k.types();
  k.tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32, t.u32});
  k.tracepoint("submit_req", {t.req});
  k.tracepoint("complete", {t.void_ptr, t.void_ptr, t.u64, t.int_, t.unsigned_, t.u64, t.u64});
  k.tracepoint("queue_async_work", {t.req, t.int_});
  k.tracepoint("cqe_overflow", {t.void_ptr, t.ull, t.s32, t.u32, t.void_ptr});
  add_60_events(k);
  k.tracepoint("task_work_run", {t.void_ptr, t.unsigned_});  // 6.9+: no loops
  k.tracepoint("local_work_run", {t.void_ptr, t.int_, t.unsigned_});
  add_sched_switch_518(k);
  add_sched_process_fork(k);
  k.struct_type("bpf_iter__task_file");
  // 6.12: no HYBRID_IOPOLL_STATE yet (6.13), HASH_LOCKED before SUPPORT_NOWAIT: ISREG 29.
  k.anonymous_enum(req_f_bits(
      true, {"FAIL",           "INFLIGHT",      "CUR_POS",         "NOWAIT",       "LINK_TIMEOUT",
             "NEED_CLEANUP",   "POLLED",        "BUFFER_SELECTED", "BUFFER_RING",  "REISSUE",
             "CREDS",          "REFCOUNT",      "ARM_LTIMEOUT",    "ASYNC_DATA",   "SKIP_LINK_CQES",
             "SINGLE_POLL",    "DOUBLE_POLL",   "APOLL_MULTISHOT", "CLEAR_POLLIN", "HASH_LOCKED",
             "SUPPORT_NOWAIT", "ISREG",         "POLL_NO_LAZY",    "CAN_POLL",     "BL_EMPTY",
             "BL_NO_RECYCLE",  "BUFFERS_COMMIT"}));
  return k;
}

KernelBtf kernel_6_1() {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32, t.u32});
  k.tracepoint("submit_sqe", {t.req, t.bool_});
  k.tracepoint("complete", {t.void_ptr, t.void_ptr, t.u64, t.int_, t.unsigned_, t.u64, t.u64});
  k.tracepoint("queue_async_work", {t.req, t.int_});
  k.tracepoint("cqe_overflow", {t.void_ptr, t.ull, t.s32, t.u32, t.void_ptr});
  add_60_events(k);
  k.tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_});  // 6.0-6.8: loops
  k.tracepoint("local_work_run", {t.void_ptr, t.int_, t.unsigned_});
  add_sched_switch_518(k);
  add_sched_process_fork(k);
  k.struct_type("bpf_iter__task_file");
  // The reference has no 6.1 column; this is a 6.1-era io_uring_types.h (PARTIAL_IO,
  // CQE32_INIT, HASH_LOCKED), where ISREG lands on 31.
  k.anonymous_enum(req_f_bits(
      true, {"FAIL",         "INFLIGHT",    "CUR_POS",         "NOWAIT",      "LINK_TIMEOUT",
             "NEED_CLEANUP", "POLLED",      "BUFFER_SELECTED", "BUFFER_RING", "REISSUE",
             "CREDS",        "REFCOUNT",    "ARM_LTIMEOUT",    "ASYNC_DATA",  "SKIP_LINK_CQES",
             "SINGLE_POLL",  "DOUBLE_POLL", "PARTIAL_IO",      "CQE32_INIT",  "APOLL_MULTISHOT",
             "CLEAR_POLLIN", "HASH_LOCKED", "SUPPORT_NOWAIT",  "ISREG"}));
  return k;
}

// 5.18-5.19 submit_sqe: (ctx, req, ull user_data, u8 opcode, u32 flags, bool, bool).
void add_518_submit(KernelBtf& k) {
  const auto& t = k.types();
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, t.ull, t.u8, t.u32, t.bool_, t.bool_});
}

// The 5.18-5.19 "consistent" prototypes of the newer features (§1.2, [518], [DS] 5.19):
// poll_arm(ctx, req, user_data, opcode, mask, events), task_add(ctx, req, user_data,
// opcode, mask), req_failed(sqe, ctx, req, error), file_get(void *ctx, void *req,
// ull user_data, int fd). No task_work_run, short_write or local_work_run yet (6.0/6.1);
// sched_switch already has prev_state.
void add_518_events(KernelBtf& k) {
  const auto& t = k.types();
  k.tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u64, t.u8, t.int_, t.int_});
  k.tracepoint("task_add", {t.void_ptr, t.void_ptr, t.ull, t.u8, t.int_});
  k.tracepoint("req_failed", {t.sqe, t.void_ptr, t.void_ptr, t.int_});
  k.tracepoint("file_get", {t.void_ptr, t.void_ptr, t.ull, t.int_});
  add_sched_switch_518(k);
  add_sched_process_fork(k);
}

KernelBtf kernel_5_19() {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32, t.u32});
  add_518_submit(k);
  k.tracepoint("complete", {t.void_ptr, t.void_ptr, t.u64, t.int_, t.unsigned_, t.u64, t.u64});
  k.tracepoint("queue_async_work",
               {t.void_ptr, t.void_ptr, t.ull, t.u8, t.unsigned_, t.work, t.int_});
  k.tracepoint("cqe_overflow", {t.void_ptr, t.ull, t.s32, t.u32, t.void_ptr});
  add_518_events(k);
  k.struct_type("bpf_iter__task_file");
  // §2.3, 5.19 column: ISREG 29.
  k.anonymous_enum(req_f_bits(
      true, {"FAIL",           "INFLIGHT",    "CUR_POS",         "NOWAIT",       "LINK_TIMEOUT",
             "NEED_CLEANUP",   "POLLED",      "BUFFER_SELECTED", "BUFFER_RING",  "COMPLETE_INLINE",
             "REISSUE",        "CREDS",       "REFCOUNT",        "ARM_LTIMEOUT", "ASYNC_DATA",
             "SKIP_LINK_CQES", "SINGLE_POLL", "DOUBLE_POLL",     "PARTIAL_IO",   "APOLL_MULTISHOT",
             "SUPPORT_NOWAIT", "ISREG"}));
  return k;
}

KernelBtf kernel_5_18() {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32, t.u32});
  add_518_submit(k);
  k.tracepoint("complete", {t.void_ptr, t.void_ptr, t.u64, t.int_, t.unsigned_});
  k.tracepoint("queue_async_work",
               {t.void_ptr, t.void_ptr, t.ull, t.u8, t.unsigned_, t.work, t.int_});
  add_518_events(k);
  k.struct_type("bpf_iter__task_file");
  // The reference numbers no 5.18 internal bits, so this kernel carries only the ones
  // fixed by construction; ISREG is then simply absent from its BTF.
  k.anonymous_enum(req_f_bits(true, {}));
  return k;
}

KernelBtf kernel_5_15() {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32, t.u32});
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, t.u8, t.u64, t.u32, t.bool_, t.bool_});
  k.tracepoint("complete", {t.void_ptr, t.u64, t.int_, t.unsigned_});
  k.tracepoint("queue_async_work", {t.void_ptr, t.int_, t.void_ptr, t.work, t.unsigned_});
  // 5.15-5.17 order: opcode before user_data; task_add has no req yet. No req_failed
  // (5.16), and sched_switch has no prev_state (5.18). file_get is (void *ctx, int fd):
  // the 6.0+ arg count, but no request.
  k.tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u8, t.u64, t.int_, t.int_});
  k.tracepoint("task_add", {t.void_ptr, t.u8, t.u64, t.int_});
  k.tracepoint("poll_wake", {t.void_ptr, t.u8, t.u64, t.int_});
  k.tracepoint("task_run", {t.void_ptr, t.void_ptr, t.u8, t.u64});
  k.tracepoint("file_get", {t.void_ptr, t.int_});
  add_sched_switch_515(k);
  add_sched_process_fork(k);
  k.struct_type("bpf_iter__task_file");
  // No CQE_SKIP before 5.17 (§2.3). Internal bits: v5.15 fs/io_uring.c (not in the
  // reference), where ISREG is 23 (24 on 5.15.y stables that backported PARTIAL_IO).
  k.anonymous_enum(
      req_f_bits(false, {"FAIL", "INFLIGHT", "CUR_POS", "NOWAIT", "LINK_TIMEOUT", "NEED_CLEANUP",
                         "POLLED", "BUFFER_SELECTED", "COMPLETE_INLINE", "REISSUE", "CREDS",
                         "REFCOUNT", "ARM_LTIMEOUT", "NOWAIT_READ", "NOWAIT_WRITE", "ISREG"}));
  return k;
}

ProbeEnvironment env_with_syscalls(bool syscall_tracepoints = true) {
  ProbeEnvironment env;
  env.kernel_release = "test";
  env.syscall_tracepoints = syscall_tracepoints;
  return env;
}

KernelSupport probe(const KernelBtf& k, bool syscall_tracepoints = true) {
  return probe_kernel(k.get(), env_with_syscalls(syscall_tracepoints));
}

using Strings = std::vector<std::string>;
using Flags = std::vector<bool>;

Strings feature_names(const KernelSupport& s) {
  Strings names;
  for (const auto& f : s.features) names.push_back(f.name);
  return names;
}

Flags feature_flags(const KernelSupport& s) {
  Flags flags;
  for (const auto& f : s.features) flags.push_back(f.enabled);
  return flags;
}

const Strings kFeatureOrder = {"submit",     "complete",    "punt",       "create",     "overflow",
                               "fd_walk",    "enter",       "poll_arm",   "task_add",   "task_work",
                               "local_work", "short_write", "req_failed", "io_threads", "file_get",
                               "fork"};

// Everything a 6.14-6.18 kernel loads, in feature order.
const Strings kPrograms618 = {
    "usc_sub_req",  "usc_cqe",         "usc_punt",       "usc_create",   "usc_cqe_ovf",
    "usc_ring_fds", "usc_enter",       "usc_poll_arm",   "usc_task_add", "usc_tw_run",
    "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",    "usc_file_get",
    "usc_fork"};

// `programs` without the named ones; a name that is not there is a mistake in the test.
Strings minus(Strings programs, std::initializer_list<std::string_view> drop) {
  for (std::string_view name : drop) {
    const auto it = std::find(programs.begin(), programs.end(), name);
    if (it == programs.end())
      ADD_FAILURE() << name << " is not in the list";
    else
      programs.erase(it);
  }
  return programs;
}

// Flags(16, true) with the named features off.
Flags all_on_but(std::initializer_list<std::string_view> off) {
  Flags flags(kFeatureOrder.size(), true);
  for (std::string_view name : off) {
    const auto it = std::find(kFeatureOrder.begin(), kFeatureOrder.end(), name);
    if (it == kFeatureOrder.end())
      ADD_FAILURE() << "no feature named " << name;
    else
      flags[static_cast<size_t>(it - kFeatureOrder.begin())] = false;
  }
  return flags;
}

const FeatureState& feature(const KernelSupport& s, std::string_view name) {
  static const FeatureState kMissing{"<missing>", false, ""};
  for (const auto& f : s.features)
    if (f.name == name) return f;
  ADD_FAILURE() << "no feature named " << name;
  return kMissing;
}

testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << '"' << text << "\" does not contain \"" << part << '"';
}

std::array<int, US_RF__COUNT> bits(int force_async, int cqe_skip, int isreg) {
  std::array<int, US_RF__COUNT> out{};
  out[US_RF_FORCE_ASYNC] = force_async;
  out[US_RF_CQE_SKIP] = cqe_skip;
  out[US_RF_ISREG] = isreg;
  return out;
}

// --- one test per kernel range --------------------------------------------------------

TEST(ProbeKernel, Linux618) {
  const auto s = probe(kernel_6_18());
  EXPECT_EQ(s.submit, SubmitShape::SubmitReq);
  EXPECT_EQ(s.complete, CompleteShape::Cqe);
  EXPECT_EQ(s.punt, PuntShape::Req2);
  EXPECT_TRUE(s.create);
  EXPECT_TRUE(s.overflow);
  EXPECT_TRUE(s.fd_walk);
  EXPECT_TRUE(s.enter);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_file_get", "usc_fork"}));
  EXPECT_EQ(s.programs, kPrograms618);
  EXPECT_EQ(feature_names(s),
            (Strings{"submit", "complete", "punt", "create", "overflow", "fd_walk", "enter",
                     "poll_arm", "task_add", "task_work", "local_work", "short_write",
                     "req_failed", "io_threads", "file_get", "fork"}));
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  EXPECT_EQ(feature_flags(s), Flags(16, true));
  EXPECT_EQ(s.req_bits, bits(4, 6, 30));
  EXPECT_EQ(feature(s, "submit").detail, "io_uring_submit_req(req), 6.4+ shape");
  EXPECT_TRUE(contains(feature(s, "complete").detail, "6.13+"));
  EXPECT_TRUE(contains(feature(s, "punt").detail, "6.0+"));
  EXPECT_EQ(feature(s, "poll_arm").detail, "io_uring_poll_arm(req, mask, events), 6.0+ shape");
  EXPECT_EQ(feature(s, "task_add").detail, "io_uring_task_add(req, mask), 6.0+ shape");
  EXPECT_EQ(feature(s, "task_work").detail, "io_uring_task_work_run(tctx, count), 6.9+ shape");
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "6.1+"));
  EXPECT_TRUE(contains(feature(s, "short_write").detail, "io_uring_short_write(ctx, fpos"));
  EXPECT_EQ(feature(s, "req_failed").detail,
            "io_uring_req_failed(sqe, req, error), 6.0+ shape");
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "sched_switch(preempt, prev, next"));
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)");
  EXPECT_EQ(feature(s, "fork").detail, "sched_process_fork(parent, child) (used by -f)");
}

TEST(ProbeKernel, Linux612) {
  const auto s = probe(kernel_6_12());
  EXPECT_EQ(s.submit, SubmitShape::SubmitReq);
  EXPECT_EQ(s.complete, CompleteShape::Req7);
  EXPECT_EQ(s.punt, PuntShape::Req2);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe_req", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_file_get", "usc_fork"}));
  EXPECT_EQ(feature_flags(s), Flags(16, true));
  EXPECT_EQ(s.req_bits, bits(4, 6, 29));
  EXPECT_TRUE(contains(feature(s, "complete").detail, "5.19-6.12"));
  EXPECT_TRUE(contains(feature(s, "task_work").detail, "6.9+"));
  EXPECT_TRUE(contains(feature(s, "file_get").detail, "io_uring_file_get(req, fd), 6.0+ shape"));
  EXPECT_TRUE(contains(feature(s, "fork").detail, "sched_process_fork(parent, child)"));
}

TEST(ProbeKernel, Linux61) {
  const auto s = probe(kernel_6_1());
  EXPECT_EQ(s.submit, SubmitShape::SubmitSqe);
  EXPECT_EQ(s.complete, CompleteShape::Req7);
  EXPECT_EQ(s.punt, PuntShape::Req2);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_sqe", "usc_cqe_req", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_file_get", "usc_fork"}));
  EXPECT_EQ(feature_flags(s), Flags(16, true));
  EXPECT_EQ(s.req_bits, bits(4, 6, 31));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "6.0-6.3"));
  // 6.0-6.8 still pass `loops`: the same program, the other shape.
  EXPECT_EQ(feature(s, "task_work").detail,
            "io_uring_task_work_run(tctx, count, loops), 6.0-6.8 shape");
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "local_work_run(ctx, count, loops)"));
  // 6.0 is where file_get became (req, fd).
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)");
}

TEST(ProbeKernel, Linux519) {
  const auto s = probe(kernel_5_19());
  EXPECT_EQ(s.submit, SubmitShape::SubmitSqe518);
  EXPECT_EQ(s.complete, CompleteShape::Req7);
  EXPECT_EQ(s.punt, PuntShape::Legacy7);
  EXPECT_TRUE(s.overflow);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_sqe_old", "usc_cqe_req", "usc_punt_518", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm_old", "usc_sched", "usc_fork"}));
  EXPECT_EQ(feature_flags(s), (Flags{true, true, true, true, true, true, true,  //
                                     true, false, false, false, false, false, true,  //
                                     false, true}));
  EXPECT_EQ(s.req_bits, bits(4, 6, 29));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "5.18-5.19"));
  EXPECT_TRUE(contains(feature(s, "punt").detail, "5.18-5.19"));
  EXPECT_EQ(feature(s, "poll_arm").detail, "io_uring_poll_arm(ctx, req, ...), 5.15-5.19 shape");
  EXPECT_EQ(feature(s, "task_add").detail,
            "io_uring_task_add has 5 args: unrecognised prototype; poll wakeups queued as task "
            "work are not counted (DEFER-TW cannot measure lag)");
  EXPECT_EQ(feature(s, "task_work").detail,
            "no io_uring_task_work_run tracepoint (added in 6.0): task-work runs are not counted");
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "no io_uring_local_work_run tracepoint"));
  EXPECT_TRUE(contains(feature(s, "short_write").detail, "no io_uring_short_write tracepoint"));
  EXPECT_EQ(feature(s, "req_failed").detail,
            "io_uring_req_failed has 4 args: unrecognised prototype; requests rejected before "
            "issue are counted only by their CQE, possibly under the wrong opcode");
  // (ctx, req, user_data, fd): the request is there, but not first.
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 4 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(feature(s, "fork").detail, "sched_process_fork(parent, child) (used by -f)");
}

TEST(ProbeKernel, Linux518) {
  const auto s = probe(kernel_5_18());
  EXPECT_EQ(s.submit, SubmitShape::SubmitSqe518);
  EXPECT_EQ(s.complete, CompleteShape::Req5);
  EXPECT_EQ(s.punt, PuntShape::Legacy7);
  EXPECT_FALSE(s.overflow);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_sqe_old", "usc_cqe_req", "usc_punt_518", "usc_create",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm_old", "usc_sched", "usc_fork"}));
  EXPECT_EQ(feature_flags(s), (Flags{true, true, true, true, false, true, true,  //
                                     true, false, false, false, false, false, true,  //
                                     false, true}));
  EXPECT_EQ(s.req_bits, bits(4, 6, -1));
  EXPECT_TRUE(contains(feature(s, "complete").detail, "5.18 shape"));
  EXPECT_EQ(feature(s, "overflow").detail,
            "no io_uring_cqe_overflow tracepoint (added in 5.19): overflowed CQEs are not counted");
  EXPECT_TRUE(contains(feature(s, "poll_arm").detail, "5.15-5.19"));
  EXPECT_TRUE(contains(feature(s, "req_failed").detail, "io_uring_req_failed has 4 args"));
  // prev_state (5.18+) is a fourth argument the program does not read.
  EXPECT_TRUE(feature(s, "io_threads").enabled);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 4 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_TRUE(feature(s, "fork").enabled);
}

TEST(ProbeKernel, Linux515) {
  const auto s = probe(kernel_5_15());
  EXPECT_EQ(s.submit, SubmitShape::SubmitSqe515);
  EXPECT_EQ(s.complete, CompleteShape::Legacy4);
  EXPECT_EQ(s.punt, PuntShape::Legacy5);
  EXPECT_TRUE(s.create);
  EXPECT_FALSE(s.overflow);
  EXPECT_TRUE(s.fd_walk);
  // No request pointer at completion: usable, but not Full.
  EXPECT_EQ(s.tier, Tier::Legacy);
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_sqe_old", "usc_cqe_old", "usc_punt_515", "usc_create",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm_old", "usc_sched", "usc_fork"}));
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  EXPECT_EQ(feature_flags(s), (Flags{true, true, true, true, false, true, true,  //
                                     true, false, false, false, false, false, true,  //
                                     false, true}));
  EXPECT_EQ(s.req_bits, bits(4, -1, 23));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "5.15-5.17"));
  EXPECT_TRUE(contains(feature(s, "complete").detail, "5.15-5.17"));
  EXPECT_TRUE(contains(feature(s, "punt").detail, "5.15-5.17"));
  EXPECT_TRUE(contains(feature(s, "poll_arm").detail, "5.15-5.19"));
  EXPECT_TRUE(contains(feature(s, "task_add").detail, "io_uring_task_add has 4 args"));
  EXPECT_TRUE(contains(feature(s, "task_work").detail, "no io_uring_task_work_run tracepoint"));
  // req_failed came in 5.16: absent, not unrecognised.
  EXPECT_EQ(feature(s, "req_failed").detail,
            "no io_uring_req_failed tracepoint: requests rejected before issue are counted only "
            "by their CQE, possibly under the wrong opcode");
  // Three-argument sched_switch (no prev_state before 5.18) is read the same way.
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "sched_switch(preempt, prev, next"));
  // (void *ctx, int fd): the 6.0+ count, but a ctx where the request would be.
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 2 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(feature(s, "fork").detail, "sched_process_fork(parent, child) (used by -f)");
}

// --- degraded kernels -----------------------------------------------------------------

TEST(ProbeKernel, MissingPuntIsLegacyWithEverythingElseOn) {
  const auto s = probe(kernel_6_18({"queue_async_work"}));
  EXPECT_EQ(s.submit, SubmitShape::SubmitReq);
  EXPECT_EQ(s.complete, CompleteShape::Cqe);
  EXPECT_EQ(s.punt, PuntShape::None);
  EXPECT_EQ(s.tier, Tier::Legacy);
  EXPECT_EQ(feature_flags(s), all_on_but({"punt"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_punt"}));
  EXPECT_EQ(feature(s, "punt").detail,
            "no io_uring_queue_async_work tracepoint: punts to io-wq are not counted");
}

TEST(ProbeKernel, MissingSubmitIsUnsupported) {
  const auto s = probe(kernel_6_18({"submit_req"}));
  EXPECT_EQ(s.submit, SubmitShape::None);
  EXPECT_EQ(s.complete, CompleteShape::Cqe);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_FALSE(feature(s, "submit").enabled);
  EXPECT_TRUE(contains(feature(s, "submit").detail,
                       "no io_uring_submit_req or io_uring_submit_sqe tracepoint"));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "not tracked"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sub_req"}));
}

TEST(ProbeKernel, MissingCompleteIsUnsupported) {
  const auto s = probe(kernel_6_12({"complete"}));
  EXPECT_EQ(s.submit, SubmitShape::SubmitReq);
  EXPECT_EQ(s.complete, CompleteShape::None);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_EQ(feature(s, "complete").detail,
            "no io_uring_complete tracepoint: completions, errors and latencies are not "
            "measured");
}

TEST(ProbeKernel, MissingCreateAndIteratorTurnOnlyThoseOff) {
  KernelBtf k({"create"});
  add_618_tracepoints(k);  // no bpf_iter__task_file struct either
  const auto s = probe(k);
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(feature_flags(s), all_on_but({"create", "fd_walk"}));
  EXPECT_TRUE(contains(feature(s, "create").detail, "no io_uring_create tracepoint"));
  EXPECT_TRUE(contains(feature(s, "fd_walk").detail, "bpf_iter__task_file"));
  EXPECT_TRUE(contains(feature(s, "fd_walk").detail, "5.8"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_create", "usc_ring_fds"}));
  EXPECT_EQ(s.req_bits, bits(-1, -1, -1));
}

// --- unrecognised prototypes ----------------------------------------------------------

TEST(ProbeKernel, SubmitSqeWithUnknownArgCount) {
  KernelBtf k({"submit_req"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("submit_sqe", {t.req, t.bool_, t.int_});
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_FALSE(feature(s, "submit").enabled);
  EXPECT_TRUE(contains(feature(s, "submit").detail,
                       "io_uring_submit_sqe has 3 args: unrecognised prototype"));
  EXPECT_EQ(s.programs.front(), "usc_cqe");
}

TEST(ProbeKernel, SevenArgSubmitSqeWithFourByteArg2) {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, t.u32, t.u64, t.u32, t.bool_, t.bool_});
  k.tracepoint("complete", {t.void_ptr, t.u64, t.int_, t.unsigned_});
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "submit").detail, "7 args"));
  EXPECT_TRUE(contains(feature(s, "submit").detail, "unrecognised prototype"));
}

TEST(ProbeKernel, SevenArgSubmitSqeWithPointerArg2) {
  KernelBtf k;
  const auto& t = k.types();
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, t.req, t.u64, t.u32, t.bool_, t.bool_});
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
}

TEST(ProbeKernel, SubmitSqeArg2ThroughConstVolatile) {
  // `const volatile u8` is still a one-byte opcode: modifiers must not hide the width.
  KernelBtf k;
  const auto& t = k.types();
  const int cv_u8 = k.checked(btf__add_const(k.raw(), k.checked(btf__add_volatile(k.raw(), t.u8))));
  k.tracepoint("submit_sqe", {t.void_ptr, t.void_ptr, cv_u8, t.u64, t.u32, t.bool_, t.bool_});
  EXPECT_EQ(probe(k).submit, SubmitShape::SubmitSqe515);
}

TEST(ProbeKernel, CompleteWithUnknownArgCount) {
  KernelBtf k({"complete"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("complete", {t.void_ptr, t.void_ptr, t.u64, t.int_, t.unsigned_, t.u64});
  const auto s = probe(k);
  EXPECT_EQ(s.complete, CompleteShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "complete").detail,
                       "io_uring_complete has 6 args: unrecognised prototype"));
  EXPECT_TRUE(contains(feature(s, "complete").detail, "not measured"));
}

TEST(ProbeKernel, PuntWithUnknownArgCountIsLegacy) {
  KernelBtf k({"queue_async_work"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("queue_async_work", {t.req, t.int_, t.unsigned_});
  const auto s = probe(k);
  EXPECT_EQ(s.punt, PuntShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Legacy);
  EXPECT_EQ(feature(s, "punt").detail,
            "io_uring_queue_async_work has 3 args: unrecognised prototype; punts to io-wq are "
            "not counted");
}

TEST(ProbeKernel, CreateAndOverflowNeedFiveArgs) {
  KernelBtf k({"create", "cqe_overflow"});
  add_618_tracepoints(k);
  const auto& t = k.types();
  k.add_tracepoint("create", {t.int_, t.void_ptr, t.u32, t.u32});
  k.add_tracepoint("cqe_overflow", {t.void_ptr, t.ull, t.s32, t.u32, t.void_ptr, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(s.create);
  EXPECT_FALSE(s.overflow);
  EXPECT_TRUE(contains(feature(s, "create").detail, "io_uring_create has 4 args"));
  EXPECT_TRUE(contains(feature(s, "overflow").detail, "io_uring_cqe_overflow has 6 args"));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_enter", "usc_poll_arm",
                     "usc_task_add", "usc_tw_run", "usc_local_tw", "usc_short_write",
                     "usc_req_failed", "usc_sched", "usc_file_get", "usc_fork"}));
}

// --- poll, task work, writes, failures, io threads ------------------------------------

TEST(ProbeKernel, TaskWorkRunWithAndWithoutLoopsBothSelectTwRun) {
  struct Case {
    bool loops;
    const char* shape;
  };
  for (const Case& c : {Case{false, "(tctx, count), 6.9+ shape"},
                        Case{true, "(tctx, count, loops), 6.0-6.8 shape"}}) {
    SCOPED_TRACE(c.loops ? "task_work_run with 3 args" : "task_work_run with 2 args");
    auto k = kernel_6_18({"task_work_run"});
    const auto& t = k.types();
    if (c.loops)
      k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_});
    else
      k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_});
    const auto s = probe(k);
    EXPECT_TRUE(feature(s, "task_work").enabled);
    EXPECT_TRUE(contains(feature(s, "task_work").detail, c.shape));
    EXPECT_EQ(s.programs, kPrograms618);
    EXPECT_EQ(s.programs[9], "usc_tw_run");
  }
}

TEST(ProbeKernel, TaskWorkRunWithOtherArgCountsIsOff) {
  for (int args : {1, 4}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"task_work_run"});
    const auto& t = k.types();
    if (args == 1)
      k.add_tracepoint("task_work_run", {t.void_ptr});
    else
      k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_, t.unsigned_});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "task_work").enabled);
    EXPECT_TRUE(contains(feature(s, "task_work").detail,
                         "io_uring_task_work_run has " + std::to_string(args) +
                             " args: unrecognised prototype; task-work runs are not counted"));
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_tw_run"}));
  }
}

TEST(ProbeKernel, ReqFailedWithFourArgsIsOff) {
  // The 5.18-5.19 shape (sqe, ctx, req, error) on an otherwise 6.18 kernel.
  auto k = kernel_6_18({"req_failed"});
  const auto& t = k.types();
  k.add_tracepoint("req_failed", {t.sqe, t.void_ptr, t.void_ptr, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "req_failed").enabled);
  EXPECT_TRUE(contains(feature(s, "req_failed").detail, "4 args"));
  EXPECT_EQ(feature(s, "req_failed").detail,
            "io_uring_req_failed has 4 args: unrecognised prototype; requests rejected before "
            "issue are counted only by their CQE, possibly under the wrong opcode");
  EXPECT_EQ(feature_flags(s), all_on_but({"req_failed"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_req_failed"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, ReqFailedWithTwoArgsIsOff) {
  // The 5.16-5.17 shape (sqe, error).
  auto k = kernel_6_18({"req_failed"});
  const auto& t = k.types();
  k.add_tracepoint("req_failed", {t.sqe, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "req_failed").enabled);
  EXPECT_TRUE(contains(feature(s, "req_failed").detail,
                       "io_uring_req_failed has 2 args: unrecognised prototype"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_req_failed"}));
}

TEST(ProbeKernel, SchedSwitchWithFiveArgsIsOff) {
  auto k = kernel_6_18({"sched_switch"});
  const auto& t = k.types();
  k.add_sched_switch({t.bool_, t.task, t.task, t.unsigned_, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "5 args"));
  EXPECT_EQ(feature(s, "io_threads").detail,
            "sched_switch has 5 args: unrecognised prototype; SQPOLL sleeps and io-wq workers "
            "are not seen (no SQPOLL or WORKERS finding)");
  EXPECT_EQ(feature_flags(s), all_on_but({"io_threads"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, SchedSwitchWithTwoArgsIsOff) {
  auto k = kernel_6_18({"sched_switch"});
  const auto& t = k.types();
  k.add_sched_switch({t.bool_, t.task});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "sched_switch has 2 args"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, KernelWithoutSchedSwitchLosesOnlyIoThreads) {
  const auto full = probe(kernel_6_18());
  const auto s = probe(kernel_6_18({"sched_switch"}));
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_EQ(feature(s, "io_threads").detail,
            "no sched_switch tracepoint: SQPOLL sleeps and io-wq workers are not seen (no SQPOLL "
            "or WORKERS finding)");
  EXPECT_EQ(feature_flags(s), all_on_but({"io_threads"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
  // Everything else exactly as on the complete kernel.
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.submit, full.submit);
  EXPECT_EQ(s.complete, full.complete);
  EXPECT_EQ(s.punt, full.punt);
  EXPECT_EQ(s.req_bits, full.req_bits);
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  ASSERT_EQ(s.features.size(), full.features.size());
  for (size_t i = 0; i < s.features.size(); ++i) {
    if (s.features[i].name == "io_threads") continue;
    SCOPED_TRACE(s.features[i].name);
    EXPECT_EQ(s.features[i].name, full.features[i].name);
    EXPECT_EQ(s.features[i].enabled, full.features[i].enabled);
    EXPECT_EQ(s.features[i].detail, full.features[i].detail);
  }
}

TEST(ProbeKernel, SchedSwitchIsNotAnIoUringTracepoint) {
  // The typedef is btf_trace_sched_switch; an io_uring_-prefixed one is someone else's.
  auto k = kernel_6_18({"sched_switch"});
  const auto& t = k.types();
  k.add_tracepoint("sched_switch", {t.bool_, t.task, t.task, t.unsigned_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_TRUE(contains(feature(s, "io_threads").detail, "no sched_switch tracepoint"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, SchedSwitchTypedefToNonPointer) {
  auto k = kernel_6_18({"sched_switch"});
  k.checked(btf__add_typedef(k.raw(), "btf_trace_sched_switch", k.types().int_));
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "io_threads").enabled);
  EXPECT_EQ(feature(s, "io_threads").detail,
            "btf_trace_sched_switch is not a pointer to a function prototype; SQPOLL sleeps and "
            "io-wq workers are not seen (no SQPOLL or WORKERS finding)");
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_sched"}));
}

TEST(ProbeKernel, SixArgPollArmSelectsTheLegacyProgram) {
  // 5.15-5.17 (opcode, user_data) and 5.18-5.19 (user_data, opcode) orders: the program
  // reads only ctx and req, which lead both.
  for (bool order_518 : {false, true}) {
    SCOPED_TRACE(order_518 ? "5.18-5.19 order" : "5.15-5.17 order");
    auto k = kernel_6_18({"poll_arm"});
    const auto& t = k.types();
    if (order_518)
      k.add_tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u64, t.u8, t.int_, t.int_});
    else
      k.add_tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u8, t.u64, t.int_, t.int_});
    const auto s = probe(k);
    EXPECT_TRUE(feature(s, "poll_arm").enabled);
    EXPECT_EQ(feature(s, "poll_arm").detail,
              "io_uring_poll_arm(ctx, req, ...), 5.15-5.19 shape");
    Strings expected = kPrograms618;
    expected[7] = "usc_poll_arm_old";
    EXPECT_EQ(s.programs, expected);
  }
}

TEST(ProbeKernel, PollArmWithOtherArgCountsIsOff) {
  for (int args : {2, 5}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"poll_arm"});
    const auto& t = k.types();
    if (args == 2)
      k.add_tracepoint("poll_arm", {t.req, t.int_});
    else
      k.add_tracepoint("poll_arm", {t.void_ptr, t.void_ptr, t.u64, t.u8, t.int_});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "poll_arm").enabled);
    EXPECT_EQ(feature(s, "poll_arm").detail,
              "io_uring_poll_arm has " + std::to_string(args) +
                  " args: unrecognised prototype; poll-arm retries (POLL-RETRY) are not counted");
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_poll_arm"}));
  }
}

TEST(ProbeKernel, OneShapeFeaturesRejectOtherArgCounts) {
  // task_add, local_work_run and short_write each have one readable shape.
  auto k = kernel_6_18({"task_add", "local_work_run", "short_write"});
  const auto& t = k.types();
  k.add_tracepoint("task_add", {t.req, t.int_, t.int_});
  k.add_tracepoint("local_work_run", {t.void_ptr, t.int_});
  k.add_tracepoint("short_write", {t.void_ptr, t.u64, t.u64, t.u64, t.u64});
  const auto s = probe(k);
  EXPECT_EQ(feature_flags(s), all_on_but({"task_add", "local_work", "short_write"}));
  EXPECT_TRUE(contains(feature(s, "task_add").detail, "io_uring_task_add has 3 args"));
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "io_uring_local_work_run has 2 args"));
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "no DEFER-TW finding"));
  EXPECT_TRUE(contains(feature(s, "short_write").detail, "io_uring_short_write has 5 args"));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_task_add", "usc_local_tw", "usc_short_write"}));
}

TEST(ProbeKernel, NewerFeaturesMissingFromA60Kernel) {
  // A 6.0-like kernel: task_work_run with loops, no local_work_run yet.
  auto k = kernel_6_18({"task_work_run", "local_work_run"});
  const auto& t = k.types();
  k.add_tracepoint("task_work_run", {t.void_ptr, t.unsigned_, t.unsigned_});
  const auto s = probe(k);
  EXPECT_EQ(feature_flags(s), all_on_but({"local_work"}));
  EXPECT_EQ(feature(s, "local_work").detail,
            "no io_uring_local_work_run tracepoint (added in 6.1 with DEFER_TASKRUN): "
            "DEFER_TASKRUN local task work is not counted (no DEFER-TW finding)");
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_local_tw"}));
}

// --- file_get (--trace) and fork (-f) -------------------------------------------------

constexpr std::string_view kFileGetOff =
    "; --trace cannot show which io-wq worker issued a punted request";
constexpr std::string_view kForkAbsent =
    "no sched_process_fork tracepoint: -f cannot follow forked children";
constexpr std::string_view kForkOff =
    "sched_process_fork is not (task_struct *parent, task_struct *child): unrecognised "
    "prototype; -f cannot follow forked children";
constexpr std::string_view kForkNotProto =
    "btf_trace_sched_process_fork is not a pointer to a function prototype; -f cannot "
    "follow forked children";

TEST(ProbeKernel, TwoArgFileGetWithVoidPointerFirstIsOff) {
  // The 5.15-5.17 shape (void *ctx, int fd) on an otherwise 6.18 kernel: two args like
  // 6.0+, but no request to read.
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  k.add_tracepoint("file_get", {t.void_ptr, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 2 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, TwoArgFileGetWithAnotherStructPointerFirstIsOff) {
  // A struct pointer is not enough: it has to be struct io_kiocb.
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  k.add_tracepoint("file_get", {t.ctx, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_TRUE(contains(feature(s, "file_get").detail, "io_uring_file_get has 2 args"));
  EXPECT_TRUE(contains(feature(s, "file_get").detail, kFileGetOff));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
}

TEST(ProbeKernel, FourArgFileGetIsOff) {
  // The 5.18-5.19 shape (void *ctx, void *req, ull user_data, int fd).
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  k.add_tracepoint("file_get", {t.void_ptr, t.void_ptr, t.ull, t.int_});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get has 4 args without a request first: an older shape; --trace "
            "cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, FileGetWithRequestFirstButOtherArgCountsIsOff) {
  // usc_file_get reads (req, fd); a request first does not make another count readable.
  for (int args : {1, 3, 4}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"file_get"});
    const auto& t = k.types();
    if (args == 1)
      k.add_tracepoint("file_get", {t.req});
    else if (args == 3)
      k.add_tracepoint("file_get", {t.req, t.int_, t.unsigned_});
    else
      k.add_tracepoint("file_get", {t.req, t.void_ptr, t.ull, t.int_});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "file_get").enabled);
    EXPECT_TRUE(contains(feature(s, "file_get").detail,
                         "io_uring_file_get has " + std::to_string(args) + " args"));
    EXPECT_TRUE(contains(feature(s, "file_get").detail, kFileGetOff));
    EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
  }
}

TEST(ProbeKernel, FileGetRequestBehindTypedefsAndConstIsOn) {
  // `typedef const struct io_kiocb kiocb_t; typedef kiocb_t *kiocb_ptr_t;` is still a
  // struct io_kiocb *: wrappers must not hide the struct.
  auto k = kernel_6_18({"file_get"});
  const auto& t = k.types();
  const int kiocb = btf__find_by_name_kind(k.raw(), "io_kiocb", BTF_KIND_STRUCT);
  ASSERT_GT(kiocb, 0);
  const int const_kiocb = k.checked(btf__add_const(k.raw(), kiocb));
  const int kiocb_t = k.checked(btf__add_typedef(k.raw(), "kiocb_t", const_kiocb));
  const int ptr = k.checked(btf__add_ptr(k.raw(), kiocb_t));
  const int ptr_t = k.checked(btf__add_typedef(k.raw(), "kiocb_ptr_t", ptr));
  k.add_tracepoint("file_get", {ptr_t, t.int_});
  const auto s = probe(k);
  EXPECT_TRUE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "io_uring_file_get(req, fd), 6.0+ shape (used by --trace)");
  EXPECT_EQ(s.programs, kPrograms618);
}

TEST(ProbeKernel, KernelWithoutFileGetLosesOnlyFileGet) {
  const auto s = probe(kernel_6_18({"file_get"}));
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "no io_uring_file_get tracepoint: --trace cannot show which io-wq worker issued a "
            "punted request");
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get"}));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_fork"}));
  EXPECT_EQ(s.tier, Tier::Full);
}

TEST(ProbeKernel, FileGetTypedefToNonPointer) {
  auto k = kernel_6_18({"file_get"});
  k.bogus_tracepoint("file_get", k.types().int_);
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "file_get").enabled);
  EXPECT_EQ(feature(s, "file_get").detail,
            "btf_trace_io_uring_file_get is not a pointer to a function prototype: unrecognised "
            "prototype; --trace cannot show which io-wq worker issued a punted request");
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_file_get"}));
}

TEST(ProbeKernel, KernelWithoutSchedProcessForkLosesOnlyFork) {
  const auto full = probe(kernel_6_18());
  const auto s = probe(kernel_6_18({"sched_process_fork"}));
  EXPECT_FALSE(feature(s, "fork").enabled);
  EXPECT_EQ(feature(s, "fork").detail,
            kForkAbsent);
  EXPECT_EQ(feature_flags(s), all_on_but({"fork"}));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",
                     "usc_file_get"}));
  // Everything else exactly as on the complete kernel.
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.submit, full.submit);
  EXPECT_EQ(s.complete, full.complete);
  EXPECT_EQ(s.punt, full.punt);
  EXPECT_EQ(s.req_bits, full.req_bits);
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  ASSERT_EQ(s.features.size(), full.features.size());
  for (size_t i = 0; i < s.features.size(); ++i) {
    if (s.features[i].name == "fork") continue;
    SCOPED_TRACE(s.features[i].name);
    EXPECT_EQ(s.features[i].name, full.features[i].name);
    EXPECT_EQ(s.features[i].enabled, full.features[i].enabled);
    EXPECT_EQ(s.features[i].detail, full.features[i].detail);
  }
}

TEST(ProbeKernel, SchedProcessForkWithNonTaskStructArgsIsOff) {
  using T = KernelBtf::Types;
  struct Case {
    const char* what;
    int T::*parent;
    int T::*child;
  };
  for (const Case& c : {Case{"void *, void *", &T::void_ptr, &T::void_ptr},
                        Case{"task_struct *, void *", &T::task, &T::void_ptr},
                        Case{"void *, task_struct *", &T::void_ptr, &T::task},
                        Case{"io_ring_ctx *, io_ring_ctx *", &T::ctx, &T::ctx},
                        Case{"task_struct *, int", &T::task, &T::int_}}) {
    SCOPED_TRACE(c.what);
    auto k = kernel_6_18({"sched_process_fork"});
    const auto& t = k.types();
    k.add_sched_process_fork({t.*c.parent, t.*c.child});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "fork").enabled);
    EXPECT_EQ(feature(s, "fork").detail, kForkOff);
    EXPECT_EQ(feature_flags(s), all_on_but({"fork"}));
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
  }
}

TEST(ProbeKernel, SchedProcessForkWithOtherArgCountsIsOff) {
  for (int args : {1, 3}) {
    SCOPED_TRACE(args);
    auto k = kernel_6_18({"sched_process_fork"});
    const auto& t = k.types();
    if (args == 1)
      k.add_sched_process_fork({t.task});
    else
      k.add_sched_process_fork({t.task, t.task, t.task});
    const auto s = probe(k);
    EXPECT_FALSE(feature(s, "fork").enabled);
    EXPECT_EQ(feature(s, "fork").detail, kForkOff);
    EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
  }
}

TEST(ProbeKernel, SchedProcessForkIsNotAnIoUringTracepoint) {
  auto k = kernel_6_18({"sched_process_fork"});
  const auto& t = k.types();
  k.add_tracepoint("sched_process_fork", {t.task, t.task});
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "fork").enabled);
  EXPECT_EQ(feature(s, "fork").detail, kForkAbsent);
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
}

TEST(ProbeKernel, SchedProcessForkTypedefToNonPointer) {
  auto k = kernel_6_18({"sched_process_fork"});
  k.checked(btf__add_typedef(k.raw(), "btf_trace_sched_process_fork", k.types().task));
  const auto s = probe(k);
  EXPECT_FALSE(feature(s, "fork").enabled);
  EXPECT_EQ(feature(s, "fork").detail, kForkNotProto);
  EXPECT_EQ(s.programs, minus(kPrograms618, {"usc_fork"}));
}

TEST(ProbeKernel, FileGetAndForkDoNotDecideTheTier) {
  // Both off on a 6.18 kernel: still Full, and the 14 older features unchanged.
  const auto s = probe(kernel_6_18({"file_get", "sched_process_fork"}));
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(feature_flags(s), all_on_but({"file_get", "fork"}));
  EXPECT_EQ(s.programs,
            (Strings{"usc_sub_req", "usc_cqe", "usc_punt", "usc_create", "usc_cqe_ovf",
                     "usc_ring_fds", "usc_enter", "usc_poll_arm", "usc_task_add", "usc_tw_run",
                     "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched"}));
}

// --- odd BTF ----------------------------------------------------------------------------

TEST(ProbeKernel, TracepointTypedefToNonPointer) {
  KernelBtf k({"complete"});
  add_618_tracepoints(k);
  k.bogus_tracepoint("complete", k.types().int_);
  const auto s = probe(k);
  EXPECT_EQ(s.complete, CompleteShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(contains(feature(s, "complete").detail, "unrecognised prototype"));
}

TEST(ProbeKernel, TracepointTypedefToDataPointer) {
  KernelBtf k({"submit_req"});
  add_618_tracepoints(k);
  k.bogus_tracepoint("submit_req", k.types().req);
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::Unrecognised);
  EXPECT_TRUE(contains(feature(s, "submit").detail, "btf_trace_io_uring_submit_req"));
}

TEST(ProbeKernel, PrototypeWithoutAnyParameter) {
  KernelBtf k({"queue_async_work"});
  add_618_tracepoints(k);
  const int proto = k.checked(btf__add_func_proto(k.raw(), 0));
  k.bogus_tracepoint("queue_async_work", k.checked(btf__add_ptr(k.raw(), proto)));
  const auto s = probe(k);
  EXPECT_EQ(s.punt, PuntShape::Unrecognised);
  EXPECT_EQ(s.tier, Tier::Legacy);
}

TEST(ProbeKernel, EmptyBtfIsUnsupported) {
  const KernelBtf k;
  const auto s = probe(k);
  EXPECT_EQ(s.submit, SubmitShape::None);
  EXPECT_EQ(s.complete, CompleteShape::None);
  EXPECT_EQ(s.punt, PuntShape::None);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_EQ(feature_flags(s), (Flags{false, false, false, false, false, false, true,  //
                                     false, false, false, false, false, false, false,  //
                                     false, false}));
  EXPECT_EQ(s.programs, Strings{"usc_enter"});
  EXPECT_EQ(s.req_bits, bits(-1, -1, -1));
  EXPECT_EQ(feature(s, "poll_arm").detail,
            "no io_uring_poll_arm tracepoint: poll-arm retries (POLL-RETRY) are not counted");
  EXPECT_TRUE(contains(feature(s, "task_add").detail, "no io_uring_task_add tracepoint"));
  EXPECT_TRUE(contains(feature(s, "local_work").detail, "(added in 6.1 with DEFER_TASKRUN)"));
  EXPECT_TRUE(contains(feature(s, "short_write").detail, "(added in 6.0)"));
  EXPECT_EQ(feature(s, "io_threads").detail,
            "no sched_switch tracepoint: SQPOLL sleeps and io-wq workers are not seen (no SQPOLL "
            "or WORKERS finding)");
  EXPECT_EQ(feature(s, "file_get").detail,
            "no io_uring_file_get tracepoint: --trace cannot show which io-wq worker issued a "
            "punted request");
  EXPECT_EQ(feature(s, "fork").detail,
            kForkAbsent);
}

TEST(ProbeKernel, NullBtf) {
  const auto s = probe_kernel(nullptr, env_with_syscalls(true));
  EXPECT_EQ(s.submit, SubmitShape::None);
  EXPECT_EQ(s.complete, CompleteShape::None);
  EXPECT_EQ(s.punt, PuntShape::None);
  EXPECT_FALSE(s.create || s.overflow || s.fd_walk || s.enter);
  EXPECT_EQ(s.tier, Tier::Unsupported);
  EXPECT_TRUE(s.programs.empty());
  EXPECT_EQ(s.req_bits, bits(-1, -1, -1));
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  for (const auto& f : s.features) {
    EXPECT_FALSE(f.enabled) << f.name;
    EXPECT_TRUE(contains(f.detail, "no kernel BTF")) << f.name;
  }
  EXPECT_EQ(feature(s, "file_get").detail,
            "no kernel BTF (/sys/kernel/btf/vmlinux): --trace cannot show which io-wq worker "
            "issued a punted request");
  EXPECT_EQ(feature(s, "fork").detail,
            "no kernel BTF (/sys/kernel/btf/vmlinux): -f cannot follow forked children");
}

// --- REQ_F_*_BIT lookup -----------------------------------------------------------------

TEST(ProbeKernel, ReqBitsFromEnum64) {
  KernelBtf k;
  k.anonymous_enum64({{"REQ_F_FORCE_ASYNC_BIT", 4}, {"REQ_F_ISREG_BIT", 33}});
  EXPECT_EQ(probe(k).req_bits, bits(4, -1, 33));
}

TEST(ProbeKernel, ReqBitOutsideA64BitWordIsAbsent) {
  KernelBtf k;
  k.anonymous_enum(
      {{"REQ_F_FORCE_ASYNC_BIT", 4}, {"REQ_F_CQE_SKIP_BIT", 64}, {"REQ_F_ISREG_BIT", -1}});
  EXPECT_EQ(probe(k).req_bits, bits(4, -1, -1));
}

TEST(ProbeKernel, ReqBitsInANamedEnumAreFoundToo) {
  // The scan goes by enumerator name, not by which enum holds it.
  KernelBtf k;
  k.checked(btf__add_enum(k.raw(), "io_uring_op", 4));
  k.checked(btf__add_enum_value(k.raw(), "IORING_OP_NOP", 0));
  k.checked(btf__add_enum(k.raw(), "req_bits", 4));
  k.checked(btf__add_enum_value(k.raw(), "REQ_F_ISREG_BIT", 29));
  EXPECT_EQ(probe(k).req_bits, bits(-1, -1, 29));
}

TEST(ProbeKernel, FirstReqBitEnumeratorWins) {
  // vmlinux is deduplicated, so a second REQ_F_ISREG_BIT would be foreign BTF: keep the
  // answer deterministic rather than letting a later copy override the kernel's.
  KernelBtf k;
  k.anonymous_enum({{"REQ_F_ISREG_BIT", 30}});
  k.anonymous_enum({{"REQ_F_ISREG_BIT", 12}});
  EXPECT_EQ(probe(k).req_bits, bits(-1, -1, 30));
}

// --- environment and rendering ----------------------------------------------------------

TEST(ProbeKernel, EnterPrefersFentryAndKeepsTheTracepointAsFallback) {
  auto k = kernel_6_18();
  k.function("__x64_sys_io_uring_enter", {k.struct_ptr("pt_regs")});
  const auto both = probe(k, true);
  EXPECT_TRUE(both.enter);
  EXPECT_TRUE(feature(both, "enter").enabled);
  EXPECT_TRUE(contains(feature(both, "enter").detail, "fentry on __x64_sys_io_uring_enter, else"))
      << feature(both, "enter").detail;
  // fentry first, the tracepoint loaded as fallback (attached only if fentry fails).
  const auto fentry_at = std::find(both.programs.begin(), both.programs.end(), "usc_enter_fentry");
  const auto tp_at = std::find(both.programs.begin(), both.programs.end(), "usc_enter");
  ASSERT_NE(fentry_at, both.programs.end());
  ASSERT_NE(tp_at, both.programs.end());
  EXPECT_LT(fentry_at, tp_at);

  // No syscall tracepoints (CONFIG_FTRACE_SYSCALLS off): fentry alone still counts.
  const auto fentry_only = probe(k, false);
  EXPECT_TRUE(fentry_only.enter);
  EXPECT_EQ(feature(fentry_only, "enter").detail, "fentry on __x64_sys_io_uring_enter");
  EXPECT_EQ(std::count(fentry_only.programs.begin(), fentry_only.programs.end(), "usc_enter"), 0);
}

TEST(ProbeKernel, EnterFentryRefusedAtTheTrialLoadIsNotOffered) {
  auto k = kernel_6_18();
  k.function("__x64_sys_io_uring_enter", {k.struct_ptr("pt_regs")});
  ProbeEnvironment env = env_with_syscalls(true);
  env.enter_fentry = {FentryTrial::Refused, "Operation not permitted"};
  const auto refused = probe_kernel(k.get(), env);
  EXPECT_TRUE(refused.enter);
  EXPECT_EQ(feature(refused, "enter").detail,
            "syscalls/sys_enter_io_uring_enter tracepoint (fentry refused: Operation not "
            "permitted)");
  EXPECT_EQ(std::count(refused.programs.begin(), refused.programs.end(), "usc_enter_fentry"), 0);
  EXPECT_EQ(std::count(refused.programs.begin(), refused.programs.end(), "usc_enter"), 1);
  // Refused and no syscall tracepoints either: the feature is off, with both reasons.
  env.syscall_tracepoints = false;
  const auto neither = probe_kernel(k.get(), env);
  EXPECT_FALSE(neither.enter);
  EXPECT_TRUE(contains(feature(neither, "enter").detail, "not counted"));
  // Loads (or untried, as for --version without privileges): fentry first, as offered.
  env = env_with_syscalls(true);
  env.enter_fentry = {FentryTrial::Loads, ""};
  EXPECT_TRUE(contains(feature(probe_kernel(k.get(), env), "enter").detail, "fentry on"));
}

TEST(ProbeKernel, EnterFentryNeedsThePtRegsEntryPoint) {
  // No such FUNC (another architecture): the tracepoint alone, as before.
  EXPECT_EQ(feature(probe(kernel_6_18(), true), "enter").detail,
            "syscalls/sys_enter_io_uring_enter tracepoint");
  // A FUNC of that name that does not take the pt_regs pointer the program reads.
  auto k = kernel_6_18();
  const auto& t = k.types();
  k.function("__x64_sys_io_uring_enter", {t.unsigned_, t.u32, t.u32, t.u32});
  const auto s = probe(k, true);
  EXPECT_EQ(feature(s, "enter").detail, "syscalls/sys_enter_io_uring_enter tracepoint");
  EXPECT_EQ(std::count(s.programs.begin(), s.programs.end(), "usc_enter_fentry"), 0);
  auto other_struct = kernel_6_18();
  other_struct.function("__x64_sys_io_uring_enter", {other_struct.struct_ptr("io_kiocb")});
  const auto wrong = probe(other_struct, true);
  EXPECT_EQ(std::count(wrong.programs.begin(), wrong.programs.end(), "usc_enter_fentry"), 0);
}

TEST(ProbeKernel, SyscallTracepointsToggleEnter) {
  const auto k = kernel_6_18();
  const auto with = probe(k, true);
  const auto without = probe(k, false);
  EXPECT_TRUE(with.enter);
  EXPECT_TRUE(feature(with, "enter").enabled);
  EXPECT_EQ(with.programs, kPrograms618);

  EXPECT_FALSE(without.enter);
  EXPECT_FALSE(feature(without, "enter").enabled);
  EXPECT_TRUE(contains(feature(without, "enter").detail, "sys_enter_io_uring_enter"));
  EXPECT_TRUE(contains(feature(without, "enter").detail, "not counted"));
  EXPECT_EQ(without.programs, minus(kPrograms618, {"usc_enter"}));
  EXPECT_EQ(feature_flags(without), all_on_but({"enter"}));
  // enter is not part of the tier decision.
  EXPECT_EQ(without.tier, Tier::Full);
}

TEST(TierName, AllTiers) {
  EXPECT_EQ(tier_name(Tier::Full), "full");
  EXPECT_EQ(tier_name(Tier::Legacy), "legacy");
  EXPECT_EQ(tier_name(Tier::Unsupported), "unsupported");
}

TEST(KernelInfo, CopiesReleaseTierNameAndFeatures) {
  KernelSupport support;
  support.tier = Tier::Legacy;
  support.features = {{"submit", true, "io_uring_submit_sqe(...), 5.15-5.17 shape"},
                      {"overflow", false, "no io_uring_cqe_overflow tracepoint"}};
  const KernelInfo info = kernel_info(support, "5.15.0-91-generic");
  EXPECT_EQ(info.release, "5.15.0-91-generic");
  EXPECT_EQ(info.tier, "legacy");
  ASSERT_EQ(info.features.size(), 2u);
  EXPECT_EQ(info.features[0].name, "submit");
  EXPECT_TRUE(info.features[0].enabled);
  EXPECT_EQ(info.features[0].detail, "io_uring_submit_sqe(...), 5.15-5.17 shape");
  EXPECT_EQ(info.features[1].name, "overflow");
  EXPECT_FALSE(info.features[1].enabled);
  EXPECT_EQ(info.features[1].detail, "no io_uring_cqe_overflow tracepoint");
}

TEST(KernelInfo, FullTierFromProbe) {
  const KernelInfo info = kernel_info(probe(kernel_6_18()), "6.18.0");
  EXPECT_EQ(info.release, "6.18.0");
  EXPECT_EQ(info.tier, "full");
  ASSERT_EQ(info.features.size(), 16u);
  EXPECT_EQ(info.features[13].name, "io_threads");
  EXPECT_TRUE(info.features[13].enabled);
  EXPECT_EQ(info.features[14].name, "file_get");
  EXPECT_TRUE(info.features[14].enabled);
  EXPECT_EQ(info.features[15].name, "fork");
  EXPECT_TRUE(info.features[15].enabled);
}

}  // namespace
}  // namespace uringscope
