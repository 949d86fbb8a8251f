// SPDX-License-Identifier: MIT
// The rendered JSON against docs/json.schema.json, through test/check_json_schema.py and
// the jsonschema module, the same checker CI runs on real reports. The schema is the
// published contract; this keeps renderer and schema from drifting apart, and the
// negative cases prove the schema actually rejects the breaks it exists to catch.
//
// Needs python3 with jsonschema (Debian: python3-jsonschema). Missing, the tests fail
// rather than skip: a silently skipped contract check is how a schema rots.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "report/report.h"
#include "support/fixtures.h"

namespace uringscope::report_test {


namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// The source tree, from this file's own path: test/unit/ -> the checkout.
const fs::path kRoot = fs::path(__FILE__).parent_path().parent_path().parent_path();
const fs::path kSchema = kRoot / "docs" / "json.schema.json";
const fs::path kChecker = kRoot / "test" / "check_json_schema.py";

// CI runs the distribution's python3 (where apt puts python3-jsonschema), which may not
// be the first python3 on PATH.
std::string python() {
  std::error_code ec;
  return fs::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Result {
  int status = -1;  // exit status, -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

Result run(const std::string& command) {
  Result r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  int raw = pclose(pipe);
  if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
  return r;
}

// A fresh directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "uringscope-json-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  // Writes `doc` as run.cpp does (dump(2) and a newline) and returns the file's path.
  std::string write(const std::string& name, const Json& doc) const {
    fs::path file = path_ / name;
    std::ofstream(file) << doc.dump(2) << "\n";
    return file.string();
  }

 private:
  fs::path path_;
};

// A failed assertion, never a skip, when the checker cannot run here. Probed once: a
// python start-up per test is most of these tests' run time.
::testing::AssertionResult probe_checker() {
  if (!fs::exists(kSchema) || !fs::exists(kChecker))
    return ::testing::AssertionFailure()
           << "missing " << kSchema << " or " << kChecker << " (tests built from " << __FILE__
           << ")";
  Result r = run(python() + " -c 'import jsonschema'");
  if (r.status != 0)
    return ::testing::AssertionFailure()
           << python() << " cannot import jsonschema; install python3-jsonschema "
           << "(apt-get install python3-jsonschema). Output:\n"
           << r.output;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult checker_ready() {
  static const ::testing::AssertionResult ready = probe_checker();
  return ready;
}

Result check(const std::vector<std::string>& files) {
  std::string command =
      python() + " " + shell_quote(kChecker.string()) + " " + shell_quote(kSchema.string());
  for (const std::string& f : files) command += " " + shell_quote(f);
  return run(command);
}

Json render(Snapshot snap, const std::vector<Finding>& findings) {
  aggregate(snap);
  return render_json(snap, findings);
}

// Nothing io_uring happened: no rings, no ops, only the NODATA finding. The identity
// fields are filled as every real run fills them (a tier is always known by then).
Snapshot empty_snapshot() {
  Snapshot s;
  s.tool_version = "0.1.0";
  s.wall_ns = 10'000'000'000;
  s.ncpus = 4;
  s.kernel.release = "6.1.0-21-amd64";
  s.kernel.tier = Tier::Legacy;
  s.target.mode = TargetMode::Command;
  s.target.command = {"./idle"};
  s.target.pids = {4100};
  return s;
}

// One ring with an unknown fd and leaked requests of every kind; the numbers at the
// edges of their types (user_data above INT64_MAX, a catch-all ring with no fd or pid).
Snapshot leak_snapshot() {
  Snapshot s = empty_snapshot();
  s.kernel.tier = Tier::Full;
  s.kernel.features = {{"submit", true, "io_uring_submit_req"},
                       {"local_work", false, "io_uring_local_work_run missing"}};
  s.target.mode = TargetMode::All;
  s.target.command.clear();
  s.target.pids.clear();

  Ring r;
  r.id = 0;
  r.pid = 777;
  r.comm = "srv";
  r.fd = -1;  // rendered as null
  r.sq_entries = 32;
  r.cq_entries = 64;
  r.setup_flags = (1u << 12) | (1u << 13);  // SINGLE_ISSUER | DEFER_TASKRUN
  r.source = RingSource::FdTable;
  r.counters.submissions = 40;
  r.counters.completions = 35;
  r.counters.enter_calls = 10;
  r.counters.enter_submit_calls = 10;
  r.counters.errors = 2;
  r.counters.leaks_suspected = 2;
  r.counters.leaks_pending = 1;
  OpStats recv;
  recv.opcode = 27;
  recv.submitted = 40;
  recv.completed = 35;
  recv.errors = 2;
  recv.errnos = {{104, 2}};  // ECONNRESET
  recv.latency.buckets[15] = 35;
  recv.latency.sum_ns = 35ull * 40'000;
  recv.latency.max_ns = 60'000;
  r.ops = {recv};

  Ring other;
  other.id = 1;
  other.source = RingSource::CatchAll;

  s.rings = {r, other};
  s.leak.threshold_ns = 500'000'000;
  s.leak.suspected = 2;
  s.leak.pending = 1;
  s.leak.oldest_ns = 9'000'000'000;
  s.leak.requests = {
      {.ring = 0, .opcode = 18, .age_ns = 9'000'000'000,
       .user_data = std::numeric_limits<uint64_t>::max(), .where = RequestWhere::IoWq},
      {.ring = 0, .opcode = 27, .age_ns = 2'000'000'000, .user_data = 0,
       .where = RequestWhere::TaskWork, .abandoned = true},
      {.ring = 0, .opcode = 27, .age_ns = 1'000'000'000, .user_data = 7,
       .where = RequestWhere::Poll, .waiting = true},
  };
  s.workers = {{777, 3}};
  return s;
}

TEST(JsonSchema, RenderedReportsMatchTheSchema) {
  ASSERT_TRUE(checker_ready());
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());

  Snapshot fixture = report_fixture();
  Snapshot empty = empty_snapshot();
  Snapshot leak = leak_snapshot();
  aggregate(empty);
  aggregate(leak);
  std::vector<std::string> files = {
      // The hand-written findings of the text and JSON tests.
      dir.write("fixture.json", render(fixture, report_findings())),
      // The rules' own findings over the same numbers: real evidence keys and types.
      dir.write("fixture-rules.json", render(fixture, evaluate(fixture))),
      dir.write("empty.json", render(empty, evaluate(empty))),
      dir.write("leak.json", render(leak, evaluate(leak))),
  };
  // The fixtures must exercise what they are here for.
  const Json leak_json_doc = render(leak, evaluate(leak));
  ASSERT_TRUE(leak_json_doc.at("rings")[0].at("fd").is_null());
  ASSERT_EQ(leak_json_doc.at("leak").at("requests").size(), 3u);
  ASSERT_FALSE(render(empty, evaluate(empty)).at("findings").empty());  // NODATA

  Result r = check(files);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "");
}

TEST(JsonSchema, UnknownKeysAreAccepted) {
  // Consumers must accept keys they do not know, and so must the schema: a report from
  // a newer uringscope with more fields is still a valid schema-2 report.
  ASSERT_TRUE(checker_ready());
  TempDir dir;
  Json doc = render(report_fixture(), report_findings());
  doc["a_new_section"] = Json{{"x", 1}};
  doc["kernel"]["a_new_field"] = "v";
  doc["counters"]["a_new_counter"] = 5;
  doc["rings"][0]["counters"]["a_new_counter"] = 5;
  doc["rings"][0]["a_new_field"] = Json::array();
  doc["rings"][0]["ops"][0]["a_new_field"] = 1.5;
  doc["ops"][0]["punt_reasons"]["a_new_reason"] = 3;
  doc["leak"]["requests"][0]["a_new_field"] = true;
  doc["findings"][0]["a_new_field"] = nullptr;
  doc["findings"][0]["evidence"]["a_new_key"] = "text";
  doc["end_to_end"]["a_new_field"] = 1;
  Result r = check({dir.write("newer.json", doc)});
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(JsonSchema, BrokenReportsAreRejected) {
  ASSERT_TRUE(checker_ready());
  TempDir dir;
  const Json good = render(report_fixture(), report_findings());
  ASSERT_EQ(good.at("findings")[0].at("tag"), "OVERFLOW");  // the edits below assume it

  // Each variant breaks one promise; the checker must name the file and the place.
  struct Case {
    const char* name;
    std::string where;  // the JSON path the checker must report
    void (*edit)(Json&);
  };
  const std::vector<Case> cases = {
      {"schema3", "$.schema", [](Json& d) { d["schema"] = 3; }},
      {"string-for-integer", "$.wall_ns", [](Json& d) { d["wall_ns"] = "12400000000"; }},
      {"string-counter", "$.rings[0].counters.submissions",
       [](Json& d) { d["rings"][0]["counters"]["submissions"] = "1209544"; }},
      {"float-for-integer", "$.ops[1].p99_ns", [](Json& d) { d["ops"][1]["p99_ns"] = 1.5; }},
      {"missing-top-level", "$", [](Json& d) { d.erase("findings"); }},
      {"missing-counter", "$.counters", [](Json& d) { d["counters"].erase("cq_overflows"); }},
      {"missing-ring-fd", "$.rings[0]", [](Json& d) { d["rings"][0].erase("fd"); }},
      {"negative-fd", "$.rings[0].fd", [](Json& d) { d["rings"][0]["fd"] = -1; }},
      {"bad-severity", "$.findings[0].severity",
       [](Json& d) { d["findings"][0]["severity"] = "FATAL"; }},
      {"op-without-opcode", "$.findings[1].op",
       [](Json& d) { d["findings"][1]["opcode"] = nullptr; }},
      {"bad-where", "$.leak.requests[0].where",
       [](Json& d) { d["leak"]["requests"][0]["where"] = "iowq"; }},
      {"bad-tier", "$.kernel.tier", [](Json& d) { d["kernel"]["tier"] = "unsupported"; }},
      {"short-hist", "$.ops[0].log2_hist",
       [](Json& d) { d["ops"][0]["log2_hist"].erase(d["ops"][0]["log2_hist"].begin()); }},
      {"hazards-without-counts", "$.hazards",
       [](Json& d) { d["hazards"].erase("overlap"); }},
      {"evidence-object", "$.findings[0].evidence.cq_overflows",
       [](Json& d) { d["findings"][0]["evidence"]["cq_overflows"] = Json::object(); }},
      {"wrong-tool", "$.tool", [](Json& d) { d["tool"] = "ior-ng"; }},
  };

  std::vector<std::string> files;
  for (const Case& c : cases) {
    Json doc = good;
    c.edit(doc);
    files.push_back(dir.write(std::string(c.name) + ".json", doc));
  }
  Result r = check(files);
  EXPECT_EQ(r.status, 1) << r.output;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string line = files[i] + ": " + cases[i].where + ": ";
    EXPECT_NE(r.output.find(line), std::string::npos)
        << cases[i].name << ": expected a line starting \"" << line << "\" in:\n"
        << r.output;
  }
}

TEST(JsonSchema, CheckerReportsUnreadableAndMalformedFiles) {
  ASSERT_TRUE(checker_ready());
  TempDir dir;
  // Not JSON at all: the file is invalid (1).
  const std::string truncated = (dir.path() / "truncated.json").string();
  std::ofstream(truncated) << "{\"tool\": \"uringscope\",";
  Result bad = check({truncated});
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_NE(bad.output.find(truncated + ": not valid JSON"), std::string::npos) << bad.output;

  // Missing: the check could not run (2), which outranks an invalid file.
  Result missing = check({truncated, (dir.path() / "absent.json").string()});
  EXPECT_EQ(missing.status, 2) << missing.output;

  // No file named at all: usage (2).
  Result usage = run(python() + " " + shell_quote(kChecker.string()));
  EXPECT_EQ(usage.status, 2) << usage.output;
  EXPECT_NE(usage.output.find("usage"), std::string::npos) << usage.output;
}

}  // namespace
}  // namespace uringscope::report_test
