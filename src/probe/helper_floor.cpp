// SPDX-License-Identifier: MIT
// The BPF helpers the spine's programs call. Tracepoints alone do not make a kernel
// usable: Debian's 5.10 carries io_uring's 5.15 tracepoints (backported) but not these
// helpers, and the verifier refuses a program that calls a helper the kernel lacks.
#include <string>
#include <string_view>
#include <vector>

#include "probe/choosers.h"

namespace uringscope {
namespace {

// One entry per helper family a spine program calls, with the release that added it
// (bpf/compat.bpf.h: the current task as BTF; bpf/boundary_timer.bpf.h: the boundary's
// per-ring timer, armed from the complete programs).
struct HelperFamily {
  std::vector<std::string_view> enumerators;  // in enum bpf_func_id
  std::string_view shown;
};
const HelperFamily kTaskBtf{{"BPF_FUNC_get_current_task_btf"}, "bpf_get_current_task_btf() (5.11+)"};
const HelperFamily kTimer{{"BPF_FUNC_timer_init", "BPF_FUNC_timer_set_callback", "BPF_FUNC_timer_start"},
                          "bpf_timer_*() (5.15+)"};

bool enum_has(const btf* vmlinux, const btf_type* type, std::string_view name) {
  const struct btf_enum* values = btf_enum(type);
  for (int i = 0; i < btf_vlen(type); ++i) {
    const char* value = btf__name_by_offset(vmlinux, values[i].name_off);
    if (value != nullptr && name == value) return true;
  }
  return false;
}

// "A, B" for the families the kernel lacks; empty when it has them all, or when its BTF
// has no enum bpf_func_id to tell (then the verifier has the last word).
std::string missing_helpers(const btf* vmlinux, const std::vector<const HelperFamily*>& families) {
  const int id = btf__find_by_name_kind(vmlinux, "bpf_func_id", BTF_KIND_ENUM);
  const btf_type* type = id > 0 ? btf__type_by_id(vmlinux, static_cast<__u32>(id)) : nullptr;
  if (type == nullptr || !btf_is_enum(type)) return {};
  std::string missing;
  for (const HelperFamily* family : families) {
    for (std::string_view enumerator : family->enumerators) {
      if (enum_has(vmlinux, type, enumerator)) continue;
      missing += (missing.empty() ? "" : ", ") + std::string(family->shown);
      break;
    }
  }
  return missing;
}

template <typename Shape>
void require(const btf* vmlinux, Choice<Shape>& choice, FeatureId feature,
             const std::vector<const HelperFamily*>& families) {
  if (choice.program.empty()) return;
  const std::string missing = missing_helpers(vmlinux, families);
  if (missing.empty()) return;
  choice.detail = join(std::string(choice.program) + " calls BPF helpers this kernel lacks: " + missing,
                       loss_of(feature), "; ");
  choice.program = {};
}

}  // namespace

void require_spine_helpers(const btf* vmlinux, Choice<SubmitShape>& submit,
                           Choice<CompleteShape>& complete) {
  require(vmlinux, submit, FeatureId::Submit, {&kTaskBtf});
  require(vmlinux, complete, FeatureId::Complete, {&kTaskBtf, &kTimer});
}

}  // namespace uringscope
