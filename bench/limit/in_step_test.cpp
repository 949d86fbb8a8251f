// SPDX-License-Identifier: MIT
// limit_in_step: bench/limit/limit.bpf.c has one program per program of uringscope's BPF
// object, by name and section (so on the same hook), and none of its own. Otherwise the
// limit would leave out a hook a real run pays for, or time one it never attaches.
// Opening an object reads its ELF and needs no privileges.
#include <bpf/libbpf.h>

#include <cstdio>
#include <map>
#include <string>

#include "limit_bpf.skel.h"
#include "uringscope_bpf.skel.h"

namespace {

using Programs = std::map<std::string, std::string>;  // name -> section

Programs programs_of(bpf_object* object) {
  Programs programs;
  bpf_program* program;
  bpf_object__for_each_program(program, object) {
    programs.emplace(bpf_program__name(program), bpf_program__section_name(program));
  }
  return programs;
}

}  // namespace

int main() {
  uringscope_bpf* shipped = uringscope_bpf__open();
  limit_bpf* limit = limit_bpf__open();
  if (!shipped || !limit) {
    std::fprintf(stderr, "limit_in_step: cannot open the BPF objects\n");
    return 1;
  }
  const Programs real = programs_of(shipped->obj);
  const Programs twins = programs_of(limit->obj);
  uringscope_bpf__destroy(shipped);
  limit_bpf__destroy(limit);

  int mismatches = 0;
  for (const auto& [name, section] : real) {
    const auto twin = twins.find(name);
    if (twin == twins.end()) {
      std::printf("bpf/ has %s (%s); bench/limit/limit.bpf.c has no twin\n", name.c_str(), section.c_str());
      ++mismatches;
    } else if (twin->second != section) {
      std::printf("%s is on %s in bpf/ but on %s in bench/limit/limit.bpf.c\n", name.c_str(),
                  section.c_str(), twin->second.c_str());
      ++mismatches;
    }
  }
  for (const auto& [name, section] : twins) {
    if (!real.count(name)) {
      std::printf("bench/limit/limit.bpf.c has %s (%s), which bpf/ no longer has\n", name.c_str(),
                  section.c_str());
      ++mismatches;
    }
  }
  std::printf("limit_in_step: %zu programs in bpf/, %zu in the limit, %d mismatches\n", real.size(),
              twins.size(), mismatches);
  return mismatches ? 1 : 0;
}
