// SPDX-License-Identifier: MIT
// The boundary's exact source: uprobes on a shared liburing's exported calls
// (bpf/liburing.bpf.c), attached at run time to each library file a target can map.
// Best effort by design: a library that is missing, stripped or older than a call, or a
// uprobe the kernel refuses, leaves those calls out and says so; the run goes on with
// the rings' indices.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "os/libbpf_handles.h"
#include "uringscope/liburing_uprobes.h"

struct uringscope_bpf;
struct bpf_program;

namespace uringscope {

// The uprobe programs: loaded with the boundary on, attached here rather than by name.
bool is_liburing_program(std::string_view name);

class LiburingProbes {
 public:
  // Attaches entry and return probes on every library's calls; never throws for a
  // library or a call that does not attach.
  LiburingProbes(const uringscope_bpf& skel, const std::vector<std::string>& libraries);
  const LiburingUprobes& status() const { return status_; }
  void detach() { links_.clear(); }

 private:
  // Both probes of `function` in `library`; false (and nothing left attached) when
  // either fails.
  bool attach_call(const std::string& library, const char* function, bpf_program* entry,
                   bpf_program* ret, std::string& error);

  std::vector<LinkPtr> links_;
  LiburingUprobes status_;
};

}  // namespace uringscope
