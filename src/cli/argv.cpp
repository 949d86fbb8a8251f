// SPDX-License-Identifier: MIT
#include "cli/argv.h"

#include <charconv>

#include <fmt/format.h>

#include "util/error.h"

namespace uringscope {

std::vector<int> parse_pid_list(const std::string& text) {
  std::vector<int> pids;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                      : comma - start);
    int pid = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), pid);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || pid <= 0) {
      throw UsageError(fmt::format("-p: '{}' is not a process id", item));
    }
    pids.push_back(pid);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return pids;
}

// `--json` takes an optional file. Written `--json=FILE` it is unambiguous; written
// `--json FILE`, the next word is taken as the file only when it ends in ".json" (or is
// "-"), so that `uringscope --json ./myapp` runs ./myapp and prints JSON to stdout.
// Only uringscope's own options are rewritten, never the command's.
Normalised normalise_json_flag(std::vector<std::string> args, const ValueOptions& value_options) {
  Normalised out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.command_after_dashes = true;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;  // the command starts here
    if (arg != "--json" && value_options.contains(arg)) {
      ++i;
      continue;
    }
    if (arg != "--json") continue;
    const std::string next = i + 1 < args.size() ? args[i + 1] : "";
    const bool next_is_file =
        next == "-" || (next.size() > 5 && next.compare(next.size() - 5, 5, ".json") == 0);
    if (next_is_file) {
      args[i] = "--json=" + next;
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    } else {
      args[i] = "--json=-";
    }
  }
  out.args = std::move(args);
  return out;
}

}  // namespace uringscope
