// SPDX-License-Identifier: MIT
// Reading a saved report back. The expected Baseline values are derived by hand from the
// fixture below, never copied from the parser's output; error messages are exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "diff/baseline.h"
#include "util/error.h"
#include "report/report.h"
#include "support/fixtures.h"

namespace uringscope::baseline_test {


namespace {

using Json = nlohmann::ordered_json;

std::string report_text() { return render_json(baseline_fixture(), baseline_findings()).dump(2); }

Json report() { return render_json(baseline_fixture(), baseline_findings()); }

// The message parse_baseline throws for `text`, or a failure when it accepts it.
std::string error_of(const std::string& text) {
  try {
    parse_baseline(text, "b.json");
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  return {};
}

std::string error_of_doc(const Json& doc) { return error_of(doc.dump()); }

// Field by field, so that a failure names the field.
void expect_same(const Baseline& got, const Baseline& want) {
  EXPECT_EQ(got.source, want.source);
  EXPECT_EQ(got.tool_version, want.tool_version);
  EXPECT_EQ(got.wall_ns, want.wall_ns);
  ASSERT_EQ(got.ops.size(), want.ops.size());
  for (std::size_t i = 0; i < want.ops.size(); ++i) {
    SCOPED_TRACE("ops[" + std::to_string(i) + "]");
    EXPECT_EQ(got.ops[i].op, want.ops[i].op);
    EXPECT_EQ(got.ops[i].opcode, want.ops[i].opcode);
    EXPECT_EQ(got.ops[i].submitted, want.ops[i].submitted);
    EXPECT_EQ(got.ops[i].punted, want.ops[i].punted);
    EXPECT_EQ(got.ops[i].errors, want.ops[i].errors);
    EXPECT_EQ(got.ops[i].p50_ns, want.ops[i].p50_ns);
    EXPECT_EQ(got.ops[i].p99_ns, want.ops[i].p99_ns);
    EXPECT_EQ(got.ops[i].punt_pct(), want.ops[i].punt_pct());
  }
  EXPECT_EQ(got.has_rings, want.has_rings);
  ASSERT_EQ(got.rings.size(), want.rings.size());
  for (std::size_t i = 0; i < want.rings.size(); ++i) {
    SCOPED_TRACE("rings[" + std::to_string(i) + "]");
    EXPECT_EQ(got.rings[i].id, want.rings[i].id);
    EXPECT_EQ(got.rings[i].fd, want.rings[i].fd);
    EXPECT_EQ(got.rings[i].pid, want.rings[i].pid);
    EXPECT_EQ(got.rings[i].comm, want.rings[i].comm);
    EXPECT_EQ(got.rings[i].catch_all, want.rings[i].catch_all);
    EXPECT_EQ(got.rings[i].avg_batch, want.rings[i].avg_batch);
    EXPECT_EQ(got.rings[i].submissions, want.rings[i].submissions);
    EXPECT_EQ(got.rings[i].cq_overflows, want.rings[i].cq_overflows);
  }
  ASSERT_EQ(got.findings.size(), want.findings.size());
  for (std::size_t i = 0; i < want.findings.size(); ++i) {
    SCOPED_TRACE("findings[" + std::to_string(i) + "]");
    EXPECT_EQ(got.findings[i].tag, want.findings[i].tag);
    EXPECT_EQ(got.findings[i].severity, want.findings[i].severity);
    EXPECT_EQ(got.findings[i].ring, want.findings[i].ring);
    EXPECT_EQ(got.findings[i].op, want.findings[i].op);
    EXPECT_EQ(got.findings[i].message, want.findings[i].message);
  }
  EXPECT_TRUE(got == want);  // and nothing the checks above missed
}

Baseline expected_baseline() {
  Baseline b;
  b.source = "b.json";
  b.tool_version = "0.1.0";
  b.wall_ns = 10'000'000'000;
  b.ops = {
      {.op = "FSYNC", .opcode = 3, .submitted = 500, .punted = 500, .errors = 1,
       .p50_ns = 1'572'864, .p99_ns = 2'000'000},
      {.op = "READ", .opcode = 22, .submitted = 1'000, .punted = 250, .errors = 4,
       .p50_ns = 1'536, .p99_ns = 2'037},
      {.op = "WRITE", .opcode = 23, .submitted = 3'000, .punted = 0, .errors = 0,
       .p50_ns = 6'144, .p99_ns = 8'151},
  };
  b.rings = {
      {.id = 0, .fd = 5, .pid = 100, .comm = "app", .catch_all = false, .avg_batch = 4.0,
       .submissions = 4'000, .cq_overflows = 2},
      {.id = 1, .fd = std::nullopt, .pid = 200, .comm = "db", .catch_all = false,
       .avg_batch = 0.0, .submissions = 500, .cq_overflows = 0},
      {.id = 2, .fd = std::nullopt, .pid = 0, .comm = "", .catch_all = true, .avg_batch = 0.0,
       .submissions = 0, .cq_overflows = 0},
  };
  b.findings = {
      {.tag = "OVERFLOW", .severity = "CRIT", .ring = 0u, .op = std::nullopt,
       .message = "ring #0: the CQ ring overflowed 2 times, so completions took the slow path."},
      {.tag = "PUNT", .severity = "WARN", .ring = 0u, .op = "READ",
       .message = "ring #0: 250 of 1,000 READ requests were punted to io-wq (25.0%)."},
      {.tag = "TOOL", .severity = "INFO", .ring = std::nullopt, .op = std::nullopt,
       .message = "Nothing lost, just saying."},
  };
  return b;
}

TEST(Baseline, RenderedReportParsesBack) {
  expect_same(parse_baseline(report_text(), "b.json"), expected_baseline());
}

TEST(Baseline, PuntPercentIsRecomputed) {
  Baseline b = parse_baseline(report_text(), "b.json");
  EXPECT_DOUBLE_EQ(b.ops[0].punt_pct(), 100.0);
  EXPECT_DOUBLE_EQ(b.ops[1].punt_pct(), 25.0);
  EXPECT_DOUBLE_EQ(b.ops[2].punt_pct(), 0.0);
  EXPECT_EQ(BaselineOp{}.punt_pct(), 0.0);  // nothing submitted: no division by zero
}

TEST(Baseline, CurrentRunEqualsItsSavedReport) {
  Snapshot snap = baseline_fixture();
  std::vector<Finding> findings = baseline_findings();
  Baseline current = baseline_of(snap, findings);
  EXPECT_EQ(current.source, "");
  current.source = "b.json";  // the only field a file adds
  expect_same(current, parse_baseline(render_json(snap, findings).dump(), "b.json"));
}

TEST(Baseline, CurrentRunEqualsItsSavedReportOnAnAwkwardSnapshot) {
  // Quantiles interpolated to fractions and a batch that is no short decimal: the saved
  // text must still carry the exact values.
  Snapshot snap = baseline_fixture();
  snap.rings[0].counters.enter_submit_calls = 3;
  snap.rings[0].counters.submissions = 10;  // avg batch 3.333...
  snap.rings[0].ops[0].latency.buckets[7] = 7;
  snap.rings[0].ops[0].latency.buckets[30] = 13;
  snap.rings[0].ops[0].latency.max_ns = uint64_t{1} << 31;
  aggregate(snap);
  Baseline current = baseline_of(snap, {});
  current.source = "b.json";
  expect_same(current, parse_baseline(render_json(snap, {}).dump(), "b.json"));
}

TEST(Baseline, UnknownKeysAreIgnored) {
  Json doc = report();
  doc["future"] = Json{{"nested", Json::array({1, 2, 3})}};
  doc["ops"][0]["p999_ns"] = 5;
  doc["rings"][0]["numa_node"] = 1;
  doc["rings"][0]["counters"]["new_counter"] = 9;
  doc["findings"][0]["confidence"] = 0.9;
  expect_same(parse_baseline(doc.dump(), "b.json"), expected_baseline());
}

TEST(Baseline, OlderReportWithFewerFieldsLoads) {
  // A schema-2 report as the releases before the per-ring breakdown's newer fields wrote
  // it: no punt_pct, no avg_batch, no source, no message, no ring on findings.
  Json doc = report();
  for (Json& op : doc["ops"]) {
    op.erase("punt_pct");
    op.erase("punt_reasons");
  }
  for (Json& ring : doc["rings"]) {
    ring.erase("avg_batch");
    ring.erase("source");
    ring.erase("sq_tid");
  }
  doc["rings"][1]["counters"].erase("enter_submit_calls");  // batch now unknowable
  for (Json& f : doc["findings"]) {
    f.erase("message");
    f.erase("ring");
  }
  Baseline b = parse_baseline(doc.dump(), "b.json");
  Baseline want = expected_baseline();
  want.rings[0].avg_batch = 4.0;  // 4,000 submissions / 1,000 submitting enters
  want.rings[1].avg_batch = std::nullopt;
  want.rings[2].catch_all = false;  // nothing says so any more
  for (BaselineFinding& f : want.findings) {
    f.message.clear();
    f.ring = std::nullopt;
  }
  expect_same(b, want);
}

TEST(Baseline, ReportWithoutRingsLoadsWithoutThem) {
  Json doc = report();
  doc.erase("rings");
  Baseline b = parse_baseline(doc.dump(), "b.json");
  EXPECT_FALSE(b.has_rings);
  EXPECT_TRUE(b.rings.empty());
  EXPECT_EQ(b.ops.size(), 3u);
}

TEST(Baseline, NegativeFdMeansUnknown) {
  Json doc = report();
  doc["rings"][0]["fd"] = -1;
  EXPECT_EQ(parse_baseline(doc.dump(), "b.json").rings[0].fd, std::nullopt);
  doc["rings"][0].erase("fd");
  EXPECT_EQ(parse_baseline(doc.dump(), "b.json").rings[0].fd, std::nullopt);
}

TEST(BaselineErrors, NotJson) {
  EXPECT_EQ(error_of("{\"tool\": \"uringscope\",\n \"schema\": 2,,}"),
            "b.json: not JSON (line 2, column 14)");
  EXPECT_EQ(error_of("uringscope report (12.4s, 8 cpus)\n"), "b.json: not JSON (line 1, column 1)");
  // Truncated: the parser runs out at the end of the text.
  std::string text = report_text();
  std::string cut = text.substr(0, text.find("\"rings\""));
  std::size_t lines = 1 + static_cast<std::size_t>(std::count(cut.begin(), cut.end(), '\n'));
  std::size_t column = cut.size() - cut.rfind('\n') - 1 + 1;  // one past the last char read
  EXPECT_EQ(error_of(cut), "b.json: not JSON (line " + std::to_string(lines) + ", column " +
                               std::to_string(column) + ")");
}

TEST(BaselineErrors, Empty) {
  EXPECT_EQ(error_of(""), "b.json: empty file, not a uringscope report");
  EXPECT_EQ(error_of(" \n\t\n"), "b.json: empty file, not a uringscope report");
}

TEST(BaselineErrors, NotAReport) {
  EXPECT_EQ(error_of("[1, 2, 3]"),
            "b.json: not a uringscope report (top level is an array, expected an object)");
  EXPECT_EQ(error_of("\"uringscope\""),
            "b.json: not a uringscope report (top level is a string, expected an object)");
  EXPECT_EQ(error_of(R"({"schema": 2, "ops": []})"),
            R"(b.json: not a uringscope report (no "tool": "uringscope"))");
  EXPECT_EQ(error_of(R"({"tool": "fio", "schema": 2})"),
            R"(b.json: not a uringscope report ("tool": "fio"))");
  EXPECT_EQ(error_of(R"({"tool": 7})"), R"(b.json: not a uringscope report ("tool": 7))");
  // A quoted value is cut short: the message stays one line.
  EXPECT_EQ(error_of(R"({"tool": ")" + std::string(100, 'x') + "\"}"),
            R"(b.json: not a uringscope report ("tool": ")" + std::string(39, 'x') + "...)");
}

TEST(BaselineErrors, Schema) {
  Json doc = report();
  doc["schema"] = 1;
  EXPECT_EQ(error_of_doc(doc), "b.json: schema 1, this uringscope reads schema 2");
  doc["schema"] = 3;
  EXPECT_EQ(error_of_doc(doc), "b.json: schema 3, this uringscope reads schema 2");
  doc["schema"] = -2;
  EXPECT_EQ(error_of_doc(doc), "b.json: schema -2, this uringscope reads schema 2");
  doc["schema"] = "2";
  EXPECT_EQ(error_of_doc(doc), "b.json: wrong-typed field schema (a string, expected an integer)");
  doc["schema"] = 2.0;
  EXPECT_EQ(error_of_doc(doc),
            "b.json: wrong-typed field schema (a floating-point number, expected an integer)");
  doc.erase("schema");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field schema");
}

TEST(BaselineErrors, MissingFields) {
  Json doc = report();
  doc.erase("ops");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field ops");

  doc = report();
  doc.erase("wall_ns");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field wall_ns");

  doc = report();
  doc["ops"][1].erase("p99_ns");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field ops[1].p99_ns");

  doc = report();
  doc["rings"][2]["counters"].erase("cq_overflows");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field rings[2].counters.cq_overflows");

  doc = report();
  doc["findings"][2].erase("severity");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field findings[2].severity");

  doc = report();
  doc.erase("findings");
  EXPECT_EQ(error_of_doc(doc), "b.json: missing field findings");
}

TEST(BaselineErrors, WrongTypes) {
  Json doc = report();
  doc["ops"][0]["submitted"] = "500";
  EXPECT_EQ(error_of_doc(doc),
            "b.json: wrong-typed field ops[0].submitted (a string, expected an unsigned integer)");

  doc = report();
  doc["ops"][0]["submitted"] = -1;
  EXPECT_EQ(error_of_doc(doc), "b.json: wrong-typed field ops[0].submitted (a negative integer, "
                           "expected an unsigned integer)");

  doc = report();
  doc["ops"] = Json::object();
  EXPECT_EQ(error_of_doc(doc), "b.json: wrong-typed field ops (an object, expected an array)");

  doc = report();
  doc["ops"][2] = nullptr;
  EXPECT_EQ(error_of_doc(doc), "b.json: wrong-typed field ops[2] (null, expected an object)");

  doc = report();
  doc["rings"][2]["avg_batch"] = "fast";
  EXPECT_EQ(error_of_doc(doc),
            "b.json: wrong-typed field rings[2].avg_batch (a string, expected a number)");

  doc = report();
  doc["rings"][1]["comm"] = Json::array();
  EXPECT_EQ(error_of_doc(doc),
            "b.json: wrong-typed field rings[1].comm (an array, expected a string)");

  doc = report();
  doc["findings"][0]["op"] = 22;
  EXPECT_EQ(error_of_doc(doc),
            "b.json: wrong-typed field findings[0].op (an unsigned integer, expected a string)");

  doc = report();
  doc["tool_version"] = true;
  EXPECT_EQ(error_of_doc(doc),
            "b.json: wrong-typed field tool_version (a boolean, expected a string)");

  // 2^64 does not fit an integer, so the parser makes it a float.
  std::string text = report().dump();
  std::string key = "\"wall_ns\":10000000000";
  text.replace(text.find(key), key.size(), "\"wall_ns\":18446744073709551616");
  EXPECT_EQ(error_of(text), "b.json: wrong-typed field wall_ns (a floating-point number, "
                            "expected an unsigned integer)");
}

TEST(BaselineErrors, OutOfRange) {
  Json doc = report();
  doc["rings"][0]["id"] = uint64_t{1} << 32;
  EXPECT_EQ(error_of_doc(doc),
            "b.json: field rings[0].id out of range (4294967296, expected at most 4294967295)");

  doc = report();
  doc["rings"][0]["fd"] = uint64_t{1} << 31;
  EXPECT_EQ(error_of_doc(doc),
            "b.json: field rings[0].fd out of range (2147483648, expected at most 2147483647)");

  doc = report();
  doc["rings"][0]["avg_batch"] = -0.5;
  EXPECT_EQ(error_of_doc(doc),
            "b.json: field rings[0].avg_batch out of range (-0.5, expected a finite number >= 0)");

  std::string text = report().dump();
  std::string key = "\"wall_ns\":10000000000";
  text.replace(text.find(key), key.size(), "\"wall_ns\":1e400");
  EXPECT_EQ(error_of(text), "b.json: unreadable JSON (number overflow parsing '1e400')");
}

TEST(BaselineErrors, RepeatedOpcode) {
  Json doc = report();
  doc["ops"][2]["opcode"] = 3;
  EXPECT_EQ(error_of_doc(doc), "b.json: ops[2] repeats opcode 3");
}

TEST(BaselineErrors, DeepNesting) {
  std::string deep = R"({"tool": "uringscope", "x": )" + std::string(100, '[') +
                     std::string(100, ']') + "}";
  EXPECT_EQ(error_of(deep), "b.json: not a uringscope report (JSON nested deeper than 64 levels)");
  // Brackets inside strings do not count.
  Json doc = report();
  doc["note"] = std::string(100, '[');
  EXPECT_NO_THROW(parse_baseline(doc.dump(), "b.json"));
}

TEST(LoadBaseline, ReadsTheFile) {
  std::string path = ::testing::TempDir() + "uringscope_baseline_test.json";
  {
    std::ofstream out(path);
    out << report_text();
  }
  Baseline b = load_baseline(path);
  Baseline want = expected_baseline();
  want.source = path;
  expect_same(b, want);
  std::remove(path.c_str());
}

TEST(LoadBaseline, IoErrorsNameTheFile) {
  std::string missing = ::testing::TempDir() + "uringscope_no_such_baseline.json";
  try {
    load_baseline(missing);
    ADD_FAILURE() << "loaded a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read " + missing + ": No such file or directory");
  }
  try {
    load_baseline("/");
    ADD_FAILURE() << "loaded a directory";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read /: Is a directory");
  }
}

TEST(LoadBaseline, ParseErrorsNameThePath) {
  std::string path = ::testing::TempDir() + "uringscope_baseline_empty.json";
  { std::ofstream out(path); }
  try {
    load_baseline(path);
    ADD_FAILURE() << "loaded an empty file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": empty file, not a uringscope report");
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace uringscope::baseline_test
