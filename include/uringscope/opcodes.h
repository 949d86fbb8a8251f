// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// enum io_uring_op: UAPI values, never renumbered (6.18 has 0..62); the index is the
// opcode, the name is IORING_OP_* without the prefix.
inline constexpr std::array<std::string_view, 63> kOpcodeNames = {
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

// Number of opcodes the built-in table knows (IORING_OP_NOP .. IORING_OP_PIPE, 6.18).
inline constexpr uint32_t kBuiltinOpcodes = kOpcodeNames.size();

// The value of an opcode named in kOpcodeNames, at compile time: a name the table does
// not have is not a constant expression, so it does not compile.
consteval uint32_t opcode_value(std::string_view name) {
  for (uint32_t i = 0; i < kOpcodeNames.size(); ++i)
    if (kOpcodeNames[i] == name) return i;
  throw "opcode_value: not in kOpcodeNames";
}

// The opcodes the code singles out, by name (op::kFsync is IORING_OP_FSYNC). In a
// namespace of their own, so that they never clash with a file's local constants.
namespace op {
inline constexpr uint32_t kNop = opcode_value("NOP");
inline constexpr uint32_t kReadv = opcode_value("READV");
inline constexpr uint32_t kWritev = opcode_value("WRITEV");
inline constexpr uint32_t kFsync = opcode_value("FSYNC");
inline constexpr uint32_t kReadFixed = opcode_value("READ_FIXED");
inline constexpr uint32_t kWriteFixed = opcode_value("WRITE_FIXED");
inline constexpr uint32_t kPollAdd = opcode_value("POLL_ADD");
inline constexpr uint32_t kPollRemove = opcode_value("POLL_REMOVE");
inline constexpr uint32_t kSyncFileRange = opcode_value("SYNC_FILE_RANGE");
inline constexpr uint32_t kSendmsg = opcode_value("SENDMSG");
inline constexpr uint32_t kRecvmsg = opcode_value("RECVMSG");
inline constexpr uint32_t kTimeout = opcode_value("TIMEOUT");
inline constexpr uint32_t kTimeoutRemove = opcode_value("TIMEOUT_REMOVE");
inline constexpr uint32_t kAccept = opcode_value("ACCEPT");
inline constexpr uint32_t kAsyncCancel = opcode_value("ASYNC_CANCEL");
inline constexpr uint32_t kLinkTimeout = opcode_value("LINK_TIMEOUT");
inline constexpr uint32_t kFallocate = opcode_value("FALLOCATE");
inline constexpr uint32_t kOpenat = opcode_value("OPENAT");
inline constexpr uint32_t kStatx = opcode_value("STATX");
inline constexpr uint32_t kRead = opcode_value("READ");
inline constexpr uint32_t kWrite = opcode_value("WRITE");
inline constexpr uint32_t kMadvise = opcode_value("MADVISE");
inline constexpr uint32_t kSend = opcode_value("SEND");
inline constexpr uint32_t kRecv = opcode_value("RECV");
inline constexpr uint32_t kOpenat2 = opcode_value("OPENAT2");
inline constexpr uint32_t kSplice = opcode_value("SPLICE");
inline constexpr uint32_t kTee = opcode_value("TEE");
inline constexpr uint32_t kRenameat = opcode_value("RENAMEAT");
inline constexpr uint32_t kUnlinkat = opcode_value("UNLINKAT");
inline constexpr uint32_t kMkdirat = opcode_value("MKDIRAT");
inline constexpr uint32_t kSymlinkat = opcode_value("SYMLINKAT");
inline constexpr uint32_t kLinkat = opcode_value("LINKAT");
inline constexpr uint32_t kFsetxattr = opcode_value("FSETXATTR");
inline constexpr uint32_t kSetxattr = opcode_value("SETXATTR");
inline constexpr uint32_t kFgetxattr = opcode_value("FGETXATTR");
inline constexpr uint32_t kGetxattr = opcode_value("GETXATTR");
inline constexpr uint32_t kSendZc = opcode_value("SEND_ZC");
inline constexpr uint32_t kSendmsgZc = opcode_value("SENDMSG_ZC");
inline constexpr uint32_t kReadMultishot = opcode_value("READ_MULTISHOT");
inline constexpr uint32_t kWaitid = opcode_value("WAITID");
inline constexpr uint32_t kFutexWait = opcode_value("FUTEX_WAIT");
inline constexpr uint32_t kFutexWaitv = opcode_value("FUTEX_WAITV");
inline constexpr uint32_t kFtruncate = opcode_value("FTRUNCATE");
inline constexpr uint32_t kRecvZc = opcode_value("RECV_ZC");
inline constexpr uint32_t kEpollWait = opcode_value("EPOLL_WAIT");
inline constexpr uint32_t kReadvFixed = opcode_value("READV_FIXED");
inline constexpr uint32_t kWritevFixed = opcode_value("WRITEV_FIXED");
}  // namespace op

// The slot where the BPF side counts opcodes beyond its table (US_OP_OTHER), and the
// catch-all row once the per-op table is full.
inline constexpr uint32_t kOpcodeOther = 79;

// IORING_OP_* name without the prefix ("READ"), from kOpcodeNames (UAPI values
// never change); "OTHER" for kOpcodeOther, "OP_<n>" for opcodes the table does not know.
std::string opcode_name(uint32_t opcode);
// Inverse of opcode_name, case-insensitive; -1 when unknown.
int opcode_from_name(std::string_view name);

// The kernel release that introduced the opcode ("5.6"), from the built-in table
// (docs/kernel-facts.md §3); empty for opcodes the table does not know. For
// --list-ops only: which ops a kernel has is read from its BTF, never from a version.
std::string_view opcode_since(uint32_t opcode);

// Ops whose positive result is the bytes they moved (reads, writes, sends, receives,
// their vectored, fixed, zero-copy and multishot forms, splice and tee): the BPF side
// adds those results up (US_DATA_OPS).
bool opcode_moves_data(uint32_t opcode);

// Opcodes that read or write a file's data (for punt-reason advice).
bool opcode_is_read(uint32_t opcode);
bool opcode_is_write(uint32_t opcode);
// What a hashed punt of `opcode` means. io-wq hashes writes to a regular file by
// themselves (serialized per inode); on an IOPOLL ring it hashes every regular-file
// request, reads included; other ops hash only where their definition says so.
std::string_view hashed_punt_label(uint32_t opcode, bool iopoll_ring);

// Ops that wait for an event by design (a timeout, a futex, a child, readiness), so
// that being in flight for long is not in itself a sign of a stuck request.
bool opcode_waits_for_event(uint32_t opcode);

// IORING_SETUP_* names set in flags, lowest bit first ("SQPOLL", "CQSIZE", ...).
std::vector<std::string> setup_flag_names(uint32_t flags);

inline constexpr uint32_t kSetupIopoll = 1u << 0;
inline constexpr uint32_t kSetupSqpoll = 1u << 1;
inline constexpr uint32_t kSetupDeferTaskrun = 1u << 13;

}  // namespace uringscope
