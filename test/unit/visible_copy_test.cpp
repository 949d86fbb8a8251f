// SPDX-License-Identifier: MIT
// The text renderers get names in their visible form (report/visible_copy.h,
// diff/visible_diff.h): the report fixture with a hostile string in every string field
// is rendered by each text view, raw (which must show the bytes, or this test could not
// fail) and through the copy (which must not).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "diff/baseline.h"
#include "diff/visible_diff.h"
#include "report/live.h"
#include "report/report.h"
#include "report/views.h"
#include "report/visible_copy.h"
#include "support/fixtures.h"

namespace uringscope {
namespace {

// ESC clears the screen, BEL rings, the newline starts a forged line, 0xFF is no UTF-8.
const std::string kHostile = "x\x1b[2J\x07\nfake line\xff";

bool has_raw_control(const std::string& text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n') || u == 0x7f || u == 0xff) return true;
  }
  return false;
}

bool has_forged_line(const std::string& text) { return text.find("\nfake line") != std::string::npos; }

Snapshot hostile_snapshot() {
  Snapshot s = report_test::report_fixture();
  s.target.mode = TargetMode::Command;
  s.target.command = {"/bin/" + kHostile, kHostile};
  s.kernel.release = kHostile;
  for (Ring& ring : s.rings) {
    ring.comm = kHostile;
    ring.files.push_back(file_test::file_row("/tmp/" + kHostile, ring.ops.empty() ? 0 : ring.ops[0].opcode, 3, 1));
  }
  for (PendingRequest& request : s.leak.requests) request.file = "/tmp/" + kHostile;
  s.liburing.tried = true;
  s.liburing.why_not = kHostile;
  aggregate(s);
  return s;
}

std::vector<Finding> hostile_findings() {
  std::vector<Finding> findings = report_test::report_findings();
  for (Finding& f : findings) {
    f.message += " Most on /tmp/" + kHostile + ".";
    f.evidence.push_back({"file", "/tmp/" + kHostile});
  }
  return findings;
}

// `shown`: the part of the name the view has room for.
template <typename Render>
void expect_raw_shows_and_copy_hides(Render render, const char* view,
                                     const std::string& shown = R"(x\x1b[2J\x07\nfake line\xff)") {
  const Snapshot snap = hostile_snapshot();
  const std::vector<Finding> findings = hostile_findings();
  std::ostringstream raw, visible;
  render(raw, snap, findings);
  render(visible, visible_copy(snap), visible_copy(findings));
  EXPECT_TRUE(has_raw_control(raw.str()) || has_forged_line(raw.str()))
      << view << ": the fixture's names never reached it, so this check proves nothing";
  EXPECT_FALSE(has_raw_control(visible.str())) << view << ":\n" << visible.str();
  EXPECT_FALSE(has_forged_line(visible.str())) << view;
  EXPECT_NE(visible.str().find(shown), std::string::npos) << view;
}

TEST(VisibleCopy, FullReport) {
  expect_raw_shows_and_copy_hides(
      [](std::ostream& out, const Snapshot& s, const std::vector<Finding>& f) {
        TextOptions options;
        options.full_rings = std::nullopt;
        render_text(out, s, f, options);
      },
      "full report");
}

TEST(VisibleCopy, CompactReport) {
  expect_raw_shows_and_copy_hides(
      [](std::ostream& out, const Snapshot& s, const std::vector<Finding>& f) {
        render_compact(out, s, f, true);
      },
      "compact report");
}

TEST(VisibleCopy, LiveInterval) {
  expect_raw_shows_and_copy_hides(
      [](std::ostream& out, const Snapshot& s, const std::vector<Finding>&) {
        render_live_interval(out, s, 1'000'000'000, "12:00:00");
      },
      "live interval", R"(x\x1b[2J)");
}

TEST(VisibleCopy, DiffAgainstAHostileBaseline) {
  const Snapshot snap = hostile_snapshot();
  const std::vector<Finding> findings = hostile_findings();
  Baseline before = baseline_of(snap, findings);
  before.source = "/tmp/" + kHostile + ".json";
  before.tool_version = kHostile;
  for (BaselineFinding& f : before.findings) f.tag = kHostile;
  const Diff d = diff(before, baseline_of(snap, {}));
  std::ostringstream raw, visible;
  render_diff_text(raw, d);
  render_diff_text(visible, visible_copy(d));
  EXPECT_TRUE(has_raw_control(raw.str()));
  EXPECT_FALSE(has_raw_control(visible.str())) << visible.str();
  EXPECT_FALSE(has_forged_line(visible.str()));
}

}  // namespace
}  // namespace uringscope
