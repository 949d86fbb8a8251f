// SPDX-License-Identifier: MIT
// Synthetic kernel BTF for the probe tests, one builder per kernel range. The prototypes
// mirror docs/kernel-facts.md §1 and the REQ_F_*_BIT numbers its
// §2, so a wrong branch in the probe shows up as a wrong shape, tier or program list.
// Never the host's /sys/kernel/btf/vmlinux: these must pass on any machine.
#pragma once

#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "probe/probe.h"

namespace uringscope {

// Readable failure messages for the shape enums (found by gtest through ADL).
void PrintTo(SubmitShape shape, std::ostream* os);
void PrintTo(CompleteShape shape, std::ostream* os);
void PrintTo(PuntShape shape, std::ostream* os);
void PrintTo(Tier tier, std::ostream* os);

namespace probe_fixture {


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
    int req, ctx, cqe, work, sqe, task, work_struct, work_func;
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
    // io_ring_ctx with the member the ring_exit program finds its ctx by.
    const int work_struct = struct_type("work_struct");
    const int ring_ctx = check(btf__add_struct(raw(), "io_ring_ctx", 64));
    check(btf__add_field(raw(), "exit_work", work_struct, 0, 0));
    types_.ctx = check(btf__add_ptr(raw(), ring_ctx));
    types_.work_struct = check(btf__add_ptr(raw(), work_struct));
    // work_func_t: a typedef of a pointer to void (struct work_struct *).
    const int work_proto = check(btf__add_func_proto(raw(), 0));
    check(btf__add_func_param(raw(), nullptr, types_.work_struct));
    types_.work_func = check(btf__add_typedef(raw(), "work_func_t", check(btf__add_ptr(raw(), work_proto))));
    types_.cqe = struct_ptr("io_uring_cqe");
    types_.work = struct_ptr("io_wq_work");
    types_.task = struct_ptr("task_struct");
    // The command-area structs --check reads (check_overlap).
    check(btf__add_struct(raw(), "io_rw", 64));
    check(btf__add_field(raw(), "addr", types_.u64, 384, 0));
    check(btf__add_struct(raw(), "io_sr_msg", 64));
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

  // sched_process_exit(struct task_struct *task[, bool group_dead]): not in the kernel
  // builders, so that their program lists stay the short ones; tests add it.
  void add_sched_process_exit(std::initializer_list<int> args) {
    add_trace_typedef("btf_trace_sched_process_exit", args);
  }

  // The end of ring teardown: workqueue_execute_end(work, function) and the work function
  // io_ring_exit_work(work). Left out when `without` names "workqueue_execute_end".
  void ring_exit(std::initializer_list<int> args) {
    if (!without_.count("workqueue_execute_end")) add_workqueue_execute_end(args);
  }

  void add_workqueue_execute_end(std::initializer_list<int> args) {
    add_trace_typedef("btf_trace_workqueue_execute_end", args);
    function("io_ring_exit_work", {types_.work_struct});
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

// 6.14-6.18 prototypes (docs/kernel-facts.md §1).
void add_618_tracepoints(KernelBtf& k);

// One builder per kernel range; `without` names events the kernel should lack.
KernelBtf kernel_6_18(std::set<std::string> without = {});
KernelBtf kernel_6_12(std::set<std::string> without = {});
KernelBtf kernel_6_1();
KernelBtf kernel_5_19();
KernelBtf kernel_5_18();
KernelBtf kernel_5_15();

ProbeEnvironment env_with_syscalls(bool syscall_tracepoints = true);
KernelSupport probe(const KernelBtf& k, bool syscall_tracepoints = true);

using Strings = std::vector<std::string>;
using Flags = std::vector<bool>;

Strings feature_names(const KernelSupport& s);
Flags feature_flags(const KernelSupport& s);

// `s` is `full` (the complete kernel's result) in tier, shapes, REQ_F bits and every
// feature row but `except`, whose row the caller checks itself.
void expect_as_full_except(const KernelSupport& s, const KernelSupport& full,
                           std::string_view except);

inline const Strings kFeatureOrder = {
    "submit",     "complete",    "punt",       "create",     "overflow", "fd_walk",
    "enter",      "poll_arm",    "task_add",   "task_work",  "local_work", "short_write",
    "req_failed", "io_threads",  "file_get",   "fork",     "ring_exit",  "aux_req",  "check_overlap",
    "check_unmap", "check_bufreg", "catchers"};

// Everything a 6.14-6.18 kernel loads, in feature order.
inline const Strings kPrograms618 = {
    "usc_sub_req",  "usc_cqe",         "usc_punt",       "usc_create",   "usc_cqe_ovf",
    "usc_ring_fds", "usc_enter",       "usc_poll_arm",   "usc_task_add", "usc_tw_run",
    "usc_local_tw", "usc_short_write", "usc_req_failed", "usc_sched",    "usc_file_get",
    "usc_fork",     "usc_ring_exit",   "usc_aux_req",    "usc_ck_munmap",  "usc_ck_madvise", "usc_ck_mremap", "usc_ck_mremap_exit", "usc_ck_register"};

// `programs` without the named ones; a name that is not there is a mistake in the test.
Strings minus(Strings programs, std::initializer_list<std::string_view> drop);
// Flags(kFeatureCount, true) with the named features off.
Flags all_on_but(std::initializer_list<std::string_view> off);
const FeatureState& feature(const KernelSupport& s, std::string_view name);
testing::AssertionResult contains(const std::string& text, std::string_view part);
std::array<int, US_RF__COUNT> bits(int force_async, int cqe_skip, int isreg);

}  // namespace probe_fixture
}  // namespace uringscope
