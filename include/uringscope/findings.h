// SPDX-License-Identifier: MIT
// Findings: named problems with evidence and a fix, produced from a Snapshot by pure
// rules (src/rules/, one file per finding) whose thresholds all live in thresholds.h.
#pragma once

#include <array>
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

// The finding tags: stable names that the JSON report, baselines, --fail-on and the text
// report's markers rely on, so rules create findings with these and renderers match them.
inline constexpr char kTagNodata[] = "NODATA";
inline constexpr char kTagOverflow[] = "OVERFLOW";
inline constexpr char kTagPunt[] = "PUNT";
inline constexpr char kTagWorkers[] = "WORKERS";
inline constexpr char kTagBatch[] = "BATCH";
inline constexpr char kTagSqpoll[] = "SQPOLL";
inline constexpr char kTagDeferTw[] = "DEFER-TW";
inline constexpr char kTagShortWrite[] = "SHORT-WRITE";
inline constexpr char kTagPollRetry[] = "POLL-RETRY";
inline constexpr char kTagErrors[] = "ERRORS";
inline constexpr char kTagLeak[] = "LEAK";
inline constexpr char kTagTool[] = "TOOL";
inline constexpr char kTagHazard[] = "HAZARD";
inline constexpr char kTagHazardBufreg[] = "HAZARD-BUFREG";
inline constexpr char kTagHazardUaf[] = "HAZARD-UAF";
inline constexpr char kTagReapLag[] = "REAP-LAG";
inline constexpr char kTagSqWait[] = "SQ-WAIT";
inline constexpr std::array<std::string_view, 17> kFindingTags = {
    kTagNodata,  kTagOverflow,   kTagPunt,      kTagWorkers, kTagBatch, kTagSqpoll,
    kTagDeferTw, kTagShortWrite, kTagPollRetry, kTagErrors,  kTagLeak,  kTagTool,
    kTagHazard,  kTagHazardBufreg, kTagHazardUaf, kTagReapLag, kTagSqWait,
};

struct Evidence {
  std::string key;
  std::variant<int64_t, double, std::string> value;

  bool operator==(const Evidence&) const = default;
};

struct Finding {
  std::string tag;                 // one of kFindingTags
  Severity severity = Severity::Info;
  std::optional<uint32_t> ring;    // Ring::id
  std::optional<uint32_t> opcode;
  std::string message;             // the problem, in one or two sentences
  std::string suggestion;          // what to change
  std::vector<Evidence> evidence;  // the numbers behind it
  // Set when one finding stands for the same cause on many rings (the same tag, op and
  // fix: rules/group.cpp): every ring it covers, ascending, how many processes own them,
  // and its worst members in full. Empty for a finding about one ring or the whole run.
  std::vector<uint32_t> rings;
  uint32_t processes = 0;
  std::vector<Finding> worst;

  bool grouped() const { return !rings.empty(); }
  // Whether the finding is about ring `id`: its own ring, or one of its group's.
  bool names_ring(uint32_t id) const;

  bool operator==(const Finding&) const = default;
};

// Every rule over the snapshot, one cause on many rings grouped; order: severity (highest
// first), then ring, then tag.
std::vector<Finding> evaluate(const Snapshot& snapshot);

}  // namespace uringscope
