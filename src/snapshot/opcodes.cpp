// SPDX-License-Identifier: MIT
#include "uringscope/opcodes.h"
#include "util/strings.h"

#include <array>
#include <cctype>

namespace uringscope {
namespace {

// enum io_uring_op: UAPI values, never renumbered (6.18 has 0..62).
constexpr std::array<std::string_view, 63> kOpNames = {
    "NOP",          "READV",          "WRITEV",        "FSYNC",           "READ_FIXED",
    "WRITE_FIXED",  "POLL_ADD",       "POLL_REMOVE",   "SYNC_FILE_RANGE", "SENDMSG",
    "RECVMSG",      "TIMEOUT",        "TIMEOUT_REMOVE", "ACCEPT",         "ASYNC_CANCEL",
    "LINK_TIMEOUT", "CONNECT",        "FALLOCATE",     "OPENAT",          "CLOSE",
    "FILES_UPDATE", "STATX",          "READ",          "WRITE",           "FADVISE",
    "MADVISE",      "SEND",           "RECV",          "OPENAT2",         "EPOLL_CTL",
    "SPLICE",       "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",           "SHUTDOWN",
    "RENAMEAT",     "UNLINKAT",       "MKDIRAT",       "SYMLINKAT",       "LINKAT",
    "MSG_RING",     "FSETXATTR",      "SETXATTR",      "FGETXATTR",       "GETXATTR",
    "SOCKET",       "URING_CMD",      "SEND_ZC",       "SENDMSG_ZC",      "READ_MULTISHOT",
    "WAITID",       "FUTEX_WAIT",     "FUTEX_WAKE",    "FUTEX_WAITV",     "FIXED_FD_INSTALL",
    "FTRUNCATE",    "BIND",           "LISTEN",        "RECV_ZC",         "EPOLL_WAIT",
    "READV_FIXED",  "WRITEV_FIXED",   "PIPE",
};

// The release that introduced each opcode, by value: liburing's man pages, checked
// against kernel trees where kernel-io_uring-reference.md §3 marks them. WAITID's man
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
static_assert(kOpSince.size() == kOpNames.size());
static_assert(kOpNames.size() == kBuiltinOpcodes);

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
  if (opcode < kOpNames.size()) return std::string(kOpNames[opcode]);
  if (opcode == kOpcodeOther) return "OTHER";
  return "OP_" + std::to_string(opcode);
}

std::string_view opcode_since(uint32_t opcode) {
  return opcode < kOpSince.size() ? kOpSince[opcode] : std::string_view();
}

int opcode_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (iequals(kOpNames[i], name)) return static_cast<int>(i);
  }
  return -1;
}

bool opcode_is_read(uint32_t opcode) {
  // READV, READ_FIXED, READ, READ_MULTISHOT, READV_FIXED
  return opcode == 1 || opcode == 4 || opcode == 22 || opcode == 49 || opcode == 60;
}

bool opcode_is_write(uint32_t opcode) {
  // WRITEV, WRITE_FIXED, WRITE, WRITEV_FIXED
  return opcode == 2 || opcode == 5 || opcode == 23 || opcode == 61;
}

std::string_view hashed_punt_label(uint32_t opcode, bool iopoll_ring) {
  if (opcode_is_write(opcode)) return "hashed buffered write";
  if (iopoll_ring) return "hashed (serialized per file: IOPOLL ring)";
  return "hashed (serialized per inode)";
}

bool opcode_waits_for_event(uint32_t opcode) {
  switch (opcode) {
    case 6:   // POLL_ADD
    case 10:  // RECVMSG
    case 11:  // TIMEOUT
    case 13:  // ACCEPT
    case 15:  // LINK_TIMEOUT
    case 27:  // RECV
    case 49:  // READ_MULTISHOT
    case 50:  // WAITID
    case 51:  // FUTEX_WAIT
    case 53:  // FUTEX_WAITV
    case 58:  // RECV_ZC
    case 59:  // EPOLL_WAIT
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
