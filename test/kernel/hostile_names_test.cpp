// SPDX-License-Identifier: MIT
// A process names itself and its files with bytes meant for root's terminal and report
// parsers (the `hostile-names` scenario: ESC sequences, BEL, a newline, a quote, a
// backslash, ';', bytes that are not UTF-8, a C1 control and a bidi override, a
// 255-byte name). Every output uringscope writes about it is read back byte by byte:
// no raw control byte, valid in its own format, and each name in the escaped form the
// documentation promises, written out below by hand from that rule.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "support/http_get.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;

namespace {

class HostileNames : public harness::KernelTest {};

struct Name {
  std::string raw;      // what the injector chose
  std::string visible;  // what a terminal, a label or a folded stack must show
};

const Name kComm{"ev\x1b[2J\x07\n\"\\\xff\xc2\x9b;", R"(ev\x1b[2J\x07\n"\\\xff\u009b;)"};

const std::vector<Name>& files() {
  static const std::vector<Name> names = {
      {"esc\x1b[2J\x1b[31mEVIL", R"(esc\x1b[2J\x1b[31mEVIL)"},
      {"nl\nfake: no findings", R"(nl\nfake: no findings)"},
      {"bad\xff\xfeutf8\xc2\x9b" "csi\xe2\x80\xaerlo", R"(bad\xff\xfeutf8\u009bcsi\u202erlo)"},
      {"osc\x1b]0;pwned\x07", R"(osc\x1b]0;pwned\x07)"},
      {"quote\"back\\slash;semi", R"(quote"back\\slash;semi)"},
      {"long-" + std::string(250, 'x'), "long-" + std::string(250, 'x')},
  };
  return names;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Length of the UTF-8 sequence at s[i], 0 when it is not one (RFC 3629, written out
// again here rather than taken from the code under test).
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                  : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if (n == 3 && c == 0xe0 && b(i + 1) < 0xa0) return 0;
  if (n == 3 && c == 0xed && b(i + 1) > 0x9f) return 0;
  if (n == 4 && c == 0xf0 && b(i + 1) < 0x90) return 0;
  if (n == 4 && c == 0xf4 && b(i + 1) > 0x8f) return 0;
  return n;
}

// The first byte offset of `out` a terminal could act on, or npos: a control byte other
// than the line feed, DEL, a byte that is not UTF-8, a C1 control, a line separator or
// a bidi control.
std::size_t first_unsafe_byte(const std::string& out) {
  for (std::size_t i = 0; i < out.size();) {
    const auto c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return i;
    const std::size_t n = utf8_length(out, i);
    if (n == 0) return i;
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(out[i + 1]) <= 0x9f) return i;
    if (n == 3 && c == 0xe2 && static_cast<unsigned char>(out[i + 1]) == 0x80) {
      const auto third = static_cast<unsigned char>(out[i + 2]);
      if (third == 0x8e || third == 0x8f || (third >= 0xa8 && third <= 0xae)) return i;
    }
    if (n == 3 && c == 0xe2 && static_cast<unsigned char>(out[i + 1]) == 0x81 &&
        static_cast<unsigned char>(out[i + 2]) >= 0xa6 && static_cast<unsigned char>(out[i + 2]) <= 0xa9)
      return i;
    i += n;
  }
  return std::string::npos;
}

void expect_safe(const std::string& out, const std::string& what) {
  const std::size_t at = first_unsafe_byte(out);
  EXPECT_EQ(at, std::string::npos) << what << ": unsafe byte 0x" << std::hex
                                   << (at == std::string::npos ? 0 : static_cast<unsigned char>(out[at]))
                                   << std::dec << " at offset " << at << " in ..."
                                   << out.substr(at == std::string::npos ? 0 : (at > 40 ? at - 40 : 0), 80);
}

void expect_contains(const std::string& out, const std::string& needle, const std::string& what) {
  EXPECT_NE(out.find(needle), std::string::npos) << what << " lacks " << needle;
}

// The scenario's ground truth names exactly the names this test expects.
void expect_injector_names(const harness::GroundTruth& gt) {
  EXPECT_EQ(from_hex(gt.find("label", "hostile").at("comm_hex")), kComm.raw);
  std::vector<std::string> printed;
  for (const auto& line : gt.lines)
    if (line.count("name_hex")) printed.push_back(from_hex(line.at("name_hex")));
  ASSERT_EQ(printed.size(), files().size());
  for (std::size_t i = 0; i < printed.size(); ++i) EXPECT_EQ(printed[i], files()[i].raw);
}

// The injector under uringscope with `options`; the report's stdout and stderr.
harness::Result run_under(const std::vector<std::string>& options, const std::string& count = "4") {
  std::vector<std::string> argv{kUringscope};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", kInject, "hostile-names", count});
  return harness::run(argv);
}

TEST_F(HostileNames, TextJsonFoldedSvgAndTraceShowEveryNameEscaped) {
  const std::string json = file("r.json"), folded = file("r.folded"), svg = file("r.svg"),
                    trace = file("r.trace.json");
  const harness::Result r = run_under({"--files", "--rings", "all", "--json=" + json,
                                       "--folded=" + folded, "--flamegraph=" + svg, "--trace", trace});
  ASSERT_EQ(r.status, 0) << r.err;
  // uringscope's report goes to stdout after the injector's lines.
  const harness::GroundTruth gt = harness::parse_ground_truth(r.out);
  expect_injector_names(gt);
  const std::string dir = gt.find("label", "hostile").at("dir");

  expect_safe(r.out.substr(r.out.find("uringscope")), "text report");
  expect_safe(r.err, "stderr");
  // The files table keeps the end of a long path; the others fit whole.
  for (const Name& f : files())
    if (f.visible.size() < 40) expect_contains(r.out, f.visible, "text report");
  expect_contains(r.out, kComm.visible, "text report");
  expect_contains(r.out, "PUNT", "text report");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    EXPECT_NE(line.rfind("fake: no findings", 0), 0u) << "a name split a line: " << line;

  // JSON: parses strictly (nlohmann rejects invalid UTF-8), names exact but for U+FFFD.
  const std::string json_text = slurp(json);
  expect_safe(json_text, "JSON report");
  const nlohmann::json report = nlohmann::json::parse(json_text);
  EXPECT_GE(report.at("invalid_utf8_replaced").get<long long>(), 2) << "the comm and one file";
  const auto& ring = harness::ring_of(report, gt);
  EXPECT_EQ(ring.at("comm"), "ev\x1b[2J\x07\n\"\\\xef\xbf\xbd\xc2\x9b;");
  std::vector<std::string> paths;
  for (const auto& row : ring.at("files")) paths.push_back(row.at("name"));
  for (const Name& f : files()) {
    std::string expected = dir + "/" + f.raw;
    for (std::size_t at; (at = expected.find_first_of("\xff\xfe")) != std::string::npos;)
      expected.replace(at, 1, "\xef\xbf\xbd");
    EXPECT_NE(std::find(paths.begin(), paths.end(), expected), paths.end()) << "no file row " << expected;
  }
  const auto punts = harness::findings_with_tag(report, "PUNT");
  ASSERT_FALSE(punts.empty());

  // Folded: one stack per line, comm;ring;op[;file] then the count.
  const std::string folded_text = slurp(folded);
  expect_safe(folded_text, "folded stacks");
  const std::regex stack(R"(^[^;\n]+(;[^;\n]+){2,3} [0-9]+$)");
  std::istringstream stacks(folded_text);
  int file_stacks = 0;
  for (std::string line; std::getline(stacks, line);) {
    EXPECT_TRUE(std::regex_match(line, stack)) << line;
    if (line.rfind(kComm.visible.substr(0, kComm.visible.find(';')) + "\\x3b;", 0) == 0 &&
        std::count(line.begin(), line.end(), ';') == 3)
      ++file_stacks;
  }
  EXPECT_EQ(file_stacks, static_cast<int>(files().size()));
  expect_contains(folded_text, R"(quote"back\\slash\x3bsemi)", "folded stacks");

  const std::string svg_text = slurp(svg);
  expect_safe(svg_text, "flame graph");
  expect_contains(svg_text, R"(quote&quot;back\\slash\x3bsemi)", "flame graph");

  const std::string trace_text = slurp(trace);
  expect_safe(trace_text, "trace");
  EXPECT_NO_THROW((void)nlohmann::json::parse(trace_text));
}

TEST_F(HostileNames, CompactLiveBaselineAndDiffShowEveryNameEscaped) {
  const std::string baseline = file("b.json");
  const harness::Result compact = run_under({"-c", "--files", "--baseline=" + baseline});
  ASSERT_EQ(compact.status, 0) << compact.err;
  expect_safe(compact.out.substr(compact.out.find("uringscope")), "compact report");
  expect_safe(compact.err, "stderr of -c");
  EXPECT_NO_THROW((void)nlohmann::json::parse(slurp(baseline)));

  const harness::Result diffed = run_under({"--files", "--diff", baseline});
  ASSERT_EQ(diffed.status, 0) << diffed.err;
  const std::string diff_text = diffed.out.substr(diffed.out.find("uringscope"));
  expect_safe(diff_text, "report with its diff");
  expect_contains(diff_text, "diff against", "report with its diff");
  expect_contains(diff_text, files()[0].visible, "diff's file rows");

  // -i: every interval line; the injector keeps its ring open past two intervals.
  std::vector<std::string> argv{kUringscope, "-i", "0.5", "--", kInject, "--linger", "1.2",
                                "hostile-names", "2"};
  const harness::Result live = harness::run(argv);
  ASSERT_EQ(live.status, 0) << live.err;
  expect_safe(live.out.substr(live.out.find("GROUND-TRUTH submit_calls")), "live intervals");
  expect_contains(live.out, kComm.visible.substr(0, 8), "live intervals");
}

// One output that cannot be written costs only itself: one line says so, the others are
// written, and the run exits 1.
TEST_F(HostileNames, AnOutputThatCannotBeWrittenCostsOnlyItself) {
  const std::string json = file("ok.json");
  const harness::Result r = run_under({"--folded=/proc/no-such-dir/x.folded", "--json=" + json});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("uringscope: --folded/--flamegraph was not written: cannot write "
                       "/proc/no-such-dir/x.folded"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "the attach line and that one:\n"
                                                              << r.err;
  EXPECT_NE(r.out.find("uringscope report"), std::string::npos) << "the text report is written";
  EXPECT_NO_THROW((void)nlohmann::json::parse(slurp(json))) << "the JSON report is written";
}

// Label values: the exposition's own syntax, with no control byte in the decoded value.
TEST_F(HostileNames, MetricsLabelsStayInTheExpositionFormat) {
  harness::Subprocess app({kInject, "--wait-signal", "--linger", "20", "hostile-names", "2"});
  ASSERT_TRUE(app.wait_for_output("READY", false, 10s));
  harness::Subprocess scope({kUringscope, "--files", "--metrics", "127.0.0.1:0", "-p",
                             std::to_string(app.pid()), "-d", "15"});
  ASSERT_TRUE(scope.wait_for_output("metrics at", true, 30s)) << scope.err();
  std::smatch port;
  const std::string announced = scope.err();
  ASSERT_TRUE(std::regex_search(announced, port, std::regex(R"(127\.0\.0\.1:([0-9]+)/metrics)")));
  app.signal(SIGUSR1);
  ASSERT_TRUE(app.wait_for_output("GROUND-TRUTH submit_calls", false, 30s));
  std::this_thread::sleep_for(300ms);
  const std::string body = uringscope::http_test::ok_body(
      uringscope::http_test::get_metrics(static_cast<uint16_t>(std::stoi(port[1])), 5s));
  scope.signal(SIGINT);
  scope.wait();
  app.signal(SIGKILL);
  app.wait(10s);

  ASSERT_FALSE(body.empty());
  expect_safe(body, "metrics");
  const std::regex sample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*",?)*\})? [^ ]+( [0-9]+)?$)");
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') EXPECT_TRUE(std::regex_match(line, sample)) << line;
  // The label holds the visible form; the exposition escapes its backslashes again.
  expect_contains(body, R"(comm="ev\\x1b[2J\\x07\\n\"\\\\\\xff\\u009b;")", "metrics");
}

// With -a, a hostile process beside another program changes nothing of that program's
// part: the run exits as without it, and the other program's counts are exact.
TEST_F(HostileNames, BesideAnAllRunItChangesNeitherStatusNorReports) {
  for (const bool beside : {false, true}) {
    SCOPED_TRACE(beside ? "with the hostile process" : "alone");
    harness::Subprocess clean({kInject, "--wait-signal", "--linger", "4", "clean", "2000"});
    ASSERT_TRUE(clean.wait_for_output("READY", false, 10s));
    std::optional<harness::Subprocess> hostile;
    if (beside) {
      hostile.emplace(std::vector<std::string>{kInject, "--wait-signal", "--linger", "4", "hostile-names", "2"});
      ASSERT_TRUE(hostile->wait_for_output("READY", false, 10s));
    }
    const std::string json = file(beside ? "beside.json" : "alone.json");
    harness::Subprocess scope({kUringscope, "-a", "-d", "2", "--files", "--fail-on=crit", "--json=" + json});
    ASSERT_TRUE(scope.wait_for_output("attached", true, harness::kAttachTimeout)) << scope.err();
    clean.signal(SIGUSR1);
    if (hostile) hostile->signal(SIGUSR1);
    const int status = scope.wait();
    EXPECT_EQ(clean.wait(), 0);
    if (hostile) EXPECT_EQ(hostile->wait(), 0);
    EXPECT_EQ(status, 0) << scope.err();
    expect_safe(scope.out(), "text report of -a");
    expect_safe(scope.err(), "stderr of -a");
    const nlohmann::json report = nlohmann::json::parse(slurp(json));
    const harness::GroundTruth gt = harness::parse_ground_truth(clean.out());
    const auto& ring = harness::ring_of(report, gt);
    const auto* nop = harness::find_op(ring.at("ops"), "NOP");
    ASSERT_NE(nop, nullptr);
    EXPECT_EQ(harness::num(*nop, "completed"), gt.number("op", "NOP", "completed"));
  }
}

}  // namespace
