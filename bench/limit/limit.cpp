// SPDX-License-Identifier: MIT
// bench/'s limit tracer: attaches limit.bpf.c's empty programs on exactly the hooks a real
// uringscope run attached (the names `uringscope -v` lists after "programs:"), says
// "limit: attached" on stderr (bench/run.sh waits for it), and runs until the target
// exits or SIGINT/SIGTERM. It holds nothing else (no maps read, no timers), so what it
// costs the workload is the programs' being run, the floor under any design on those
// hooks.
#include <bpf/libbpf.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "limit_bpf.skel.h"
#include "os/libbpf_handles.h"
#include "os/process.h"
#include "os/system.h"
#include "util/unique_fd.h"

namespace {

struct SkeletonDestroy {
  void operator()(limit_bpf* skeleton) const { limit_bpf__destroy(skeleton); }
};

struct Options {
  std::vector<std::string> programs;
  bool timed = false;
  int pid = 0;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "limit: %s\nusage: limit --programs NAME,NAME... [--timed] [-p PID]\n"
               "  --programs  the hooks to take: the names `uringscope -v` lists after \"programs:\"\n"
               "  --timed     the submit and CQE programs read the clock once before returning\n"
               "  -p PID      end when that process exits (otherwise at SIGINT or SIGTERM)\n",
               why);
  std::exit(2);
}

std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (!name.empty()) names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--timed") {
      options.timed = true;
    } else if ((arg == "--programs" || arg == "-p") && i + 1 < argc) {
      const char* value = argv[++i];
      if (arg == "--programs") {
        options.programs = split_names(value);
      } else {
        char* end = nullptr;
        const long pid = std::strtol(value, &end, 10);
        if (*end != '\0' || pid <= 0) usage("-p needs a process id");
        options.pid = static_cast<int>(pid);
      }
    } else {
      usage(("unknown or incomplete argument " + std::string(arg)).c_str());
    }
  }
  if (options.programs.empty()) usage("--programs is required");
  return options;
}

int print_warnings(enum libbpf_print_level level, const char* format, va_list args) {
  return level == LIBBPF_WARN ? std::vfprintf(stderr, format, args) : 0;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "limit: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  libbpf_set_print(print_warnings);

  // Blocked before attaching, so a signal sent right after "attached" is not lost.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, nullptr);

  std::unique_ptr<limit_bpf, SkeletonDestroy> skeleton(limit_bpf__open());
  if (!skeleton) return fail(std::string("cannot open the limit's BPF object: ") + std::strerror(errno));
  skeleton->rodata->timed = options.timed;
  std::vector<bpf_program*> wanted;
  for (const std::string& name : options.programs) {
    bpf_program* program = bpf_object__find_program_by_name(skeleton->obj, name.c_str());
    // A name the real run attached and this object lacks: bench/limit is out of step
    // with bpf/ (limit_in_step says which).
    if (!program) return fail("no program " + name + " in bench/limit/limit.bpf.c");
    wanted.push_back(program);
  }
  bpf_program* program;
  bpf_object__for_each_program(program, skeleton->obj) bpf_program__set_autoload(program, false);
  for (bpf_program* each : wanted) bpf_program__set_autoload(each, true);
  if (const int err = limit_bpf__load(skeleton.get())) {
    return fail(std::string("cannot load the limit's programs: ") + std::strerror(-err));
  }
  // The syscall tracepoints attach through tracefs, mounted for the run where it is not
  // (as uringscope does).
  const uringscope::TracefsMount tracefs;
  std::vector<uringscope::LinkPtr> links;
  for (bpf_program* each : wanted) {
    uringscope::LinkPtr link(bpf_program__attach(each));
    if (!link) {
      return fail(std::string("cannot attach ") + bpf_program__name(each) + ": " + std::strerror(errno));
    }
    links.push_back(std::move(link));
  }
  std::fprintf(stderr, "limit: attached %zu programs%s\n", links.size(), options.timed ? " (timed)" : "");

  const uringscope::UniqueFd signals(signalfd(-1, &stop, SFD_CLOEXEC));
  if (!signals) return fail(std::string("signalfd: ") + std::strerror(errno));
  uringscope::UniqueFd target;
  if (options.pid) {
    target = uringscope::pidfd_open(options.pid);
    if (!target) return fail("no process " + std::to_string(options.pid));
  }
  pollfd waits[2] = {{signals.get(), POLLIN, 0}, {target ? target.get() : -1, POLLIN, 0}};
  while (poll(waits, target ? 2 : 1, -1) < 0 && errno == EINTR) {
  }
  return 0;
}
