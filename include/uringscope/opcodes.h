// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// The slot where the BPF side counts opcodes beyond its table (US_OP_OTHER), and the
// catch-all row once the per-op table is full.
inline constexpr uint32_t kOpcodeOther = 79;

// IORING_OP_* name without the prefix ("READ"), from the built-in table (UAPI values
// never change); "OTHER" for kOpcodeOther, "OP_<n>" for opcodes the table does not know.
std::string opcode_name(uint32_t opcode);
// Inverse of opcode_name, case-insensitive; -1 when unknown.
int opcode_from_name(std::string_view name);
// Number of opcodes the built-in table knows (IORING_OP_NOP .. IORING_OP_PIPE, 6.18).
inline constexpr uint32_t kBuiltinOpcodes = 63;

// The kernel release that introduced the opcode ("5.6"), from the built-in table
// (kernel-io_uring-reference.md §3); empty for opcodes the table does not know. For
// --list-ops only: which ops a kernel has is read from its BTF, never from a version.
std::string_view opcode_since(uint32_t opcode);

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
