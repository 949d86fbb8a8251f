// SPDX-License-Identifier: MIT
// The BTF primitives the probe reads kernels with: a tracepoint's prototype from its
// btf_trace_<tp> typedef, the width and type of its arguments, and the fentry target's
// prototype. Nothing here knows what a feature is.
#pragma once

#include <bpf/btf.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringscope {

// The type behind typedefs and const/volatile/restrict/type-tag wrappers: that is what
// decides an argument's width, not the spelling (u8, __u8, unsigned char). Null for a
// broken or cyclic chain.
const btf_type* skip_aliases(const btf* vmlinux, __u32 id);

struct Prototype {
  enum class Status { Absent, Malformed, Found };
  Status status = Status::Absent;
  const btf_type* proto = nullptr;
  int args = 0;  // parameters after the leading void *, i.e. what tp_btf sees as ctx[]
};

// The prototype behind the typedef `name` (e.g. "btf_trace_sched_switch").
Prototype find_typedef_proto(const btf* vmlinux, const std::string& name);
// The prototype of the io_uring tracepoint `event` ("submit_req" for io_uring_submit_req).
Prototype find_tracepoint(const btf* vmlinux, std::string_view event);

// Byte size of tracepoint argument `index` (0-based, after the void *) when it is an
// integer; 0 when it is anything else.
unsigned int_arg_size(const btf* vmlinux, const Prototype& tp, int index);
// Whether tracepoint argument `index` is a pointer to the struct `name`.
bool arg_points_to_struct(const btf* vmlinux, const Prototype& tp, int index,
                          std::string_view name);
// Whether the BTF FUNC `function` exists and takes exactly one `struct pt_regs *`.
bool takes_only_pt_regs(const btf* vmlinux, const char* function);
// Whether the BTF FUNC `function` exists and its first parameter points to the struct `name`.
bool first_param_points_to(const btf* vmlinux, const char* function, std::string_view name);
// Whether the struct `name` has a member `member` (at its top level).
bool struct_has_member(const btf* vmlinux, const char* name, std::string_view member);

// One enumerator; the name points into the BTF's strings.
struct EnumConstant {
  std::string_view name;
  int64_t value = 0;
};
// The enumerators of an ENUM or ENUM64 type, empty for any other kind. The one reader of
// enums: the REQ_F_* bits (req_bits.cpp) and the opcode list (kernel_opcodes.cpp).
std::vector<EnumConstant> enum_constants(const btf* vmlinux, const btf_type* type);
// The enum called `name`, as ENUM or as ENUM64; null when the kernel has none.
const btf_type* find_enum(const btf* vmlinux, const char* name);

}  // namespace uringscope
