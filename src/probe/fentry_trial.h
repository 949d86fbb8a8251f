// SPDX-License-Identifier: MIT
#pragma once

#include <string>

struct btf;

namespace uringscope {

// Whether this kernel accepts a BPF trampoline (fentry) on a function. BTF can say the
// function exists; only the kernel can say it will load a tracing program for it (no
// trampolines without ftrace direct calls, and some sandboxes refuse them outright).
enum class FentryTrial {
  Untried,  // no privileges to try (--version as a user), or no such function
  Loads,
  Refused,
};

struct FentryTrialResult {
  FentryTrial state = FentryTrial::Untried;
  std::string reason;  // strerror of the refusal
};

// Loads a two-instruction fentry program on `function` and closes it at once (an
// unattached program's id is gone as soon as its fd is closed). Loading, not attaching:
// the tracer still falls back to the tracepoint if the real attach fails.
FentryTrialResult try_fentry(const btf* vmlinux, const char* function);

}  // namespace uringscope
