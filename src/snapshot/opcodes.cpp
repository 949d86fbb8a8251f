// SPDX-License-Identifier: MIT
#include "uringscope/opcodes.h"
#include "uringscope/abi.h"

#include <linux/io_uring.h>
#include "util/strings.h"

#include <array>
#include <cctype>

namespace uringscope {

// The numbers the code names must be the kernel's (the BPF side takes them from vmlinux.h).
static_assert(op::kSendZc == IORING_OP_SEND_ZC && op::kSendmsgZc == IORING_OP_SENDMSG_ZC);

namespace {

// The release that introduced each opcode, by value: liburing's man pages, checked
// against kernel trees where docs/kernel-facts.md §3 marks them. WAITID's man
// page says 6.5, but its value sorts after READ_MULTISHOT (6.7), so 6.7.
constexpr std::array<std::string_view, 63> kOpSince = {
    "5.1",  "5.1",  "5.1",  "5.1",  "5.1",  "5.1",  "5.1",  "5.1",  "5.2",  "5.3",   // 0-9
    "5.3",  "5.4",  "5.5",  "5.5",  "5.5",  "5.5",  "5.5",  "5.6",  "5.6",  "5.6",   // 10-19
    "5.6",  "5.6",  "5.6",  "5.6",  "5.6",  "5.6",  "5.6",  "5.6",  "5.6",  "5.6",   // 20-29
    "5.7",  "5.7",  "5.7",  "5.8",  "5.11", "5.11", "5.11", "5.15", "5.15", "5.15",  // 30-39
    "5.18", "5.19", "5.19", "5.19", "5.19", "5.19", "5.19", "6.0",  "6.1",  "6.7",   // 40-49
    "6.7",  "6.7",  "6.7",  "6.7",  "6.8",  "6.9",  "6.11", "6.11", "6.15", "6.15",  // 50-59
    "6.15", "6.15", "6.16",                                                          // 60-62
};
static_assert(kOpSince.size() == kOpcodeNames.size());

// IORING_SETUP_* by bit.
constexpr std::array<std::string_view, 21> kSetupFlagNames = {
    "IOPOLL",        "SQPOLL",         "SQ_AFF",       "CQSIZE",      "CLAMP",
    "ATTACH_WQ",     "R_DISABLED",     "SUBMIT_ALL",   "COOP_TASKRUN", "TASKRUN_FLAG",
    "SQE128",        "CQE32",          "SINGLE_ISSUER", "DEFER_TASKRUN", "NO_MMAP",
    "REGISTERED_FD_ONLY", "NO_SQARRAY", "HYBRID_IOPOLL", "CQE_MIXED",   "SQE_MIXED",
    "SQ_REWIND",
};

}  // namespace

std::string opcode_name(uint32_t opcode) {
  if (opcode < kOpcodeNames.size()) return std::string(kOpcodeNames[opcode]);
  if (opcode == kOpcodeOther) return "OTHER";
  return "OP_" + std::to_string(opcode);
}

std::string_view opcode_since(uint32_t opcode) {
  return opcode < kOpSince.size() ? kOpSince[opcode] : std::string_view();
}

int opcode_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kOpcodeNames.size(); ++i) {
    if (iequals(kOpcodeNames[i], name)) return static_cast<int>(i);
  }
  return -1;
}

namespace {

constexpr std::string_view kDataOps[] = {
    "READV", "WRITEV", "READ_FIXED", "WRITE_FIXED", "SENDMSG", "RECVMSG", "READ", "WRITE",
    "SEND", "RECV", "SPLICE", "TEE", "SEND_ZC", "SENDMSG_ZC", "READ_MULTISHOT", "RECV_ZC",
    "READV_FIXED", "WRITEV_FIXED"};

consteval uint64_t data_ops_mask() {
  uint64_t mask = 0;
  for (std::string_view name : kDataOps) mask |= uint64_t{1} << opcode_value(name);
  return mask;
}
static_assert(data_ops_mask() == US_DATA_OPS, "bpf/uringscope.h's US_DATA_OPS is not kDataOps");

}  // namespace

bool opcode_moves_data(uint32_t opcode) { return opcode < 64 && ((US_DATA_OPS >> opcode) & 1); }

bool opcode_is_read(uint32_t opcode) {
  return opcode == op::kReadv || opcode == op::kReadFixed || opcode == op::kRead ||
         opcode == op::kReadMultishot || opcode == op::kReadvFixed;
}

bool opcode_is_write(uint32_t opcode) {
  return opcode == op::kWritev || opcode == op::kWriteFixed || opcode == op::kWrite ||
         opcode == op::kWritevFixed;
}

std::string_view hashed_punt_label(uint32_t opcode, bool iopoll_ring) {
  if (opcode_is_write(opcode)) return "hashed buffered write";
  if (iopoll_ring) return "hashed (serialized per file: IOPOLL ring)";
  return "hashed (serialized per inode)";
}

bool opcode_waits_for_event(uint32_t opcode) {
  switch (opcode) {
    case op::kPollAdd:
    case op::kRecvmsg:
    case op::kTimeout:
    case op::kAccept:
    case op::kLinkTimeout:
    case op::kRecv:
    case op::kReadMultishot:
    case op::kWaitid:
    case op::kFutexWait:
    case op::kFutexWaitv:
    case op::kRecvZc:
    case op::kEpollWait:
      return true;
    default:
      return false;
  }
}

std::vector<std::string> setup_flag_names(uint32_t flags) {
  std::vector<std::string> names;
  for (uint32_t bit = 0; bit < 32; ++bit) {
    if (!(flags & (1u << bit))) continue;
    names.push_back(bit < kSetupFlagNames.size() ? std::string(kSetupFlagNames[bit])
                                                 : "BIT_" + std::to_string(bit));
  }
  return names;
}

}  // namespace uringscope
