// SPDX-License-Identifier: MIT
// Owning handles for every libbpf object uringscope holds. Each is freed by its own
// libbpf function when its owner goes, on every way out (errors and exceptions
// included): links detach their programs, and nothing stays attached after exit.
#pragma once

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <memory>

struct uringscope_bpf;

namespace uringscope {

template <auto Free>
struct LibbpfFree {
  template <class Object>
  void operator()(Object* object) const {
    Free(object);
  }
};

using BtfPtr = std::unique_ptr<btf, LibbpfFree<btf__free>>;
using LinkPtr = std::unique_ptr<bpf_link, LibbpfFree<bpf_link__destroy>>;
using RingBufferPtr = std::unique_ptr<ring_buffer, LibbpfFree<ring_buffer__free>>;

// bpftool's skeleton frees itself with a static inline function of its generated header,
// which is large (it embeds the BPF object): the one file that includes it defines this.
struct SkeletonFree {
  void operator()(uringscope_bpf* skeleton) const;
};
using SkeletonPtr = std::unique_ptr<uringscope_bpf, SkeletonFree>;

}  // namespace uringscope
