// SPDX-License-Identifier: MIT
// Every number a finding rule compares against, in one table with its unit and the
// reasoning behind it. Rules read values only through threshold(); docs/findings.md
// lists the same table, and a unit test checks that the two agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace uringscope {

// Indexes into the table: thresholds.cpp checks at compile time that entry i has id i.
enum class ThresholdId : uint8_t {
  PuntMinPct,
  PuntMinSubmitted,
  BatchWarnBelow,
  BatchInfoBelow,
  BatchMinEnterCalls,
  BatchMinSqes,
  BatchMinEnterRate,
  ToolUntrackedMinPct,
  ToolEnterNoRingMin,
  WorkersMin,
  WorkersPerCpu,
  SqpollOffcpuMinPct,
  SqpollMinWakeups,
  SqpollWakeupEveryBelow,
  SqpollMinWakeupRate,
  SqpollWakeupBatchBelow,
  SqpollBusyMinWindow,
  DeferTwMaxLag,
  PollRetryMinPct,
  PollRetryMinSubmitted,
  PollRetryRegularMin,
  ErrorsMinPct,
  ErrorsMinCount,
  LeakGrowthMin,
  LeakGrowthMinSharePct,
  LeakGrowthMinRisingPct,
  LeakGrowthMaxDipPct,
  LeakGrowthMaxStepPct,
  ReapLag,
  ReapLagWarnSharePct,
  ReapLagWarnMin,
  ReapLagWarnFactor,
  SqWaitP99,
  SqWaitMinWatched,
  GroupMinRings,
  GroupShown,
  Count_,
};
inline constexpr std::size_t kThresholdCount = static_cast<std::size_t>(ThresholdId::Count_);

// The `tag` of the entries that apply to every finding (how findings are grouped).
inline constexpr std::string_view kEveryTag = "(every)";

struct Threshold {
  ThresholdId id;
  std::string_view tag;     // the finding that uses it
  std::string_view name;    // stable, snake_case: what docs and messages call it
  double value;
  std::string_view unit;
  std::string_view reason;  // why this number and not a neighbouring one
};

const Threshold& threshold(ThresholdId id);
inline double threshold_value(ThresholdId id) { return threshold(id).value; }
std::span<const Threshold> all_thresholds();

}  // namespace uringscope
