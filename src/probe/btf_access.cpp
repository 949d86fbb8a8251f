// SPDX-License-Identifier: MIT
#include "probe/btf_access.h"

namespace uringscope {
namespace {

// Typedef chains in real BTF are a few links long; the cap only guards against a
// corrupt (cyclic) chain turning the probe into an endless loop.
constexpr int kMaxAliasDepth = 32;

}  // namespace

const btf_type* skip_aliases(const btf* vmlinux, __u32 id) {
  for (int depth = 0; depth < kMaxAliasDepth; ++depth) {
    const btf_type* type = btf__type_by_id(vmlinux, id);
    if (type == nullptr) return nullptr;
    if (!btf_is_typedef(type) && !btf_is_mod(type)) return type;
    id = type->type;
  }
  return nullptr;
}

Prototype find_typedef_proto(const btf* vmlinux, const std::string& name) {
  const int id = btf__find_by_name_kind(vmlinux, name.c_str(), BTF_KIND_TYPEDEF);
  if (id <= 0) return {};
  const btf_type* tdef = btf__type_by_id(vmlinux, static_cast<__u32>(id));
  const btf_type* ptr = tdef ? skip_aliases(vmlinux, tdef->type) : nullptr;
  if (ptr == nullptr || !btf_is_ptr(ptr)) return {Prototype::Status::Malformed};
  const btf_type* proto = skip_aliases(vmlinux, ptr->type);
  // Every tracepoint prototype starts with the void * of the probe data; without it the
  // argument numbering would be off by one.
  if (proto == nullptr || !btf_is_func_proto(proto) || btf_vlen(proto) == 0)
    return {Prototype::Status::Malformed};
  return {Prototype::Status::Found, proto, btf_vlen(proto) - 1};
}

Prototype find_tracepoint(const btf* vmlinux, std::string_view event) {
  return find_typedef_proto(vmlinux, "btf_trace_io_uring_" + std::string(event));
}

unsigned int_arg_size(const btf* vmlinux, const Prototype& tp, int index) {
  if (index < 0 || index >= tp.args) return 0;
  const btf_param& param = btf_params(tp.proto)[index + 1];
  const btf_type* type = skip_aliases(vmlinux, param.type);
  return type != nullptr && btf_is_int(type) ? type->size : 0;
}

namespace {

const btf_type* function_proto(const btf* vmlinux, const char* function) {
  const int id = btf__find_by_name_kind(vmlinux, function, BTF_KIND_FUNC);
  if (id <= 0) return nullptr;
  const btf_type* func = btf__type_by_id(vmlinux, static_cast<__u32>(id));
  const btf_type* proto = func ? btf__type_by_id(vmlinux, func->type) : nullptr;
  return proto != nullptr && btf_is_func_proto(proto) ? proto : nullptr;
}

bool param_points_to_struct(const btf* vmlinux, const btf_type* proto, int index,
                            std::string_view name) {
  if (index < 0 || index >= btf_vlen(proto)) return false;
  const btf_type* ptr = skip_aliases(vmlinux, btf_params(proto)[index].type);
  if (ptr == nullptr || !btf_is_ptr(ptr)) return false;
  const btf_type* target = skip_aliases(vmlinux, ptr->type);
  if (target == nullptr || !btf_is_struct(target)) return false;
  const char* target_name = btf__name_by_offset(vmlinux, target->name_off);
  return target_name != nullptr && name == target_name;
}

}  // namespace

bool arg_points_to_struct(const btf* vmlinux, const Prototype& tp, int index,
                          std::string_view name) {
  // Parameter 0 of a tracepoint prototype is the probe data's void *.
  return index >= 0 && index < tp.args && param_points_to_struct(vmlinux, tp.proto, index + 1, name);
}

bool takes_only_pt_regs(const btf* vmlinux, const char* function) {
  const btf_type* proto = function_proto(vmlinux, function);
  return proto != nullptr && btf_vlen(proto) == 1 &&
         param_points_to_struct(vmlinux, proto, 0, "pt_regs");
}

bool first_param_points_to(const btf* vmlinux, const char* function, std::string_view name) {
  const btf_type* proto = function_proto(vmlinux, function);
  return proto != nullptr && param_points_to_struct(vmlinux, proto, 0, name);
}

bool struct_has_member(const btf* vmlinux, const char* name, std::string_view member) {
  const int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_STRUCT);
  if (id <= 0) return false;
  const btf_type* type = btf__type_by_id(vmlinux, id);
  const btf_member* m = btf_members(type);
  for (__u16 i = 0; i < btf_vlen(type); ++i, ++m) {
    const char* member_name = btf__name_by_offset(vmlinux, m->name_off);
    if (member_name && member == member_name) return true;
  }
  return false;
}

namespace {

struct RawEnumerator {
  __u32 name_off;
  int64_t value;
};

RawEnumerator enumerator_at(const btf_type* type, __u16 index) {
  if (btf_is_enum(type)) {
    const struct btf_enum& e = btf_enum(type)[index];
    return {e.name_off, e.val};
  }
  // struct btf_enum64 may be missing from older UAPI headers; libbpf itself reads it
  // as three u32s (name_off, lo32, hi32), and so do we.
  const auto* e64 = reinterpret_cast<const __u32*>(btf_enum64(type)) + 3 * index;
  return {e64[0], static_cast<int64_t>((static_cast<uint64_t>(e64[2]) << 32) | e64[1])};
}

}  // namespace

std::vector<EnumConstant> enum_constants(const btf* vmlinux, const btf_type* type) {
  std::vector<EnumConstant> constants;
  if (type == nullptr || !btf_is_any_enum(type)) return constants;
  for (__u16 i = 0; i < btf_vlen(type); ++i) {
    const RawEnumerator e = enumerator_at(type, i);
    const char* name = btf__name_by_offset(vmlinux, e.name_off);
    constants.push_back({name ? name : "", e.value});
  }
  return constants;
}

const btf_type* find_enum(const btf* vmlinux, const char* name) {
  // The values of most enums fit 32 bits, but a compiler may still emit ENUM64.
  int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_ENUM);
  if (id < 0) id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_ENUM64);
  return id < 0 ? nullptr : btf__type_by_id(vmlinux, static_cast<__u32>(id));
}

}  // namespace uringscope
