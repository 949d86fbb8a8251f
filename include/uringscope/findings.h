// SPDX-License-Identifier: MIT
// Findings: named problems with evidence and a fix, produced from a Snapshot by pure
// rules (src/rules/, one file per finding) whose thresholds all live in thresholds.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

enum class Severity { Info = 0, Warn = 1, Crit = 2 };

std::string_view severity_name(Severity s);  // "INFO" | "WARN" | "CRIT"

struct Evidence {
  std::string key;
  std::variant<int64_t, double, std::string> value;
};

struct Finding {
  std::string tag;                 // stable: PUNT, BATCH, TOOL, NODATA, ...
  Severity severity = Severity::Info;
  std::optional<uint32_t> ring;    // Ring::id
  std::optional<uint32_t> opcode;
  std::string message;             // the problem, in one or two sentences
  std::string suggestion;          // what to change
  std::vector<Evidence> evidence;  // the numbers behind it
};

// Every rule over the snapshot; order: severity (highest first), then ring, then tag.
std::vector<Finding> evaluate(const Snapshot& snapshot);

}  // namespace uringscope
