// SPDX-License-Identifier: MIT
// The --metrics exposition against the rules of OpenMetrics 1.0 and the Prometheus 0.0.4
// text format. A small parser written here from the spec reads the renderer's output
// back; the expected numbers come from the hand-built snapshot below, never from a
// previous render.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "metrics/file_metrics.h"
#include "support/fixtures.h"
#include "metrics/accept.h"
#include "metrics/exposition.h"

namespace uringscope {
namespace {

constexpr uint32_t kRead = 22;
constexpr uint32_t kWrite = 23;
constexpr uint32_t kNop = 0;

// ---------------------------------------------------------------------------------------
// A strict little exposition parser.

struct Sample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // in order, unescaped
  std::string value_text;
  double value = 0;
  std::string family;

  std::string label(const std::string& key) const {
    for (const auto& [k, v] : labels)
      if (k == key) return v;
    return {};
  }
  bool has_label(const std::string& key) const {
    for (const auto& [k, v] : labels)
      if (k == key) return true;
    return false;
  }
  // Identity of the series: name and label set, order-independent.
  std::string series_key() const {
    std::map<std::string, std::string> sorted(labels.begin(), labels.end());
    std::string key = name;
    for (const auto& [k, v] : sorted) key += "\x1f" + k + "=" + v;
    return key;
  }
  // The series without `le`: one histogram's identity.
  std::string without_le() const {
    std::map<std::string, std::string> sorted;
    for (const auto& [k, v] : labels)
      if (k != "le") sorted[k] = v;
    std::string key;
    for (const auto& [k, v] : sorted) key += "\x1f" + k + "=" + v;
    return key;
  }
};

struct Family {
  std::string type;
  std::optional<std::string> unit;
  std::optional<std::string> help;
};

struct Exposition {
  std::map<std::string, Family> families;
  std::vector<std::string> family_order;
  std::vector<Sample> samples;
  std::vector<std::string> errors;
  bool eof = false;

  std::vector<const Sample*> named(const std::string& name) const {
    std::vector<const Sample*> out;
    for (const Sample& s : samples)
      if (s.name == name) out.push_back(&s);
    return out;
  }
  // The one sample with this name whose labels include all of `want`.
  const Sample* find(const std::string& name, const std::map<std::string, std::string>& want) const {
    const Sample* found = nullptr;
    for (const Sample& s : samples) {
      if (s.name != name) continue;
      bool match = true;
      for (const auto& [k, v] : want) match &= s.has_label(k) && s.label(k) == v;
      if (!match) continue;
      if (found) return nullptr;  // ambiguous
      found = &s;
    }
    return found;
  }
};

bool is_name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

bool valid_metric_name(const std::string& s) {
  if (s.empty() || !is_name_char(s[0], true)) return false;
  for (char c : s)
    if (!is_name_char(c, false)) return false;
  return true;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Which suffixes a sample of a family of this type may carry. In 0.0.4 a counter's
// metadata already names the sample (with _total) and there is no info type.
std::vector<std::string> allowed_suffixes(const std::string& type, bool openmetrics) {
  if (type == "counter") return openmetrics ? std::vector<std::string>{"_total", "_created"}
                                            : std::vector<std::string>{""};
  if (type == "histogram") return {"_bucket", "_count", "_sum"};
  if (type == "info") return {"_info"};
  return {""};
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

Exposition parse(const std::string& text, bool openmetrics) {
  Exposition e;
  auto error = [&](const std::string& line, const std::string& why) { e.errors.push_back(why + ": " + line); };
  if (text.empty() || text.back() != '\n') e.errors.push_back("exposition does not end in a line feed");
  if (text.find('\r') != std::string::npos) e.errors.push_back("carriage return in exposition");
  if (!valid_utf8(text)) e.errors.push_back("exposition is not valid UTF-8");

  std::string current;                     // family whose block we are in
  std::set<std::string> closed;            // families whose block ended (no interleaving)
  std::set<std::string> with_samples;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t lf = text.find('\n', pos);
    if (lf == std::string::npos) lf = text.size();
    const std::string line = text.substr(pos, lf - pos);
    pos = lf + 1;
    if (e.eof) {
      error(line, "line after # EOF");
      continue;
    }
    if (line.empty()) {
      error(line, "empty line");
      continue;
    }
    if (line[0] == '#') {
      if (line == "# EOF") {
        if (!openmetrics) error(line, "# EOF in the 0.0.4 format");
        e.eof = true;
        continue;
      }
      // "# KIND name rest"
      const std::size_t sp1 = line.find(' ', 2);
      if (line.size() < 2 || line[1] != ' ' || sp1 == std::string::npos) {
        error(line, "malformed comment");
        continue;
      }
      const std::string kind = line.substr(2, sp1 - 2);
      const std::size_t sp2 = line.find(' ', sp1 + 1);
      const std::string name = line.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
      const std::string rest = sp2 == std::string::npos ? "" : line.substr(sp2 + 1);
      if (!valid_metric_name(name)) error(line, "bad metric name");
      if (name != current) {
        if (!current.empty()) closed.insert(current);
        if (closed.count(name)) error(line, "family metadata after its block ended");
        current = name;
        if (!e.families.count(name)) e.family_order.push_back(name);
      }
      Family& f = e.families[name];
      if (with_samples.count(name)) error(line, "metadata after samples");
      if (kind == "TYPE") {
        if (!f.type.empty()) error(line, "second TYPE");
        if (f.unit || f.help) error(line, "TYPE is not the first metadata line");
        f.type = rest;
        static const std::set<std::string> om_types = {"counter", "gauge", "histogram", "gaugehistogram",
                                                       "stateset", "info", "summary", "unknown"};
        static const std::set<std::string> prom_types = {"counter", "gauge", "histogram", "summary", "untyped"};
        if (!(openmetrics ? om_types : prom_types).count(rest)) error(line, "unknown type");
      } else if (kind == "UNIT") {
        if (!openmetrics) error(line, "UNIT in the 0.0.4 format");
        if (f.unit) error(line, "second UNIT");
        if (f.help) error(line, "UNIT after HELP");
        f.unit = rest;
      } else if (kind == "HELP") {
        if (f.help) error(line, "second HELP");
        f.help = rest;
      } else {
        error(line, "unknown comment");
      }
      continue;
    }

    // sample: name [{labels}] SP value
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && is_name_char(line[i], i == 0)) ++i;
    s.name = line.substr(0, i);
    if (s.name.empty()) {
      error(line, "no metric name");
      continue;
    }
    bool ok = true;
    if (i < line.size() && line[i] == '{') {
      ++i;
      std::set<std::string> names;
      while (ok && i < line.size() && line[i] != '}') {
        std::size_t start = i;
        while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
        std::string lname = line.substr(start, i - start);
        if (lname.empty() || std::isdigit(static_cast<unsigned char>(lname[0]))) ok = false;
        if (!names.insert(lname).second) error(line, "repeated label name " + lname);
        if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') {
          ok = false;
          break;
        }
        i += 2;
        std::string value;
        while (ok && i < line.size() && line[i] != '"') {
          if (line[i] == '\\') {
            if (i + 1 >= line.size()) {
              ok = false;
              break;
            }
            const char esc = line[i + 1];
            if (esc == 'n') value += '\n';
            else if (esc == '\\') value += '\\';
            else if (esc == '"') value += '"';
            else ok = false;  // undefined escapes SHOULD NOT be used: we never emit them
            i += 2;
          } else {
            value += line[i++];
          }
        }
        if (i >= line.size()) ok = false;
        ++i;  // closing quote
        s.labels.emplace_back(lname, value);
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size() || line[i] != '}') ok = false;
      ++i;
    }
    if (!ok || i >= line.size() || line[i] != ' ') {
      error(line, "malformed sample");
      continue;
    }
    s.value_text = line.substr(i + 1);
    if (s.value_text.find(' ') != std::string::npos) error(line, "timestamp or trailing text");
    char* end = nullptr;
    s.value = std::strtod(s.value_text.c_str(), &end);
    if (s.value_text.empty() || *end != '\0') error(line, "value is not a number");

    // Which family: the current block's, if the name fits its type.
    std::string family;
    if (!current.empty() && e.families.count(current)) {
      for (const std::string& suffix : allowed_suffixes(e.families[current].type, openmetrics)) {
        if (s.name == current + suffix) family = current;
      }
    }
    if (family.empty()) {
      error(line, "sample outside its family's block, or with a suffix its type does not allow");
      continue;
    }
    s.family = family;
    with_samples.insert(family);
    e.samples.push_back(std::move(s));
  }
  if (openmetrics && !e.eof) e.errors.push_back("no # EOF");
  return e;
}

// ---------------------------------------------------------------------------------------
// The fixture: two rings, hand-picked numbers.

Histogram hist(std::map<std::size_t, uint64_t> buckets, uint64_t sum_ns) {
  Histogram h;
  for (const auto& [i, n] : buckets) h.buckets[i] = n;
  h.sum_ns = sum_ns;
  h.max_ns = sum_ns;
  return h;
}

// Ring 0: pid 100 "server" with READ and WRITE. Ring 1: pid 200 whose comm needs every
// escape, with NOP only; its latency samples include the open-ended top bucket.
Snapshot fixture() {
  Snapshot s;
  s.tool_version = "9.8.7";
  s.wall_ns = 2'500'000'000;  // 2.5 s
  s.kernel.release = "6.18.44";
  s.kernel.tier = Tier::Full;
  s.kernel.features = {{"submit", true, "io_uring_submit_req"}, {"short_write", false, "missing"}};
  s.leak.threshold_ns = 500'000'000;
  s.leak.oldest_ns = 0;
  s.tool.errno_full = 4;
  s.workers = {{200, 2}, {100, 7}};

  Ring r0;
  r0.id = 0;
  r0.pid = 100;
  r0.comm = "server";
  r0.fd = 5;
  r0.sq_entries = 64;
  r0.cq_entries = 128;
  OpStats read;
  read.opcode = kRead;
  read.submitted = 1000;
  read.completed = 998;
  read.punted = 300;
  read.punt_reasons = {.forced = 100, .hashed = 0, .regular_file = 150, .eagain = 50};
  read.errors = 7;
  read.errnos = {{9, 5}, {14, 2}};  // EBADF, EFAULT
  read.latency = hist({{10, 500}, {12, 400}, {20, 98}}, 1'234'567'891);  // 998 requests
  OpStats write;
  write.opcode = kWrite;
  write.submitted = 10;
  write.completed = 10;
  write.punted = 10;
  write.punt_reasons.hashed = 10;
  write.latency = hist({{15, 10}}, 400'000);
  r0.ops = {read, write};
  // As with_file_series() leaves them for --metrics-files 2: the two busiest rows.
  FileStats data = file_test::file_row("/db/data \"0\"", kRead, 900, 250, 7);
  data.bytes = 900 * 4096;
  data.latency = hist({{10, 500}, {12, 400}}, 1'000'000);
  FileStats log = file_test::file_row("/db/log", kWrite, 10, 10);
  log.bytes = 10 * 512;
  log.latency = hist({{15, 10}}, 400'000);
  r0.files = {data, log};
  r0.counters.enter_calls = 77;
  r0.counters.enter_submit_calls = 70;
  r0.counters.to_submit_sum = 1010;
  r0.counters.cq_overflows = 3;
  r0.counters.completions = 998 + 10 + 4;  // 4 CQEs without an op
  r0.counters.leaks_suspected = 1;

  Ring r1;
  r1.id = 1;
  r1.pid = 200;
  r1.comm = "a\"b\\c\nd";
  r1.fd = -1;
  r1.setup_flags = 2;  // SQPOLL
  OpStats nop;
  nop.opcode = kNop;
  nop.submitted = 5;
  nop.completed = 5;
  nop.latency = hist({{0, 1}, {38, 1}, {39, 3}}, 4'000'000'000'000);
  r1.ops = {nop};
  r1.counters.completions = 5;
  r1.counters.sqpoll_offcpu_ns = 1'500'000'000;  // 1.5 s
  r1.counters.local_task_work_max_lag_ns = 250'000;

  s.rings = {r0, r1};
  aggregate(s);
  return s;
}

// A later snapshot of the same run: everything grew.
Snapshot later_fixture() {
  Snapshot s = fixture();
  s.wall_ns = 3'500'000'000;
  s.rings[0].ops[0].submitted += 500;
  s.rings[0].ops[0].latency.buckets[5] += 17;
  s.rings[0].ops[0].latency.sum_ns += 17 * 40;
  OpStats fsync;
  fsync.opcode = 3;  // FSYNC: a new series
  fsync.submitted = 1;
  fsync.completed = 1;
  fsync.latency.buckets[25] = 1;
  fsync.latency.sum_ns = 40'000'000;
  s.rings[1].ops.push_back(fsync);
  aggregate(s);
  return s;
}

// A label carries a name in its visible form (util/untrusted_text.h), written out here for
// the fixture's one hostile comm.
std::string shown_comm(const std::string& comm) {
  return comm == "a\"b\\c\nd" ? R"(a"b\\c\nd)" : comm;
}

std::map<std::string, std::string> labels_of(const Ring& ring, const std::string& op) {
  std::map<std::string, std::string> l = {{"ring", std::to_string(ring.id)},
                                          {"pid", std::to_string(ring.pid)},
                                          {"comm", shown_comm(ring.comm)}};
  if (!op.empty()) l["op"] = op;
  return l;
}

double value_of(const Exposition& e, const std::string& name, const std::map<std::string, std::string>& labels) {
  const Sample* s = e.find(name, labels);
  EXPECT_NE(s, nullptr) << "no single sample " << name;
  return s ? s->value : std::nan("");
}

class OpenMetrics : public ::testing::Test {
 protected:
  Snapshot snap = fixture();
  std::string om_text = render_exposition(snap, ExpositionFormat::OpenMetrics);
  std::string prom_text = render_exposition(snap, ExpositionFormat::Prometheus004);
  Exposition om = parse(om_text, true);
  Exposition prom = parse(prom_text, false);
};

TEST_F(OpenMetrics, ParsesCleanlyInBothFormats) {
  EXPECT_TRUE(om.errors.empty()) << ::testing::PrintToString(om.errors);
  EXPECT_TRUE(prom.errors.empty()) << ::testing::PrintToString(prom.errors);
  EXPECT_FALSE(om.samples.empty());
  EXPECT_EQ(om.samples.size(), prom.samples.size());
}

TEST_F(OpenMetrics, EveryFamilyHasTypeAndHelpBeforeItsSamples) {
  for (const Exposition* e : {&om, &prom}) {
    for (const auto& [name, f] : e->families) {
      EXPECT_FALSE(f.type.empty()) << name;
      ASSERT_TRUE(f.help.has_value()) << name;
      EXPECT_FALSE(f.help->empty()) << name;
    }
    // The parser only attributes a sample to the family block it sits in, after the
    // metadata; every sample was attributed.
    for (const Sample& s : e->samples) EXPECT_TRUE(e->families.count(s.family)) << s.name;
  }
}

TEST_F(OpenMetrics, UnitsAreDeclaredAndMatchTheNameSuffix) {
  std::size_t with_unit = 0;
  for (const auto& [name, f] : om.families) {
    if (f.unit) {
      ++with_unit;
      EXPECT_TRUE(ends_with(name, "_" + *f.unit)) << name << " has unit " << *f.unit;
    }
    // A name that ends in a unit says so in UNIT.
    for (const char* unit : {"seconds", "bytes"}) {
      if (ends_with(name, std::string("_") + unit)) {
        EXPECT_EQ(f.unit.value_or(""), unit) << name;
      }
    }
  }
  EXPECT_GE(with_unit, 3u);
  ASSERT_TRUE(om.families.count("uringscope_request_latency_seconds"));
  EXPECT_EQ(om.families.at("uringscope_request_latency_seconds").unit, "seconds");
  EXPECT_EQ(om.families.at("uringscope_sqpoll_offcpu_seconds").unit, "seconds");
}

TEST_F(OpenMetrics, CountersEndInTotalAndTheirFamilyNamesDoNot) {
  std::size_t counters = 0;
  for (const auto& [name, f] : om.families) {
    if (f.type != "counter") continue;
    ++counters;
    EXPECT_FALSE(ends_with(name, "_total")) << name;
  }
  EXPECT_GE(counters, 20u);
  for (const Sample& s : om.samples) {
    if (om.families.at(s.family).type == "counter") {
      EXPECT_TRUE(ends_with(s.name, "_total")) << s.name;
    }
  }
  // 0.0.4 names a counter's metadata after its samples.
  for (const auto& [name, f] : prom.families) {
    if (f.type == "counter") {
      EXPECT_TRUE(ends_with(name, "_total")) << name;
    }
  }
  for (const Sample& s : prom.samples) {
    if (prom.families.at(s.family).type == "counter") {
      EXPECT_TRUE(ends_with(s.name, "_total")) << s.name;
    }
  }
}

TEST_F(OpenMetrics, SameSamplesInBothFormats) {
  // The formats differ in metadata only; the scraped series are the same.
  std::map<std::string, std::string> a, b;
  for (const Sample& s : om.samples) a[s.series_key()] = s.value_text;
  for (const Sample& s : prom.samples) b[s.series_key()] = s.value_text;
  EXPECT_EQ(a, b);
  // 0.0.4 has no info type: those become gauges of the same sample name.
  EXPECT_EQ(om.families.at("uringscope_build").type, "info");
  EXPECT_EQ(prom.families.at("uringscope_build_info").type, "gauge");
}

TEST_F(OpenMetrics, EofIsLastInOpenMetricsAndAbsentInTheTextFormat) {
  EXPECT_TRUE(om.eof);
  EXPECT_TRUE(ends_with(om_text, "\n# EOF\n"));
  EXPECT_EQ(prom_text.find("# EOF"), std::string::npos);
  EXPECT_FALSE(prom.eof);
  EXPECT_EQ(prom_text.find("# UNIT"), std::string::npos);
}

TEST_F(OpenMetrics, NoSeriesAppearsTwice) {
  for (const Exposition* e : {&om, &prom}) {
    std::set<std::string> seen;
    for (const Sample& s : e->samples) EXPECT_TRUE(seen.insert(s.series_key()).second) << s.series_key();
  }
}

TEST_F(OpenMetrics, LabelValuesAreEscapedAndReadBackExactly) {
  const Ring& r1 = snap.rings[1];
  // The parser unescapes \" \\ \n; the value read back must be the comm's visible form,
  // whose backslashes the exposition escapes once more.
  EXPECT_EQ(value_of(om, "uringscope_requests_submitted_total", labels_of(r1, "NOP")), 5);
  EXPECT_NE(om_text.find(R"(comm="a\"b\\\\c\\nd")"), std::string::npos);
  // The raw newline never reaches the text: every line is a whole sample or comment.
  EXPECT_EQ(om_text.find("a\"b"), std::string::npos);
}

TEST_F(OpenMetrics, PerFileSeriesCarryTheFileAndItsNumbers) {
  std::map<std::string, std::string> data = labels_of(snap.rings[0], "READ");
  data["file"] = "/db/data \"0\"";  // read back unescaped
  EXPECT_EQ(value_of(om, "uringscope_file_requests_total", data), 900);
  EXPECT_EQ(value_of(om, "uringscope_file_bytes_total", data), 900 * 4096);
  EXPECT_EQ(value_of(om, "uringscope_file_punted_total", data), 250);
  EXPECT_EQ(value_of(om, "uringscope_file_errors_total", data), 7);
  EXPECT_EQ(value_of(om, "uringscope_file_latency_seconds_count", data), 900);
  std::map<std::string, std::string> log = labels_of(snap.rings[0], "WRITE");
  log["file"] = "/db/log";
  EXPECT_EQ(value_of(om, "uringscope_file_bytes_total", log), 5120);
  EXPECT_EQ(om.named("uringscope_file_requests_total").size(), 2u);
}

TEST(OpenMetricsFiles, SeriesPerRingAreBoundedAndNoneByDefault) {
  Snapshot s = fixture();
  const std::string none = render_exposition(with_file_series(s, 0), ExpositionFormat::OpenMetrics);
  EXPECT_EQ(none.find("uringscope_file_"), std::string::npos);
  const Exposition one = parse(render_exposition(with_file_series(s, 1), ExpositionFormat::OpenMetrics), true);
  EXPECT_TRUE(one.errors.empty());
  ASSERT_EQ(one.named("uringscope_file_requests_total").size(), 1u);
  EXPECT_EQ(one.named("uringscope_file_requests_total")[0]->value, 900);  // the busiest row
}

TEST_F(OpenMetrics, InvalidUtf8AndControlsInACommAreShownEscaped) {
  Snapshot s = fixture();
  s.rings[0].comm = "ab\xff\xc3\x1b";  // a stray byte, a cut two-byte character, ESC
  const std::string text = render_exposition(s, ExpositionFormat::OpenMetrics);
  const Exposition e = parse(text, true);
  EXPECT_TRUE(e.errors.empty()) << ::testing::PrintToString(e.errors);
  EXPECT_NE(text.find(R"(comm="ab\\xff\\xc3\\x1b")"), std::string::npos);
  // Valid multi-byte text passes through untouched.
  s.rings[0].comm = "w\xC3\xB6rker";  // "wörker"
  EXPECT_NE(render_exposition(s, ExpositionFormat::OpenMetrics).find("comm=\"w\xC3\xB6rker\""),
            std::string::npos);
}

TEST_F(OpenMetrics, PerOpCountersHaveTheHandComputedValues) {
  const Ring& r0 = snap.rings[0];
  const Ring& r1 = snap.rings[1];
  EXPECT_EQ(value_of(om, "uringscope_requests_submitted_total", labels_of(r0, "READ")), 1000);
  EXPECT_EQ(value_of(om, "uringscope_requests_completed_total", labels_of(r0, "READ")), 998);
  EXPECT_EQ(value_of(om, "uringscope_requests_submitted_total", labels_of(r0, "WRITE")), 10);
  EXPECT_EQ(value_of(om, "uringscope_request_errors_total", labels_of(r0, "READ")), 7);
  EXPECT_EQ(value_of(om, "uringscope_requests_submitted_total", labels_of(r1, "NOP")), 5);

  auto with = [](std::map<std::string, std::string> l, const std::string& k, const std::string& v) {
    l[k] = v;
    return l;
  };
  const auto read = labels_of(r0, "READ");
  EXPECT_EQ(value_of(om, "uringscope_requests_punted_total", with(read, "reason", "forced")), 100);
  // A counter still at zero has no series yet.
  EXPECT_EQ(om.find("uringscope_requests_punted_total", with(read, "reason", "hashed")), nullptr);
  EXPECT_EQ(value_of(om, "uringscope_requests_punted_total", with(read, "reason", "regular_file")), 150);
  EXPECT_EQ(value_of(om, "uringscope_requests_punted_total", with(read, "reason", "eagain")), 50);
  EXPECT_EQ(value_of(om, "uringscope_requests_punted_total", with(labels_of(r0, "WRITE"), "reason", "hashed")), 10);
  EXPECT_EQ(value_of(om, "uringscope_request_errors_by_errno_total", with(read, "errno", "EBADF")), 5);
  EXPECT_EQ(value_of(om, "uringscope_request_errors_by_errno_total", with(read, "errno", "EFAULT")), 2);

  // Series carry exactly ring, pid, comm, op (plus the family's own label).
  const Sample* s = om.find("uringscope_requests_submitted_total", read);
  ASSERT_NE(s, nullptr);
  std::set<std::string> names;
  for (const auto& [k, v] : s->labels) names.insert(k);
  EXPECT_EQ(names, (std::set<std::string>{"ring", "pid", "comm", "op"}));
}

TEST_F(OpenMetrics, RingProcessAndToolFamiliesHaveTheHandComputedValues) {
  const Ring& r0 = snap.rings[0];
  const Ring& r1 = snap.rings[1];
  EXPECT_EQ(value_of(om, "uringscope_enter_calls_total", labels_of(r0, "")), 77);
  EXPECT_EQ(value_of(om, "uringscope_enter_submit_calls_total", labels_of(r0, "")), 70);
  EXPECT_EQ(value_of(om, "uringscope_cq_overflows_total", labels_of(r0, "")), 3);
  EXPECT_EQ(value_of(om, "uringscope_unattributed_completions_total", labels_of(r0, "")), 4);
  EXPECT_EQ(om.find("uringscope_unattributed_completions_total", labels_of(r1, "")), nullptr);
  EXPECT_EQ(value_of(om, "uringscope_leaks_suspected", labels_of(r0, "")), 1);
  EXPECT_DOUBLE_EQ(value_of(om, "uringscope_sqpoll_offcpu_seconds_total", labels_of(r1, "")), 1.5);
  EXPECT_DOUBLE_EQ(value_of(om, "uringscope_local_task_work_max_lag_seconds", labels_of(r1, "")), 0.00025);
  EXPECT_EQ(value_of(om, "uringscope_iowq_workers", {{"pid", "100"}}), 7);
  EXPECT_EQ(value_of(om, "uringscope_iowq_workers", {{"pid", "200"}}), 2);
  EXPECT_EQ(value_of(om, "uringscope_tool_losses_total", {{"kind", "errno_full"}}), 4);
  EXPECT_EQ(value_of(om, "uringscope_tool_losses_total", {{"kind", "rings_full"}}), 0);
  EXPECT_DOUBLE_EQ(value_of(om, "uringscope_window_seconds", {}), 2.5);
  EXPECT_DOUBLE_EQ(value_of(om, "uringscope_leak_age_threshold_seconds", {}), 0.5);
  EXPECT_EQ(value_of(om, "uringscope_rings", {}), 2);
  EXPECT_EQ(value_of(om, "uringscope_build_info", {{"version", "9.8.7"}}), 1);
  EXPECT_EQ(value_of(om, "uringscope_kernel_info", {{"release", "6.18.44"}, {"tier", "full"}}), 1);
  EXPECT_EQ(value_of(om, "uringscope_feature_enabled", {{"feature", "submit"}}), 1);
  EXPECT_EQ(value_of(om, "uringscope_feature_enabled", {{"feature", "short_write"}}), 0);
  // The fd is a ring_info label (it can be learnt late); unknown is empty.
  EXPECT_EQ(value_of(om, "uringscope_ring_info", {{"ring", "0"}, {"fd", "5"}, {"sq_entries", "64"}}), 1);
  EXPECT_EQ(value_of(om, "uringscope_ring_info", {{"ring", "1"}, {"fd", ""}, {"flags", "SQPOLL"}}), 1);
  // Info samples are always 1 (OpenMetrics).
  for (const Sample& s : om.samples) {
    if (om.families.at(s.family).type == "info") {
      EXPECT_EQ(s.value_text, "1") << s.name;
    }
  }
}

// One histogram series: its buckets (le text, cumulative count) in order, _count, _sum.
// Exposed buckets: 29 closed ones, kernel buckets kFirstExposedBucket..kLastExposedBucket,
// then +Inf. Exposed bucket j is kernel bucket j + kFirstExposedBucket.
constexpr std::size_t kExposedBuckets = kLastExposedBucket - kFirstExposedBucket + 2;

struct HistSeries {
  std::vector<std::pair<std::string, double>> buckets;
  std::optional<double> count, sum;
};

std::map<std::string, HistSeries> histograms(const Exposition& e, const std::string& family) {
  std::map<std::string, HistSeries> out;
  for (const Sample& s : e.samples) {
    if (s.family != family) continue;
    HistSeries& h = out[s.without_le()];
    if (s.name == family + "_bucket") {
      EXPECT_TRUE(s.has_label("le")) << s.name;
      EXPECT_FALSE(h.count || h.sum) << "bucket after _count/_sum";
      h.buckets.emplace_back(s.label("le"), s.value);
    } else if (s.name == family + "_count") {
      EXPECT_FALSE(h.count);
      h.count = s.value;
    } else if (s.name == family + "_sum") {
      EXPECT_FALSE(h.sum);
      h.sum = s.value;
    }
  }
  return out;
}

TEST_F(OpenMetrics, LatencyHistogramsFollowTheHistogramRules) {
  for (const Exposition* e : {&om, &prom}) {
    const auto hs = histograms(*e, "uringscope_request_latency_seconds");
    ASSERT_EQ(hs.size(), 3u);  // READ, WRITE on ring 0; NOP on ring 1
    for (const auto& [key, h] : hs) {
      ASSERT_EQ(h.buckets.size(), kExposedBuckets) << key;  // 29 closed buckets + +Inf
      EXPECT_EQ(h.buckets.back().first, "+Inf");
      double prev_le = -1, prev_count = 0;
      for (const auto& [le, n] : h.buckets) {
        const double bound = le == "+Inf" ? INFINITY : std::strtod(le.c_str(), nullptr);
        EXPECT_GT(bound, prev_le) << key << " le " << le;
        EXPECT_GE(n, prev_count) << key << " le " << le;  // cumulative
        prev_le = bound;
        prev_count = n;
      }
      ASSERT_TRUE(h.count && h.sum) << key;
      EXPECT_EQ(h.buckets.back().second, *h.count) << key;
    }
  }
}

TEST_F(OpenMetrics, LatencyValuesMatchTheSnapshotHistograms) {
  const auto hs = histograms(om, "uringscope_request_latency_seconds");
  auto series = [&](const Ring& ring, const std::string& op) {
    std::string key;
    for (const auto& [k, v] : labels_of(ring, op)) key += "\x1f" + k + "=" + v;
    EXPECT_TRUE(hs.count(key)) << op;
    return hs.count(key) ? hs.at(key) : HistSeries{};
  };
  // READ: 500 in bucket 10 [1024, 2048) ns, 400 in 12, 98 in 20.
  const HistSeries read = series(snap.rings[0], "READ");
  ASSERT_EQ(read.buckets.size(), kExposedBuckets);
  for (std::size_t j = 0; j + 1 < kExposedBuckets; ++j) {
    const std::size_t i = j + kFirstExposedBucket;
    const double expected = i < 10 ? 0 : i < 12 ? 500 : i < 20 ? 900 : 998;
    EXPECT_EQ(read.buckets[j].second, expected) << "bucket " << i;
  }
  EXPECT_EQ(*read.count, 998);
  EXPECT_DOUBLE_EQ(*read.sum, 1.234567891);
  // NOP: one sample at 0 ns, counted from the first exposed bucket (le 256 ns) on; one in
  // bucket 38 and three beyond 2^39 ns, past the last exposed bound (68.7 s): only in +Inf.
  const HistSeries nop = series(snap.rings[1], "NOP");
  ASSERT_EQ(nop.buckets.size(), kExposedBuckets);
  EXPECT_EQ(nop.buckets[0].first, "2.56e-07");
  for (std::size_t j = 0; j + 1 < kExposedBuckets; ++j) EXPECT_EQ(nop.buckets[j].second, 1) << j;
  EXPECT_EQ(nop.buckets[kExposedBuckets - 2].first, "68.719476736");
  EXPECT_EQ(nop.buckets.back().second, 5);
  EXPECT_EQ(*nop.count, 5);
  EXPECT_DOUBLE_EQ(*nop.sum, 4000.0);
  const HistSeries write = series(snap.rings[0], "WRITE");
  EXPECT_DOUBLE_EQ(write.sum.value_or(-1), 0.0004);
}

TEST_F(OpenMetrics, TheBucketSetIsFixedAcrossSeriesAndScrapes) {
  // The le values are exactly 2^(i+1) ns in seconds, i = 7..35, then +Inf.
  std::vector<std::string> expected_le;
  for (std::size_t i = kFirstExposedBucket; i <= kLastExposedBucket; ++i) {
    const std::string le = latency_bucket_le(i);
    EXPECT_EQ(std::strtod(le.c_str(), nullptr), std::ldexp(1.0, static_cast<int>(i) + 1) / 1e9) << le;
    expected_le.push_back(le);
  }
  expected_le.push_back("+Inf");
  const Snapshot later = later_fixture();
  for (const ExpositionFormat f : {ExpositionFormat::OpenMetrics, ExpositionFormat::Prometheus004}) {
    for (const Snapshot* s : {static_cast<const Snapshot*>(&snap), &later}) {
      const Exposition e = parse(render_exposition(*s, f), f == ExpositionFormat::OpenMetrics);
      const auto hs = histograms(e, "uringscope_request_latency_seconds");
      EXPECT_EQ(hs.size(), s == &snap ? 3u : 4u);
      for (const auto& [key, h] : hs) {
        std::vector<std::string> le;
        for (const auto& [text, n] : h.buckets) le.push_back(text);
        EXPECT_EQ(le, expected_le) << key;
      }
    }
  }
}

TEST_F(OpenMetrics, LeValuesUseTheCanonicalRendering) {
  // OpenMetrics "Canonical Numbers": Go's %g, exponent below 1e-4, ".0" never needed here
  // (2^k / 1e9 is never a whole number).
  EXPECT_EQ(latency_bucket_le(0), "2e-09");
  EXPECT_EQ(latency_bucket_le(3), "1.6e-08");
  EXPECT_EQ(latency_bucket_le(9), "1.024e-06");
  EXPECT_EQ(latency_bucket_le(15), "6.5536e-05");
  EXPECT_EQ(latency_bucket_le(16), "0.000131072");
  EXPECT_EQ(latency_bucket_le(29), "1.073741824");
  EXPECT_EQ(latency_bucket_le(38), "549.755813888");
}

TEST_F(OpenMetrics, RenderingIsDeterministic) {
  EXPECT_EQ(render_exposition(snap, ExpositionFormat::OpenMetrics), om_text);
  EXPECT_EQ(render_exposition(snap, ExpositionFormat::Prometheus004), prom_text);
}

TEST_F(OpenMetrics, CountersOnlyGrowBetweenScrapesOfOneRun) {
  const Exposition later = parse(render_exposition(later_fixture(), ExpositionFormat::OpenMetrics), true);
  ASSERT_TRUE(later.errors.empty()) << ::testing::PrintToString(later.errors);
  std::map<std::string, double> before;
  for (const Sample& s : om.samples) before[s.series_key()] = s.value;
  for (const Sample& s : later.samples) {
    const std::string& type = later.families.at(s.family).type;
    if (type != "counter" && type != "histogram") continue;
    if (auto it = before.find(s.series_key()); it != before.end()) {
      EXPECT_GE(s.value, it->second) << s.series_key();
    }
  }
  EXPECT_EQ(value_of(later, "uringscope_requests_submitted_total", labels_of(snap.rings[0], "READ")), 1500);
}

TEST_F(OpenMetrics, OneSeriesPerOpcodeEvenWhenTheSnapshotRepeatsOne) {
  // The catch-all row and the out-of-range slot are both OTHER (79): one series, summed.
  Snapshot s = fixture();
  OpStats a, b;
  a.opcode = b.opcode = 79;
  a.submitted = 3;
  b.submitted = 4;
  a.latency.buckets[4] = 3;
  b.latency.buckets[4] = 4;
  s.rings[1].ops.push_back(a);
  s.rings[1].ops.push_back(b);
  const Exposition e = parse(render_exposition(s, ExpositionFormat::OpenMetrics), true);
  EXPECT_TRUE(e.errors.empty()) << ::testing::PrintToString(e.errors);
  EXPECT_EQ(value_of(e, "uringscope_requests_submitted_total", labels_of(s.rings[1], "OTHER")), 7);
  std::set<std::string> seen;
  for (const Sample& x : e.samples) EXPECT_TRUE(seen.insert(x.series_key()).second) << x.series_key();
}

TEST_F(OpenMetrics, AnEmptySnapshotIsStillAValidExposition) {
  Snapshot empty;
  for (const ExpositionFormat f : {ExpositionFormat::OpenMetrics, ExpositionFormat::Prometheus004}) {
    const Exposition e = parse(render_exposition(empty, f), f == ExpositionFormat::OpenMetrics);
    EXPECT_TRUE(e.errors.empty()) << ::testing::PrintToString(e.errors);
    // The families are described even before they have series.
    EXPECT_TRUE(e.families.count("uringscope_request_latency_seconds"));
    EXPECT_EQ(value_of(e, "uringscope_rings", {}), 0);
  }
}

TEST_F(OpenMetrics, BoundaryFamiliesComeWithTheBoundaryOnly) {
  EXPECT_FALSE(om.families.count("uringscope_cq_reap_lag_seconds"));
  EXPECT_FALSE(om.families.count("uringscope_cq_depth_max"));
  Snapshot s = fixture();
  s.boundary_measured = true;
  RingBoundary& b = s.rings[0].boundary;
  b.cq_depth_samples = 10;
  b.cq_depth_sum = 35;
  b.cq_depth_max = 6;
  b.reap_lag.buckets[20] = 3;  // [2^20, 2^21) ns
  b.reap_lag.sum_ns = 3'000'000;
  b.reap_lag.max_ns = 1'500'000;
  for (const ExpositionFormat f : {ExpositionFormat::OpenMetrics, ExpositionFormat::Prometheus004}) {
    const Exposition e = parse(render_exposition(s, f), f == ExpositionFormat::OpenMetrics);
    EXPECT_TRUE(e.errors.empty()) << ::testing::PrintToString(e.errors);
    EXPECT_EQ(value_of(e, "uringscope_cq_depth_samples_total", labels_of(s.rings[0], "")), 10);
    EXPECT_EQ(value_of(e, "uringscope_cq_depth_sum_total", labels_of(s.rings[0], "")), 35);
    EXPECT_EQ(value_of(e, "uringscope_cq_depth_max", labels_of(s.rings[0], "")), 6);
    EXPECT_EQ(value_of(e, "uringscope_cq_depth_max", labels_of(s.rings[1], "")), 0);
    const auto hs = histograms(e, "uringscope_cq_reap_lag_seconds");
    ASSERT_EQ(hs.size(), 2u);  // one per ring, idle ones too: the same series every scrape
    std::string key;
    for (const auto& [k, v] : labels_of(s.rings[0], "")) key += "\x1f" + k + "=" + v;
    ASSERT_TRUE(hs.count(key));
    const HistSeries& h = hs.at(key);
    ASSERT_EQ(h.buckets.size(), kExposedBuckets);
    EXPECT_EQ(h.buckets[19 - kFirstExposedBucket].second, 0);
    EXPECT_EQ(h.buckets[20 - kFirstExposedBucket].second, 3);
    EXPECT_EQ(*h.count, 3);
    EXPECT_DOUBLE_EQ(*h.sum, 0.003);
  }
}

TEST_F(OpenMetrics, SqWaitHasSeriesForSqpollRingsOnly) {
  Snapshot s = fixture();
  s.boundary_measured = true;
  std::size_t sqpoll_rings = 0;
  const Ring* sqpoll = nullptr;
  for (Ring& r : s.rings) {
    if (!r.sqpoll()) continue;
    ++sqpoll_rings;
    sqpoll = &r;
    r.boundary.sq_wait.buckets[25] = 4;  // [2^25, 2^26) ns: 33-67 ms
    r.boundary.sq_wait.sum_ns = 200'000'000;
    r.boundary.sq_wait.max_ns = 50'000'000;
  }
  ASSERT_NE(sqpoll, nullptr) << "the fixture has an SQPOLL ring";
  ASSERT_LT(sqpoll_rings, s.rings.size()) << "and one without";
  for (const ExpositionFormat f : {ExpositionFormat::OpenMetrics, ExpositionFormat::Prometheus004}) {
    const Exposition e = parse(render_exposition(s, f), f == ExpositionFormat::OpenMetrics);
    EXPECT_TRUE(e.errors.empty()) << ::testing::PrintToString(e.errors);
    const auto hs = histograms(e, "uringscope_sq_wait_seconds");
    ASSERT_EQ(hs.size(), sqpoll_rings);
    std::string key;
    for (const auto& [k, v] : labels_of(*sqpoll, "")) key += "\x1f" + k + "=" + v;
    ASSERT_TRUE(hs.count(key));
    EXPECT_EQ(hs.at(key).buckets[25].second, 4);
    EXPECT_EQ(*hs.at(key).count, 4);
    EXPECT_DOUBLE_EQ(*hs.at(key).sum, 0.2);
  }
}

TEST_F(OpenMetrics, FamiliesAreNotInterleaved) {
  // The parser rejects a family's metadata or samples after another family began; check
  // the family order is one block each and that every family has samples or is empty.
  std::set<std::string> seen;
  for (const std::string& name : om.family_order) EXPECT_TRUE(seen.insert(name).second) << name;
  std::string last;
  std::set<std::string> finished;
  for (const Sample& s : om.samples) {
    if (s.family != last) {
      EXPECT_FALSE(finished.count(s.family)) << s.family << " interleaved";
      if (!last.empty()) finished.insert(last);
      last = s.family;
    }
  }
}

// The checks above are only as good as the parser: it must reject what the spec forbids.
TEST(ExpositionParser, RejectsWhatTheSpecForbids) {
  const std::string good = "# TYPE a counter\n# HELP a x\na_total 1\n# EOF\n";
  EXPECT_TRUE(parse(good, true).errors.empty()) << ::testing::PrintToString(parse(good, true).errors);
  const char* bad[] = {
      "# TYPE a counter\n# HELP a x\na_total 1\n",                        // no EOF
      "# TYPE a counter\n# HELP a x\na 1\n# EOF\n",                      // counter without _total
      "# HELP a x\n# TYPE a counter\na_total 1\n# EOF\n",                // TYPE not first
      "# TYPE a counter\na_total 1\n# HELP a x\n# EOF\n",                // metadata after samples
      "# TYPE a gauge\n# HELP a x\na 1\n# TYPE b gauge\n# HELP b x\nb 1\na 2\n# EOF\n",  // interleaved
      "# TYPE a gauge\n# HELP a x\na{l=\"x\\q\"} 1\n# EOF\n",         // undefined escape
      "# TYPE a gauge\n# HELP a x\na{l=\"x\",l=\"y\"} 1\n# EOF\n",      // repeated label
      "# TYPE a gauge\n# HELP a x\na 1\n# EOF\nb 1\n",                  // after EOF
      "# TYPE a gauge\n# HELP a x\na one\n# EOF\n",                      // not a number
      "# TYPE a gauge\n# HELP a x\n# note\na 1\n# EOF\n",               // stray comment
      "# TYPE a gauge\n# HELP a x\na 1\r\n# EOF\n",                     // CR
      "# TYPE a gauge\n# HELP a x\na{l=\"\xff\"} 1\n# EOF\n",          // not UTF-8
  };
  for (const char* text : bad) EXPECT_FALSE(parse(text, true).errors.empty()) << text;
  // 0.0.4: no EOF, no UNIT, counters named with _total in TYPE.
  EXPECT_TRUE(parse("# TYPE a_total counter\n# HELP a_total x\na_total 1\n", false).errors.empty());
  EXPECT_FALSE(parse("# TYPE a_total counter\n# HELP a_total x\na_total 1\n# EOF\n", false).errors.empty());
  EXPECT_FALSE(parse("# TYPE a_s gauge\n# UNIT a_s s\n# HELP a_s x\na_s 1\n", false).errors.empty());
}

// --- content negotiation ---------------------------------------------------------------

TEST(Negotiation, AbsentOrPlainAcceptGetsTheTextFormat) {
  EXPECT_EQ(negotiate_format(""), ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("*/*"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("text/plain"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("application/json"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("text/plain;version=0.0.4;q=1,*/*;q=0.1"), ExpositionFormat::Prometheus004);
}

TEST(Negotiation, ScrapersThatAskForOpenMetricsGetIt) {
  // What Prometheus 2.x sends.
  EXPECT_EQ(negotiate_format("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                             "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            ExpositionFormat::OpenMetrics);
  EXPECT_EQ(negotiate_format("application/openmetrics-text; version=0.0.1,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            ExpositionFormat::OpenMetrics);
  EXPECT_EQ(negotiate_format("application/openmetrics-text"), ExpositionFormat::OpenMetrics);
  EXPECT_EQ(negotiate_format("Application/OpenMetrics-Text; Version=1.0.0"), ExpositionFormat::OpenMetrics);
}

TEST(Negotiation, QValuesAndVersionsDecide) {
  EXPECT_EQ(negotiate_format("application/openmetrics-text;q=0.3,text/plain;q=0.9"),
            ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("application/openmetrics-text;q=0"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("application/openmetrics-text;q=0,*/*"), ExpositionFormat::Prometheus004);
  // A version we do not produce is not a match.
  EXPECT_EQ(negotiate_format("application/openmetrics-text;version=2.0.0"), ExpositionFormat::Prometheus004);
  // A malformed q never makes a range preferred.
  EXPECT_EQ(negotiate_format("application/openmetrics-text;q=banana"), ExpositionFormat::Prometheus004);
  EXPECT_EQ(negotiate_format("text/plain;q=0.5, application/openmetrics-text;q=0.6"), ExpositionFormat::OpenMetrics);
}

TEST(Negotiation, ContentTypes) {
  EXPECT_EQ(content_type(ExpositionFormat::OpenMetrics), "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(content_type(ExpositionFormat::Prometheus004), "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace
}  // namespace uringscope
