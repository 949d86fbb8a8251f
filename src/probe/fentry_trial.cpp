// SPDX-License-Identifier: MIT
#include "probe/fentry_trial.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

#include <cerrno>
#include <cstring>

#include "os/system.h"
#include "util/unique_fd.h"

namespace uringscope {

FentryTrialResult try_fentry(const btf* vmlinux, const char* function) {
  if (vmlinux == nullptr || !has_bpf_privileges()) return {};
  const int id = btf__find_by_name_kind(vmlinux, function, BTF_KIND_FUNC);
  if (id <= 0) return {};
  // r0 = 0; exit
  const bpf_insn insns[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .src_reg = 0, .off = 0, .imm = 0},
      {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
  };
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY,
              .attach_btf_id = static_cast<__u32>(id));
  UniqueFd prog(bpf_prog_load(BPF_PROG_TYPE_TRACING, "usc_fentry_try", "GPL", insns,
                              sizeof insns / sizeof insns[0], &opts));
  if (!prog) return {FentryTrial::Refused, std::strerror(errno)};
  return {FentryTrial::Loads, {}};
}

}  // namespace uringscope
