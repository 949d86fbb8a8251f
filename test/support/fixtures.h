// SPDX-License-Identifier: MIT
// Fixtures several unit tests share, in the test support library (test/CMakeLists.txt):
// each is a hand-built value whose numbers the tests derive their expectations from.
#pragma once

#include <string>
#include <vector>

#include "uringscope/findings.h"
#include "uringscope/snapshot.h"

namespace uringscope::report_test {
// The READ latency histogram of the report fixture's ring 0.
Histogram read_histogram();
// `n` samples of `each_ns` each, in the log2 slot the BPF side would put them in.
Histogram uniform_histogram(uint64_t n, uint64_t each_ns);
// Three rings (an app, an SQPOLL writer, the catch-all), every section of the report
// filled: see test/support/report_fixture.cpp.
Snapshot report_fixture();
std::vector<Finding> report_findings();
}  // namespace uringscope::report_test

namespace uringscope::file_test {
// One (file, op) row of a ring, a regular file, every request ended with one CQE.
FileStats file_row(std::string name, uint32_t opcode, uint64_t requests, uint64_t punted = 0,
                   uint64_t errors = 0, uint64_t direct = 0);
}  // namespace uringscope::file_test

namespace uringscope::baseline_test {
// A 10 s run of three rings as a saved baseline: see test/support/baseline_fixture.cpp.
Snapshot baseline_fixture();
std::vector<Finding> baseline_findings();
}  // namespace uringscope::baseline_test
