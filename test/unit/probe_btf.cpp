// SPDX-License-Identifier: MIT
#include "probe_btf.h"

#include <algorithm>

namespace uringscope {

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

namespace probe_fixture {

// REQ_F_*_BIT as the kernel declares them: bits 0..5 (or 0..6 from 5.17) equal the
// IOSQE_* bits, then `REQ_F_FAIL_BIT = 8` and implicit increments (§2).
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
// workqueue_execute_end(struct work_struct *work, work_func_t function): 5.8 onwards.
void add_ring_exit(KernelBtf& k) {
  const auto& t = k.types();
  k.ring_exit({t.work_struct, t.work_func});
}

// io_req_post_cqe(struct io_kiocb *req, s32 res, u32 cflags): the function that posts a
// multishot request's intermediate CQEs with the request in hand (6.12 and 6.18 here).
void add_aux_post(KernelBtf& k) {
  const auto& t = k.types();
  k.function("io_req_post_cqe", {t.req, t.s32, t.u32});
}

void add_sched_process_fork(KernelBtf& k) {
  const auto& t = k.types();
  k.sched_process_fork({t.task, t.task});
}

// The 6.0-6.18 request-event prototypes that kept one shape over the whole range (§1):
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

// 6.14-6.18 prototypes (§1).
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
  add_ring_exit(k);
  add_aux_post(k);
  // Neighbours the probe must not confuse with the ones it wants.
  k.tracepoint("link", {t.req, t.req});
  k.tracepoint("cqring_wait", {t.void_ptr, t.int_});
}

KernelBtf kernel_6_18(std::set<std::string> without) {
  KernelBtf k(std::move(without));
  add_618_tracepoints(k);
  k.struct_type("bpf_iter__task_file");
  // §2, 6.18 column: FORCE_ASYNC 4, CQE_SKIP 6, ISREG 30.
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

KernelBtf kernel_6_12(std::set<std::string> without) {
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
  add_ring_exit(k);
  add_aux_post(k);
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
  add_ring_exit(k);
  k.struct_type("bpf_iter__task_file");
  // A 6.1-era io_uring_types.h (PARTIAL_IO,
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

// The 5.18-5.19 "consistent" prototypes of the newer features (§1):
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
  add_ring_exit(k);
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
  // §2, 5.19 column: ISREG 29.
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
  // docs/kernel-facts.md numbers no 5.18 internal bits, so this kernel carries only the ones
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
  add_ring_exit(k);
  k.struct_type("bpf_iter__task_file");
  // No CQE_SKIP before 5.17 (§2). Internal bits: v5.15 fs/io_uring.c (before the
  // page's columns), where ISREG is 23 (24 on 5.15.y stables that backported PARTIAL_IO).
  k.anonymous_enum(
      req_f_bits(false, {"FAIL", "INFLIGHT", "CUR_POS", "NOWAIT", "LINK_TIMEOUT", "NEED_CLEANUP",
                         "POLLED", "BUFFER_SELECTED", "COMPLETE_INLINE", "REISSUE", "CREDS",
                         "REFCOUNT", "ARM_LTIMEOUT", "NOWAIT_READ", "NOWAIT_WRITE", "ISREG"}));
  return k;
}

ProbeEnvironment env_with_syscalls(bool syscall_tracepoints) {
  ProbeEnvironment env;
  // Below 6.19, so the catchers row is off whichever kernel a fixture stands for.
  env.kernel_release = "6.18.0-fixture";
  env.syscall_tracepoints = syscall_tracepoints;
  // The fixtures' kernels are x86's (their syscall entry is __x64_sys_*): pinned, so that
  // the tests mean the same in an arm64 build (probe_arch_test.cpp covers arm64).
  env.arch = Arch::X86_64;
  return env;
}

KernelSupport probe(const KernelBtf& k, bool syscall_tracepoints) {
  return probe_kernel(k.get(), env_with_syscalls(syscall_tracepoints));
}

Strings feature_names(const KernelSupport& s) {
  Strings names;
  for (const auto& f : s.features) names.push_back(f.name);
  return names;
}

void expect_as_full_except(const KernelSupport& s, const KernelSupport& full,
                           std::string_view except) {
  EXPECT_EQ(s.tier, Tier::Full);
  EXPECT_EQ(s.submit, full.submit);
  EXPECT_EQ(s.complete, full.complete);
  EXPECT_EQ(s.punt, full.punt);
  EXPECT_EQ(s.req_bits, full.req_bits);
  EXPECT_EQ(feature_names(s), kFeatureOrder);
  ASSERT_EQ(s.features.size(), full.features.size());
  for (size_t i = 0; i < s.features.size(); ++i) {
    if (s.features[i].name == except) continue;
    SCOPED_TRACE(s.features[i].name);
    EXPECT_EQ(s.features[i].name, full.features[i].name);
    EXPECT_EQ(s.features[i].enabled, full.features[i].enabled);
    EXPECT_EQ(s.features[i].detail, full.features[i].detail);
  }
}

Flags feature_flags(const KernelSupport& s) {
  Flags flags;
  for (const auto& f : s.features) flags.push_back(f.enabled);
  return flags;
}

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

// Every feature on but the named ones, and catchers, which no fixture's release needs
// (env_with_syscalls; probe_catchers_test.cpp varies the release).
Flags all_on_but(std::initializer_list<std::string_view> off) {
  Flags flags(kFeatureOrder.size(), true);
  flags.back() = false;
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

}  // namespace probe_fixture
}  // namespace uringscope
