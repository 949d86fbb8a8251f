// SPDX-License-Identifier: MIT
// The command line's words before CLI11 sees them: where uringscope's options end and the
// command begins, and the -p list.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace uringscope {

struct Normalised {
  std::vector<std::string> args;
  bool command_after_dashes = false;  // the user wrote "--" before the command
};

// The spellings ("-p", "--pid", ...) of the options that take their value as the next
// word, read from the parser's own definitions (options.cpp), so that the scan below
// never mistakes a value for the start of the command.
using ValueOptions = std::set<std::string, std::less<>>;

// `--json FILE` rewritten to `--json=FILE` when FILE ends in ".json" (or is "-"), else
// `--json=-`, so that `uringscope --json ./myapp` runs ./myapp; only uringscope's own
// options are rewritten, never the command's.
Normalised normalise_json_flag(std::vector<std::string> args, const ValueOptions& value_options);

// "12,34" -> {12, 34}; throws UsageError naming the first item that is not a pid.
std::vector<int> parse_pid_list(const std::string& text);

}  // namespace uringscope
