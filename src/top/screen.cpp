// SPDX-License-Identifier: MIT
// The frame around the tabs: the tab bar, the status line, the prompt, the help.
#include "top/screen.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "uringscope/fields.h"
#include "util/format.h"

namespace uringscope::top {
namespace {

ScreenLine styled(const std::string& text, std::size_t width, Style style) {
  return ScreenLine{fit(text, width), {{0, width, style}}};
}

// The filter stack in `room` columns: the newest frames are the ones to see, so when
// the stack is too long its oldest frames give way to "...".
std::string filter_stack_text(const TopModel& m, std::size_t room) {
  if (m.filters().empty()) return "filter: none";
  std::vector<std::string> frames;
  for (const FilterFrame& f : m.filters()) {
    // A long path keeps its kind and its end.
    const std::string label = printable(filter_label(f));
    const std::size_t value = label.find('=') + 1;
    frames.push_back(label.substr(0, value) + keep_tail(label.substr(value), 24));
  }
  std::string text;
  for (std::size_t first = 0; first < frames.size(); ++first) {
    text = first ? "filter: ... > " : "filter: ";
    for (std::size_t i = first; i < frames.size(); ++i) text += (i > first ? " > " : "") + frames[i];
    if (text.size() <= room) break;
  }
  return text;
}

std::string losses_text(const ToolStats& tool) {
  uint64_t all = 0, worst = 0;
  std::string_view worst_name;
  for (const ToolField& f : kToolFields) {
    const uint64_t n = tool.*f.member;
    all += n;
    if (n > worst) worst = n, worst_name = f.name;
  }
  if (all == 0) return "losses 0";
  return fmt::format("losses {} ({} {})", count_cell(all), worst_name, count_cell(worst));
}

std::vector<ScreenLine> too_small(const TopModel& m) {
  std::vector<ScreenLine> lines(m.height(), blank_line(m.width()));
  if (!lines.empty()) {
    lines[0] = styled(fmt::format("uringscope top needs {}x{}; this is {}x{}", kMinWidth,
                                  kMinHeight, m.width(), m.height()),
                      m.width(), Style::Normal);
  }
  if (lines.size() > 1) lines[1] = styled("q quits", m.width(), Style::Normal);
  return lines;
}

}  // namespace

std::string fit(const std::string& text, std::size_t width, bool right, bool keep_end) {
  if (text.size() > width) return keep_end ? keep_tail(text, width) : text.substr(0, width);
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

ScreenLine tab_bar(const TopModel& m) {
  ScreenLine line{"top ", {{0, 4, Style::TabBar}}};
  for (std::size_t i = 0; i < kTabs.size(); ++i) {
    std::string label = fmt::format(" {}:{}", i + 1, tab_title(kTabs[i]));
    if (kTabs[i] == Tab::Findings && m.findings_count()) label += fmt::format("({})", m.findings_count());
    label += ' ';
    const bool active = kTabs[i] == m.tab();
    line.spans.push_back({line.text.size(), label.size(), active ? Style::TabActive : Style::TabBar});
    line.text += label;
  }
  // Right-aligned: what changes how every count reads.
  const std::string right = m.paused()        ? " PAUSED "
                            : m.baseline_ns() ? fmt::format(" since +{} ", format_duration(m.baseline_ns()))
                                              : " ?:help ";
  if (line.text.size() + right.size() <= m.width()) {
    line.text += std::string(m.width() - line.text.size() - right.size(), ' ');
    line.spans.push_back({line.text.size(), right.size(), m.paused() ? Style::TabActive : Style::TabBar});
    line.text += right;
  }
  line.text = fit(line.text, m.width());
  return line;
}

ScreenLine status_line(const TopModel& m) {
  const Snapshot& interval = m.interval();
  const double seconds = static_cast<double>(interval.wall_ns) / 1e9;
  // The filter stack comes last: it is the one part of variable length.
  const std::string fixed = fmt::format(
      " {}+{} every {} | {} cqe/s {} cqes | {} | ", m.paused() ? "PAUSED " : "",
      format_duration(m.since_start_ns()),
      format_duration(static_cast<uint64_t>(m.settings().interval_s * 1e9)),
      rate_cell(interval.totals.completions, seconds), count_cell(m.total().totals.completions),
      losses_text(m.tool_losses()));
  // On a narrow screen the filter stack keeps almost half the line: what scopes every
  // number matters more than the end of the totals.
  const std::size_t room = std::max(m.width() > fixed.size() ? m.width() - fixed.size() : 0,
                                    m.width() * 9 / 20);
  const std::string filters = filter_stack_text(m, room);
  const std::size_t keep = m.width() > filters.size() ? m.width() - filters.size() : 0;
  return styled(fixed.substr(0, std::min(keep, fixed.size())) + filters, m.width(), Style::Status);
}

ScreenLine prompt_line(const TopModel& m) {
  if (m.search().editing) return styled("/" + printable(m.search().text) + "_", m.width(), Style::Prompt);
  if (!m.message().empty()) return styled(printable(m.message()), m.width(), Style::Prompt);
  return styled("?:help q:quit Enter:filter Esc:pop r:reset space:pause /:search h/l:sort",
                m.width(), Style::Normal);
}

std::vector<ScreenLine> help_body(const TopModel& m, std::size_t lines) {
  std::vector<ScreenLine> out;
  out.push_back(styled("uringscope top: keys (any key closes this)", m.width(), Style::Header));
  for (const KeyHelp& k : kKeyHelp) {
    if (out.size() >= lines) break;
    out.push_back(styled(fmt::format("  {:<25} {}", k.keys, k.what), m.width(), Style::Normal));
  }
  while (out.size() < lines) out.push_back(blank_line(m.width()));
  return out;
}

std::vector<ScreenLine> compose(const TopModel& m) {
  if (m.width() < kMinWidth || m.height() < kMinHeight) return too_small(m);
  std::vector<ScreenLine> lines;
  lines.push_back(tab_bar(m));
  // Title line, rows, detail lines: all but the tab bar, status and prompt.
  const std::size_t body = m.height() - 3;
  std::vector<ScreenLine> middle;
  if (m.help()) {
    middle = help_body(m, body);
  } else if (m.tab() == Tab::Flame) {
    middle = flame_body(m, m.table_rows());
  } else {
    middle = table_body(m, m.table_rows());
  }
  middle.resize(body, blank_line(m.width()));
  for (ScreenLine& l : middle) lines.push_back(std::move(l));
  lines.push_back(status_line(m));
  lines.push_back(prompt_line(m));
  return lines;
}

}  // namespace uringscope::top
