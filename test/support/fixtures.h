// SPDX-License-Identifier: MIT
// Fixtures several unit tests share, in the test support library (test/CMakeLists.txt):
// each is a hand-built value whose numbers the tests derive their expectations from.
#pragma once

#include <vector>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope::report_test {
// The READ latency histogram of the report fixture's ring 0.
Histogram read_histogram();
// Three rings (an app, an SQPOLL writer, the catch-all), every section of the report
// filled: see test/support/report_fixture.cpp.
Snapshot report_fixture();
std::vector<Finding> report_findings();
}  // namespace uringscope::report_test

namespace uringscope::baseline_test {
// A 10 s run of three rings as a saved baseline: see test/support/baseline_fixture.cpp.
Snapshot baseline_fixture();
std::vector<Finding> baseline_findings();
}  // namespace uringscope::baseline_test
