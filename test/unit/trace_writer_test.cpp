// SPDX-License-Identifier: MIT
// --trace writer: synthetic record sequences in, the JSON document parsed back with
// nlohmann::json. Expected values are worked out by hand from docs/trace.md: ts is
// microseconds since the first record written (exact to the ns, three decimals), ring
// tracks are tid 0x40000000 + row, markers last 1 us (0 when they start inside the
// previous marker of their track), async ids and flow ids are request serial numbers
// from 1. Every test also runs check_invariants(), the properties any trace must have.
#include "trace/trace_writer.h"
#include "trace/reorder.h"

#include <gtest/gtest.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "util/error.h"

namespace uringscope {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr uint32_t kRingTid = 0x40000000;
constexpr uint32_t kPid = 100;
constexpr uint32_t kWorker = 101;
constexpr uint8_t kOpRead = 22;
constexpr uint8_t kOpPollAdd = 6;
constexpr uint8_t kOpSendZc = 47;
constexpr uint32_t kMore = IORING_CQE_F_MORE;
constexpr uint32_t kNotif = 1u << 3;  // IORING_CQE_F_NOTIF

// ---- records ---------------------------------------------------------------------------

us_trace_event rec(us_trace_kind kind, uint64_t ts, uint64_t req, uint64_t user_data,
                   uint32_t tid = kPid, const char* comm = "app") {
  us_trace_event e{};
  e.kind = static_cast<__u16>(kind);
  e.ts = ts;
  e.req = req;
  e.user_data = user_data;
  e.ring = 1;
  e.tgid = kPid;
  e.tid = tid;
  e.opcode = kOpRead;
  std::strncpy(e.comm, comm, sizeof e.comm);
  return e;
}
us_trace_event submit(uint64_t ts, uint64_t req, uint64_t ud, uint8_t op = kOpRead) {
  us_trace_event e = rec(US_TR_SUBMIT, ts, req, ud);
  e.opcode = op;
  return e;
}
us_trace_event complete(uint64_t ts, uint64_t req, uint64_t ud, int32_t res, uint32_t cflags = 0,
                        uint32_t cq_depth = 1, uint32_t tid = kPid, const char* comm = "app") {
  us_trace_event e = rec(US_TR_COMPLETE, ts, req, ud, tid, comm);
  e.res = res;
  e.cflags = cflags;
  e.aux = cq_depth;
  return e;
}

// ---- files -----------------------------------------------------------------------------

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "uringscope-trace-XXXXXX").string();
    if (mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// Integer nanoseconds from a ts/dur in microseconds, so comparisons are exact.
int64_t ns(const Json& us) { return std::llround(us.get<double>() * 1000.0); }

struct Trace {
  Json doc;
  std::vector<Json> events;

  std::vector<Json> ph(const std::string& p) const {
    std::vector<Json> out;
    for (const Json& e : events)
      if (e.at("ph") == p) out.push_back(e);
    return out;
  }
  std::vector<Json> named(const std::string& p, const std::string& name) const {
    std::vector<Json> out;
    for (const Json& e : ph(p))
      if (e.at("name") == name) out.push_back(e);
    return out;
  }
  // Values of one counter in file order (the writer emits in time order).
  std::vector<int64_t> counter(const std::string& name, const std::string& key) const {
    std::vector<int64_t> out;
    for (const Json& e : named("C", name)) out.push_back(e.at("args").at(key).get<int64_t>());
    return out;
  }
  std::string thread_name(uint32_t pid, uint32_t tid) const {
    std::string name;
    for (const Json& e : named("M", "thread_name"))
      if (e.at("pid") == pid && e.at("tid") == tid) name = e.at("args").at("name");
    return name;
  }
  std::string process_name(uint32_t pid) const {
    std::string name;
    for (const Json& e : named("M", "process_name"))
      if (e.at("pid") == pid) name = e.at("args").at("name");
    return name;
  }
};

// The properties every trace must have, whatever went in.
void check_invariants(const Trace& t) {
  ASSERT_TRUE(t.doc.is_object());
  EXPECT_EQ(t.doc.at("displayTimeUnit"), "ns");
  ASSERT_TRUE(t.doc.at("otherData").is_object());

  for (const Json& e : t.events) {
    ASSERT_TRUE(e.contains("ph")) << e;
    // Global instants (the drop markers) belong to no process.
    if (!(e.at("ph") == "i" && e.value("s", "") == "g")) {
      ASSERT_TRUE(e.contains("pid")) << e;
    }
    if (e.at("ph") != "M") {
      ASSERT_TRUE(e.contains("ts")) << e;
      EXPECT_GE(e.at("ts").get<double>(), 0.0) << e;
    }
  }

  // Every async begin has exactly one end with the same (cat, id, pid), not before it,
  // and its instants fall inside.
  using Key = std::tuple<std::string, uint64_t, uint32_t>;
  auto key = [](const Json& e) {
    return Key{e.at("cat"), e.at("id").get<uint64_t>(), e.at("pid").get<uint32_t>()};
  };
  std::map<Key, int64_t> begins, ends;
  for (const Json& e : t.ph("b")) {
    EXPECT_TRUE(begins.emplace(key(e), ns(e.at("ts"))).second) << "duplicate begin " << e;
  }
  for (const Json& e : t.ph("e")) {
    EXPECT_TRUE(ends.emplace(key(e), ns(e.at("ts"))).second) << "duplicate end " << e;
    auto b = begins.find(key(e));
    ASSERT_NE(b, begins.end()) << "end without begin " << e;
    EXPECT_GE(ns(e.at("ts")), b->second) << e;
  }
  EXPECT_EQ(begins.size(), ends.size()) << "every begin has its end";
  for (const Json& n : t.ph("n")) {
    auto b = begins.find(key(n));
    auto e = ends.find(key(n));
    ASSERT_TRUE(b != begins.end() && e != ends.end()) << n;
    EXPECT_GE(ns(n.at("ts")), b->second) << n;
    EXPECT_LE(ns(n.at("ts")), e->second) << n;
  }

  // X markers of one track nest: a slice never ends after the one it starts in.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<int64_t, int64_t>>> tracks;
  for (const Json& x : t.ph("X"))
    tracks[{x.at("pid"), x.at("tid")}].push_back({ns(x.at("ts")), ns(x.at("dur"))});
  for (auto& [track, xs] : tracks) {
    std::stable_sort(xs.begin(), xs.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<int64_t> stack;
    for (auto [start, dur] : xs) {
      while (!stack.empty() && stack.back() <= start) stack.pop_back();
      if (!stack.empty()) {
        EXPECT_LE(start + dur, stack.back()) << "misnested marker";
      }
      stack.push_back(start + dur);
    }
  }

  // Flows: one s, one f, any t per id, in time order, each on an X marker that starts at
  // the same ts on the same thread, so viewers bind the arrow to it.
  std::set<std::tuple<uint32_t, uint32_t, int64_t>> marker_starts;
  for (const Json& x : t.ph("X"))
    marker_starts.insert(
        {x.at("pid").get<uint32_t>(), x.at("tid").get<uint32_t>(), ns(x.at("ts"))});
  std::map<uint64_t, std::vector<Json>> flows;
  for (const Json& e : t.events) {
    const std::string p = e.at("ph");
    if (p == "s" || p == "t" || p == "f") flows[e.at("id").get<uint64_t>()].push_back(e);
  }
  for (const auto& [id, fs] : flows) {
    int s = 0, f = 0;
    int64_t last = -1;
    for (const Json& e : fs) {
      s += e.at("ph") == "s";
      f += e.at("ph") == "f";
      EXPECT_EQ(e.at("cat"), "io_uring");
      EXPECT_GE(ns(e.at("ts")), last) << "flow " << id << " goes back in time";
      last = ns(e.at("ts"));
      EXPECT_TRUE(marker_starts.count(
          {e.at("pid").get<uint32_t>(), e.at("tid").get<uint32_t>(), ns(e.at("ts"))}))
          << "flow point without a marker: " << e;
      if (e.at("ph") == "f") {
        EXPECT_EQ(e.at("bp"), "e");
      }
    }
    EXPECT_EQ(s, 1) << "flow " << id;
    EXPECT_EQ(f, 1) << "flow " << id;
    EXPECT_EQ(fs.front().at("ph"), "s");
    EXPECT_EQ(fs.back().at("ph"), "f");
    EXPECT_TRUE(begins.count(Key{"io_uring", id, fs.front().at("pid")}))
        << "a flow belongs to a request";
  }

  // Counters never go negative; every thread with slices has a name.
  for (const Json& c : t.ph("C"))
    for (const auto& [k, v] : c.at("args").items()) EXPECT_GE(v.get<int64_t>(), 0) << c;
  std::set<std::pair<uint32_t, uint32_t>> named;
  for (const Json& m : t.named("M", "thread_name"))
    if (!m.at("args").at("name").get<std::string>().empty())
      named.insert({m.at("pid").get<uint32_t>(), m.at("tid").get<uint32_t>()});
  for (const Json& x : t.events)
    if ((x.at("ph") == "X" || x.at("ph") == "i") && x.contains("tid")) {
      EXPECT_TRUE(named.count({x.at("pid").get<uint32_t>(), x.at("tid").get<uint32_t>()}))
          << "unnamed " << x;
    }
}

Trace load(const std::string& path) {
  std::ifstream in(path);
  Trace t;
  t.doc = Json::parse(in);  // throws on invalid JSON: the test fails
  for (const Json& e : t.doc.at("traceEvents")) t.events.push_back(e);
  return t;
}

// Writes the records, finishes at end_ns, parses and checks the invariants.
Trace run(const std::string& path, const std::vector<us_trace_event>& records, uint64_t end_ns,
          TraceStats* stats = nullptr,
          std::map<uint32_t, std::string> names = {{1, "ring #0 fd=5 (app)"}}) {
  {
    TraceWriter w(path);
    for (const us_trace_event& e : records) w.add(e);
    w.finish(end_ns, names);
    if (stats) *stats = w.stats();
  }
  Trace t = load(path);
  check_invariants(t);
  return t;
}

// ---- tests -----------------------------------------------------------------------------

TEST(TraceWriter, SimpleRequest) {
  TempDir dir;
  TraceStats st;
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xA0, 0x2a), complete(5'000, 0xA0, 0x2a, 4096, 0, 1)}, 10'000, &st);
  EXPECT_EQ(st.events, 2u);
  EXPECT_EQ(st.requests, 1u);
  EXPECT_EQ(st.unmatched, 0u);
  EXPECT_EQ(st.still_open, 0u);

  auto b = t.ph("b"), e = t.ph("e");
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(b[0].at("name"), "READ");
  EXPECT_EQ(b[0].at("cat"), "io_uring");
  EXPECT_EQ(b[0].at("id"), 1);
  EXPECT_EQ(b[0].at("pid"), kPid);
  EXPECT_EQ(ns(b[0].at("ts")), 0);  // the first record is time zero
  EXPECT_EQ(b[0].at("args").at("user_data"), "0x2a");
  EXPECT_EQ(ns(e[0].at("ts")), 4'000);
  EXPECT_EQ(e[0].at("args").at("res"), 4096);
  EXPECT_FALSE(e[0].at("args").contains("errno"));

  // Submit marker on the ring track, CQE marker on the completing thread.
  auto submits = t.named("X", "submit READ");
  ASSERT_EQ(submits.size(), 1u);
  EXPECT_EQ(submits[0].at("tid"), kRingTid + 1);
  EXPECT_EQ(ns(submits[0].at("dur")), 1'000);
  auto cqes = t.named("X", "CQE READ");
  ASSERT_EQ(cqes.size(), 1u);
  EXPECT_EQ(cqes[0].at("tid"), kPid);
  EXPECT_EQ(ns(cqes[0].at("ts")), 4'000);
  EXPECT_EQ(cqes[0].at("args").at("res"), 4096);

  // Flow submit -> complete.
  auto s = t.ph("s"), f = t.ph("f");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(t.ph("t").empty());
  EXPECT_EQ(s[0].at("id"), 1);
  EXPECT_EQ(s[0].at("tid"), kRingTid + 1);
  EXPECT_EQ(f[0].at("tid"), kPid);

  EXPECT_EQ(t.counter("ring[1] in flight", "requests"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(t.counter("ring[1] CQ depth", "CQEs"), (std::vector<int64_t>{1}));

  EXPECT_EQ(t.thread_name(kPid, kRingTid + 1), "ring[1] = ring #0 fd=5 (app)");
  EXPECT_EQ(t.thread_name(kPid, kPid), "app");
  EXPECT_EQ(t.process_name(kPid), "app");

  const Json& other = t.doc.at("otherData");
  EXPECT_EQ(other.at("tool"), "uringscope");
  EXPECT_EQ(other.at("ts_base_ns"), 1'000);
  EXPECT_EQ(other.at("finished"), true);
  EXPECT_EQ(other.at("requests"), 1);
  EXPECT_EQ(other.at("dropped_records"), 0);
}

TEST(TraceWriter, OverlappingRequestsOnOneRing) {
  TempDir dir;
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xA1, 1), submit(1'100, 0xA2, 2), submit(1'200, 0xA3, 3),
                 complete(3'000, 0xA2, 2, 0, 0, 1), complete(3'500, 0xA1, 1, 0, 0, 2),
                 complete(4'000, 0xA3, 3, 0, 0, 3)},
                10'000);
  auto b = t.ph("b");
  ASSERT_EQ(b.size(), 3u);
  std::set<uint64_t> ids;
  for (const Json& e : b) ids.insert(e.at("id").get<uint64_t>());
  EXPECT_EQ(ids, (std::set<uint64_t>{1, 2, 3}));
  // Each end carries its own request: user_data 2 ends first, at 2.0 us.
  std::map<uint64_t, int64_t> end_of;
  for (const Json& e : t.ph("e")) end_of[e.at("id")] = ns(e.at("ts"));
  EXPECT_EQ(end_of, (std::map<uint64_t, int64_t>{{1, 2'500}, {2, 2'000}, {3, 3'000}}));

  EXPECT_EQ(t.counter("ring[1] in flight", "requests"), (std::vector<int64_t>{1, 2, 3, 2, 1, 0}));
  EXPECT_EQ(t.counter("ring[1] CQ depth", "CQEs"), (std::vector<int64_t>{1, 2, 3}));

  // Submits 100 ns apart: the first marker is 1 us long, the next two start inside it
  // and get zero length, so the track nests instead of overlapping.
  auto submits = t.named("X", "submit READ");
  ASSERT_EQ(submits.size(), 3u);
  EXPECT_EQ(ns(submits[0].at("dur")), 1'000);
  EXPECT_EQ(ns(submits[1].at("dur")), 0);
  EXPECT_EQ(ns(submits[2].at("dur")), 0);
  EXPECT_EQ(t.ph("s").size(), 3u);
  EXPECT_EQ(t.ph("f").size(), 3u);
}

TEST(TraceWriter, PuntedRequestFlowsThroughTheWorker) {
  TempDir dir;
  us_trace_event punt = rec(US_TR_PUNT, 1'500, 0xA0, 7);
  punt.aux = US_OC_PUNT_HASHED;
  us_trace_event issue = rec(US_TR_ISSUE, 2'000, 0xA0, 7, kWorker, "iou-wrk-100");
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xA0, 7), punt, issue,
                 complete(9'000, 0xA0, 7, 512, 0, 1, kWorker, "iou-wrk-100")},
                10'000);

  // Three slices: submit on the ring track, issue and CQE on the worker.
  auto xs = t.ph("X");
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_EQ(xs[0].at("name"), "submit READ");
  EXPECT_EQ(xs[0].at("tid"), kRingTid + 1);
  EXPECT_EQ(xs[1].at("name"), "issue READ");
  EXPECT_EQ(xs[1].at("tid"), kWorker);
  EXPECT_EQ(ns(xs[1].at("ts")), 1'000);
  EXPECT_EQ(xs[2].at("name"), "CQE READ");
  EXPECT_EQ(xs[2].at("tid"), kWorker);
  EXPECT_EQ(ns(xs[2].at("ts")), 8'000);

  // The flow: s on the submit marker, t on the issue marker, f on the CQE marker.
  auto s = t.ph("s"), step = t.ph("t"), f = t.ph("f");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(step.size(), 1u);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(s[0].at("id"), step[0].at("id"));
  EXPECT_EQ(s[0].at("id"), f[0].at("id"));
  EXPECT_EQ(ns(s[0].at("ts")), 0);
  EXPECT_EQ(step[0].at("tid"), kWorker);
  EXPECT_EQ(ns(step[0].at("ts")), 1'000);
  EXPECT_EQ(f[0].at("tid"), kWorker);
  EXPECT_EQ(ns(f[0].at("ts")), 8'000);

  auto e = t.ph("e");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].at("args").at("punt"), "hashed");
  auto punts = t.named("n", "punt");
  ASSERT_EQ(punts.size(), 1u);
  EXPECT_EQ(punts[0].at("args").at("reason"), "hashed");
  EXPECT_EQ(ns(punts[0].at("ts")), 500);
  EXPECT_EQ(t.thread_name(kPid, kWorker), "iou-wrk-100");
}

TEST(TraceWriter, InlineIssueOnTheSubmitterDrawsNothing) {
  TempDir dir;
  Trace t =
      run(dir.file("t.json"),
          {submit(1'000, 0xA0, 7), rec(US_TR_ISSUE, 1'100, 0xA0, 7), complete(2'000, 0xA0, 7, 1)},
          3'000);
  EXPECT_TRUE(t.named("X", "issue READ").empty());
  EXPECT_TRUE(t.ph("t").empty());
  EXPECT_EQ(t.ph("e").size(), 1u);
}

TEST(TraceWriter, MultishotPollIsOneSlice) {
  TempDir dir;
  TraceStats st;
  // 6.13+: the intermediate CQEs carry no request pointer; the last one does.
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xB0, 7, kOpPollAdd), complete(2'000, 0, 7, 1, kMore, 1),
                 complete(3'000, 0, 7, 1, kMore, 2), complete(4'000, 0, 7, 1, kMore, 3),
                 complete(5'000, 0xB0, 7, 1, 0, 4)},
                6'000, &st);
  EXPECT_EQ(st.unmatched, 0u);
  auto b = t.ph("b"), e = t.ph("e");
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(b[0].at("name"), "POLL_ADD");
  EXPECT_EQ(ns(e[0].at("ts")), 4'000);
  EXPECT_EQ(e[0].at("args").at("cqes"), 4);
  EXPECT_EQ(t.named("n", "CQE").size(), 3u);  // the intermediate CQEs, on the slice
  EXPECT_EQ(t.named("X", "CQE POLL_ADD").size(), 4u);
  EXPECT_EQ(t.counter("ring[1] in flight", "requests"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(t.counter("ring[1] CQ depth", "CQEs"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(t.ph("f").size(), 1u);  // one arrow, to the final CQE
  EXPECT_EQ(ns(t.ph("f")[0].at("ts")), 4'000);
}

TEST(TraceWriter, RecycledRequestAddressIsTwoRequests) {
  TempDir dir;
  TraceStats st;
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xC0, 1), complete(2'000, 0xC0, 1, 10), submit(3'000, 0xC0, 2),
                 complete(4'000, 0xC0, 2, 20)},
                5'000, &st);
  EXPECT_EQ(st.requests, 2u);
  EXPECT_EQ(st.superseded, 0u);
  auto b = t.ph("b"), e = t.ph("e");
  ASSERT_EQ(b.size(), 2u);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NE(b[0].at("id"), b[1].at("id"));
  EXPECT_EQ(b[0].at("args").at("user_data"), "0x1");
  EXPECT_EQ(b[1].at("args").at("user_data"), "0x2");
  EXPECT_EQ(e[0].at("id"), b[0].at("id"));
  EXPECT_EQ(e[0].at("args").at("res"), 10);
  EXPECT_EQ(e[1].at("id"), b[1].at("id"));
  EXPECT_EQ(e[1].at("args").at("res"), 20);
}

TEST(TraceWriter, LostFinalCqeEndsAtTheAddressReuse) {
  TempDir dir;
  TraceStats st;
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xC0, 1), submit(2'000, 0xC0, 2), complete(3'000, 0xC0, 2, 0)},
                5'000, &st);
  EXPECT_EQ(st.superseded, 1u);
  auto e = t.ph("e");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].at("id"), 1);
  EXPECT_EQ(ns(e[0].at("ts")), 1'000);
  EXPECT_EQ(e[0].at("args").at("end_not_seen"), true);
  EXPECT_EQ(e[1].at("id"), 2);
  EXPECT_EQ(t.counter("ring[1] in flight", "requests"), (std::vector<int64_t>{1, 0, 1, 0}));
  EXPECT_EQ(t.ph("s").size(), 1u);  // only the request that completed has an arrow
}

TEST(TraceWriter, ZeroCopySendWaitsForItsNotification) {
  TempDir dir;
  TraceStats st;
  // The send's io_kiocb is recycled after its F_MORE CQE; the notification comes from
  // another io_kiocb, matched by user_data.
  Trace t = run(dir.file("t.json"),
                {submit(1'000, 0xD0, 5, kOpSendZc), complete(2'000, 0xD0, 5, 100, kMore, 1),
                 submit(3'000, 0xD0, 6), complete(4'000, 0xD8, 5, 0, kNotif, 2),
                 complete(5'000, 0xD0, 6, 7, 0, 3)},
                6'000, &st);
  EXPECT_EQ(st.superseded, 0u);
  EXPECT_EQ(st.unmatched, 0u);
  std::map<uint64_t, Json> end_of;
  for (const Json& e : t.ph("e")) end_of[e.at("id")] = e;
  ASSERT_EQ(end_of.size(), 2u);
  EXPECT_EQ(ns(end_of[1].at("ts")), 3'000);
  EXPECT_EQ(end_of[1].at("args").at("cqes"), 2);
  EXPECT_EQ(ns(end_of[2].at("ts")), 4'000);
  EXPECT_EQ(end_of[2].at("args").at("res"), 7);
  EXPECT_EQ(t.counter("ring[1] in flight", "requests"), (std::vector<int64_t>{1, 2, 1, 0}));
}

TEST(TraceWriter, RequestStillOpenAtFinish) {
  TempDir dir;
  TraceStats st;
  Trace t = run(dir.file("t.json"), {submit(1'000, 0xA0, 3)}, 11'000, &st);
  EXPECT_EQ(st.still_open, 1u);
  auto e = t.ph("e");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(ns(e[0].at("ts")), 10'000);
  EXPECT_EQ(e[0].at("args").at("in_flight_at_end"), true);
  EXPECT_FALSE(e[0].at("args").contains("res"));
  // The counter ends at the in-flight count; no arrow without a completion.
  EXPECT_EQ(t.counter("ring[1] in flight", "requests"), (std::vector<int64_t>{1}));
  EXPECT_TRUE(t.ph("s").empty());
  EXPECT_EQ(t.doc.at("otherData").at("still_open"), 1);
}

TEST(TraceWriter, CompleteWithoutSubmitIsAnInstant) {
  TempDir dir;
  TraceStats st;
  Trace t = run(dir.file("t.json"), {complete(1'000, 0xE0, 9, -11, 0, 4)}, 2'000, &st);
  EXPECT_EQ(st.unmatched, 1u);
  EXPECT_EQ(st.requests, 0u);
  EXPECT_TRUE(t.ph("b").empty());
  auto i = t.ph("i");
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0].at("name"), "CQE without submit");
  EXPECT_EQ(i[0].at("s"), "t");
  EXPECT_EQ(i[0].at("tid"), kPid);
  EXPECT_EQ(i[0].at("args").at("user_data"), "0x9");
  EXPECT_EQ(i[0].at("args").at("res"), -11);
  EXPECT_EQ(t.counter("ring[1] CQ depth", "CQEs"), (std::vector<int64_t>{4}));
  EXPECT_EQ(t.doc.at("otherData").at("unmatched"), 1);
}

TEST(TraceWriter, FailedRequest) {
  TempDir dir;
  us_trace_event failed = rec(US_TR_FAILED, 1'100, 0xA0, 1);
  failed.res = -22;
  Trace t = run(dir.file("t.json"), {submit(1'000, 0xA0, 1), failed, complete(1'200, 0xA0, 1, -22)},
                2'000);
  auto e = t.ph("e");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].at("args").at("failed"), true);
  EXPECT_EQ(e[0].at("args").at("res"), -22);
  EXPECT_EQ(e[0].at("args").at("errno"), "EINVAL");
  auto n = t.named("n", "failed");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].at("args").at("res"), -22);
}

TEST(TraceWriter, PollArmIsAnInstantOnTheSlice) {
  TempDir dir;
  Trace t = run(
      dir.file("t.json"),
      {submit(1'000, 0xA0, 1), rec(US_TR_POLL_ARM, 1'500, 0xA0, 1), complete(9'000, 0xA0, 1, 64)},
      10'000);
  auto n = t.named("n", "poll armed");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(ns(n[0].at("ts")), 500);
}

TEST(TraceWriter, CompleteOvertakingItsSubmitIsReordered) {
  TempDir dir;
  TraceStats st;
  // The CQE's record reached the ring buffer first (another CPU), but its timestamp is
  // later: the reorder window puts it back after the SUBMIT.
  Trace t =
      run(dir.file("t.json"), {complete(2'000, 0xA0, 1, 5), submit(1'000, 0xA0, 1)}, 3'000, &st);
  EXPECT_EQ(st.unmatched, 0u);
  EXPECT_EQ(st.late, 0u);
  ASSERT_EQ(t.ph("e").size(), 1u);
  EXPECT_EQ(ns(t.ph("e")[0].at("ts")), 1'000);
}

TEST(TraceWriter, RecordLaterThanItsReleaseIsClampedAndCounted) {
  TempDir dir;
  std::string path = dir.file("t.json");
  TraceStats st;
  // The drain said everything before 2 ms had come, so the 1 ms SUBMIT was written; a
  // record stamped 0.5 ms arriving after that can only be written at the frontier, 1 ms.
  // It names no request.
  {
    TraceWriter w(path);
    w.add(submit(1'000'000, 0xA0, 1));
    w.add(submit(5'000'000, 0xA1, 2));
    w.delivered_before(2'000'000);
    EXPECT_EQ(w.pending_records(), 1u) << "the 5 ms record waits for its own release";
    w.add(complete(500'000, 0xEE, 3, 0));
    w.finish(6'000'000, {{1, "ring #0 fd=5 (app)"}});
    st = w.stats();
  }
  Trace t = load(path);
  check_invariants(t);
  EXPECT_EQ(st.late, 1u);
  EXPECT_EQ(st.unmatched, 1u);
  auto i = t.ph("i");
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(ns(i[0].at("ts")), 0);
  EXPECT_EQ(t.doc.at("otherData").at("late"), 1);
}

TEST(TraceWriter, RecordsWaitForTheDrainToReleaseThem) {
  TempDir dir;
  std::string path = dir.file("t.json");
  TraceStats st;
  // CPU 1's batch holds a SUBMIT from 1 ms that reaches the writer after CPU 0's records
  // from 2-40 ms: nothing may be written before the drain says 1 ms is complete.
  {
    TraceWriter w(path);
    w.add(submit(2'000'000, 0xB0, 7));
    w.add(complete(40'000'000, 0xA0, 1, 0));
    EXPECT_EQ(w.pending_records(), 2u);
    w.add(submit(1'000'000, 0xA0, 1));
    w.delivered_before(50'000'000);
    EXPECT_EQ(w.pending_records(), 0u);
    w.finish(60'000'000, {{1, "ring #0 fd=5 (app)"}});
    st = w.stats();
  }
  load(path);
  EXPECT_EQ(st.late, 0u);
  EXPECT_EQ(st.unmatched, 0u) << "the CQE found the SUBMIT that arrived after it";
}

TEST(TraceWriter, ABusyDrainStillWaitsForAQuietCpusOlderRecords) {
  TempDir dir;
  TraceStats st;
  // What fio at about 90,000 reads a second showed beside other io_uring traffic: its
  // thread moved CPUs, so the SUBMIT it staged on the CPU it left reached the writer only
  // when the next drain flushed that CPU, at the end of the drain, after 20,000 records
  // (a tenth of a second at this rate) from the CPU it moved to, the request's CQE among
  // the first. With the queue bounded below a drain's worth, the CQE was forced out
  // before its SUBMIT came: a "CQE without submit", and a late SUBMIT whose slice the
  // next request's CQE ended.
  // The drain's release (here the finish) comes after all of them: what went out before
  // it was forced out by the bound.
  constexpr uint64_t kBusy = 20'000;
  std::vector<us_trace_event> drain{complete(1'000'000, 0xA0, 1, 4096)};  // 1 ms: its CQE
  for (uint64_t i = 0; i < kBusy / 2; ++i) {  // 1-100 ms on the busy CPU
    const uint64_t ts = 1'000'000 + 10'000 * (i + 1);
    drain.push_back(submit(ts, 0x1000 + i, 100 + i));
    drain.push_back(complete(ts + 5'000, 0x1000 + i, 100 + i, 4096));
  }
  drain.push_back(submit(900'000, 0xA0, 1));  // 0.9 ms, staged on the CPU the thread left
  Trace t = run(dir.file("t.json"), drain, 110'000'000, &st);
  EXPECT_EQ(st.late, 0u);
  EXPECT_EQ(st.unmatched, 0u);
  EXPECT_EQ(st.requests, kBusy / 2 + 1);
  // The first request keeps its own 100 us.
  bool found = false;
  for (const Json& e : t.ph("b")) {
    if (e.at("args").at("user_data") != "0x1") continue;
    found = true;
    EXPECT_EQ(ns(e.at("ts")), 0);
  }
  EXPECT_TRUE(found);
  auto ends = t.ph("e");
  ASSERT_FALSE(ends.empty());
  EXPECT_EQ(ns(ends[0].at("ts")), 100'000);
}

TEST(TraceWriter, DestroyedWithoutFinishLeavesValidJson) {
  TempDir dir;
  std::string path = dir.file("t.json");
  {
    TraceWriter w(path);
    w.add(submit(1'000, 0xA0, 1));
    w.add(submit(2'000, 0xA1, 2));
    w.add(complete(3'000, 0xA1, 2, 0));
  }
  Trace t = load(path);
  check_invariants(t);
  EXPECT_EQ(t.doc.at("otherData").at("finished"), false);
  auto e = t.ph("e");
  ASSERT_EQ(e.size(), 2u);
  // The open one ends at the last record's time.
  EXPECT_EQ(e[1].at("args").at("in_flight_at_end"), true);
  EXPECT_EQ(ns(e[1].at("ts")), 2'000);
  // Without the caller's names the ring track is still named.
  EXPECT_EQ(t.thread_name(kPid, kRingTid + 1), "ring[1]");
}

TEST(TraceWriter, EmptyTraceIsValid) {
  TempDir dir;
  TraceStats st;
  Trace t = run(dir.file("t.json"), {}, 1'000, &st, {});
  EXPECT_TRUE(t.events.empty());
  EXPECT_EQ(st.events, 0u);
}

TEST(TraceWriter, DropsAreReported) {
  TempDir dir;
  std::string path = dir.file("t.json");
  TraceStats st;
  {
    TraceWriter w(path);
    w.add(submit(1'000, 0xA0, 1));
    w.add(complete(2'000, 0xA0, 1, 0));
    w.add(submit(3'000'000, 0xA1, 2));
    w.delivered_before(3'000'000);  // releases the first two
    w.set_dropped(3);
    w.set_dropped(3);  // no growth, no new instant
    w.add(complete(3'001'000, 0xA1, 2, 0));
    w.set_dropped(5);
    w.finish(4'000'000, {});
    st = w.stats();
  }
  EXPECT_EQ(st.dropped, 5u);
  Trace t = load(path);
  check_invariants(t);
  EXPECT_EQ(t.doc.at("otherData").at("dropped_records"), 5);
  auto during = t.named("i", "trace records dropped");
  ASSERT_EQ(during.size(), 2u);
  EXPECT_EQ(during[0].at("s"), "g");
  EXPECT_EQ(during[0].at("args").at("dropped"), 3);
  EXPECT_EQ(during[1].at("args").at("dropped"), 2);
  EXPECT_EQ(during[1].at("args").at("total"), 5);
  auto at_end = t.named("i", "trace records dropped: BPF ring buffer full");
  ASSERT_EQ(at_end.size(), 1u);
  EXPECT_EQ(at_end[0].at("args").at("total"), 5);
}

TEST(TraceWriter, NamesAreEscapedAndStayValidUtf8) {
  TempDir dir;
  us_trace_event s = submit(1'000, 0xA0, 1);
  const char nasty[16] = {'a', '"', '\\', '\n', '\x7f', '\xff', '\xc3', '\xa9', 'z', 0};
  std::memcpy(s.comm, nasty, sizeof nasty);
  us_trace_event c = complete(2'000, 0xA0, 1, 0);
  std::memcpy(c.comm, nasty, sizeof nasty);
  // A full 16-byte comm without a terminating NUL must not read past the field.
  us_trace_event w = complete(3'000, 0xEE, 2, 0, 0, 1, kWorker, "");
  std::memset(w.comm, 'w', sizeof w.comm);
  Trace t = run(dir.file("t.json"), {s, c, w}, 4'000, nullptr, {{1, "ring #0 fd=5 (caf\xc3\xa9)"}});
  EXPECT_EQ(t.process_name(kPid), "a\"\\\n\x7f?\xc3\xa9z");
  EXPECT_EQ(t.thread_name(kPid, kWorker), std::string(16, 'w'));
  EXPECT_EQ(t.thread_name(kPid, kRingTid + 1), "ring[1] = ring #0 fd=5 (caf\xc3\xa9)");
}

TEST(TraceWriter, UnwritablePathThrows) {
  try {
    TraceWriter w("/nonexistent-dir/t.json");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write /nonexistent-dir/t.json: ", 0), 0u)
        << e.what();
  }
}

TEST(TraceWriter, WriteErrorIsReportedByFinish) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TraceWriter w("/dev/full");
  for (uint64_t i = 0; i < 5'000; ++i) {
    w.add(submit(1'000 + i * 100, 0x1000 + i, i));
    w.add(complete(1'050 + i * 100, 0x1000 + i, i, 0));
  }
  EXPECT_THROW(w.finish(10'000'000, {}), Error);
}

// ---- a mixed workload, and the long run ------------------------------------------------

// A deterministic workload like a busy ring: io_kiocbs recycled LIFO as the kernel's
// request cache does, punts to a few workers, multishot receives, failures, CQEs for
// requests submitted before the trace began, and records swapped within the window.
class Workload {
 public:
  explicit Workload(uint32_t depth) : depth_(depth) {
    for (uint32_t i = 0; i < depth * 2; ++i) free_.push_back(0xffff000000000000ull + i * 256);
  }

  // Appends the records of one more request (and maybe a stray CQE) to out.
  template <typename Sink>
  void step(Sink&& out) {
    ts_ += 250;
    uint64_t r = next();
    if (open_.size() >= depth_ || (!open_.empty() && r % 3 == 0)) {
      // Complete the oldest open request.
      Open o = open_.front();
      open_.erase(open_.begin());
      uint32_t tid = o.worker ? o.worker : kPid;
      const char* comm = o.worker ? "iou-wrk-100" : "app";
      for (uint32_t k = 0; k < o.extra_cqes; ++k) {
        ts_ += 50;
        out(complete(ts_, 0, o.ud, 100, kMore, cq_++ % 32, tid, comm));
      }
      ts_ += 50;
      us_trace_event c = complete(ts_, o.req, o.ud, o.fail ? -22 : 4096, 0, cq_++ % 32, tid, comm);
      out(c);
      free_.push_back(o.req);
      return;
    }
    if (r % 97 == 0) {  // a CQE for a request submitted before the trace
      out(complete(ts_, 0xdead0000 + r % 1000, r, 0, 0, 0));
      return;
    }
    Open o{};
    o.req = free_.back();
    free_.pop_back();
    o.ud = ++ud_;
    o.fail = r % 53 == 0;
    o.extra_cqes = r % 11 == 0 ? static_cast<uint32_t>(r % 4) : 0;
    us_trace_event s = submit(ts_, o.req, o.ud, o.extra_cqes ? 27 /* RECV */ : kOpRead);
    if (o.fail) {
      out(s);
      us_trace_event f = rec(US_TR_FAILED, ts_ + 10, o.req, o.ud);
      f.res = -22;
      out(f);
    } else if (r % 5 == 0) {
      o.worker = kWorker + static_cast<uint32_t>(r % 3);
      us_trace_event p = rec(US_TR_PUNT, ts_ + 10, o.req, o.ud);
      p.aux = US_OC_PUNT_FORCED + static_cast<uint32_t>(r % 4);
      us_trace_event i = rec(US_TR_ISSUE, ts_ + 40, o.req, o.ud, o.worker, "iou-wrk-100");
      // The punt overtakes the submit in the ring buffer now and then.
      if (r % 2) {
        out(p);
        out(s);
      } else {
        out(s);
        out(p);
      }
      out(i);
    } else {
      out(s);
    }
    open_.push_back(o);
  }

  uint64_t now() const { return ts_; }
  std::size_t open() const { return open_.size(); }

 private:
  struct Open {
    uint64_t req, ud;
    uint32_t worker, extra_cqes;
    bool fail;
  };
  uint64_t next() {  // xorshift64
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }
  uint32_t depth_;
  uint64_t rng_ = 0x9e3779b97f4a7c15ull;
  uint64_t ts_ = 1'000'000'000;
  uint64_t ud_ = 0;
  uint32_t cq_ = 0;
  std::vector<uint64_t> free_;
  std::vector<Open> open_;
};

TEST(TraceWriter, MixedWorkloadKeepsEveryInvariant) {
  TempDir dir;
  std::string path = dir.file("t.json");
  Workload load_gen(16);
  TraceStats st;
  std::size_t still_open = 0;
  {
    TraceWriter w(path);
    for (int i = 0; i < 20'000; ++i) load_gen.step([&](const us_trace_event& e) { w.add(e); });
    still_open = load_gen.open();
    w.finish(load_gen.now() + 1'000, {{1, "ring #0 fd=5 (app)"}});
    st = w.stats();
  }
  Trace t = load(path);
  check_invariants(t);
  EXPECT_EQ(st.superseded, 0u);
  EXPECT_EQ(st.late, 0u);
  EXPECT_EQ(st.still_open, still_open);
  EXPECT_GT(st.unmatched, 0u);  // the strays, and only them:
  EXPECT_EQ(t.ph("i").size(), st.unmatched);
  EXPECT_EQ(t.ph("b").size(), st.requests);
  auto inflight = t.counter("ring[1] in flight", "requests");
  ASSERT_FALSE(inflight.empty());
  EXPECT_EQ(static_cast<std::size_t>(inflight.back()), still_open);
  EXPECT_FALSE(t.ph("t").empty());
  std::printf("[ info ] mixed workload: %llu requests, %zu events, %llu bytes\n",
              static_cast<unsigned long long>(st.requests), t.events.size(),
              static_cast<unsigned long long>(fs::file_size(path)));
}

long rss_kib() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

TEST(TraceWriter, LongRunMemoryStaysBounded) {
  // A million requests, 64 in flight, to /dev/null: only the writer's own memory counts.
  constexpr int kRequests = 1'000'000;
  Workload load_gen(64);
  TraceWriter w("/dev/null");
  uint64_t records = 0;
  std::size_t max_open = 0, max_pending = 0;
  auto sink = [&](const us_trace_event& e) {
    w.add(e);
    ++records;
  };
  // Warm up until the tables are at their steady size. With no drain saying what has all
  // arrived, the reorder queue fills to its bound and stays there, so that is the steady
  // state: a drain's worth of records (trace/reorder.h), the largest it can be.
  for (int i = 0; i < 20'000; ++i) load_gen.step(sink);
  while (w.pending_records() + 64 < ReorderQueue::kMaxHeld) load_gen.step(sink);
  long rss_before = rss_kib();
  auto start = std::chrono::steady_clock::now();
  uint64_t records_before = records;
  while (w.stats().requests < kRequests) {
    load_gen.step(sink);
    max_open = std::max(max_open, w.open_requests());
    max_pending = std::max(max_pending, w.pending_records());
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  long growth = rss_kib() - rss_before;
  w.finish(load_gen.now(), {});

  EXPECT_LE(max_open, 64u + 1u);  // the in-flight depth, not the run's length
  EXPECT_LE(max_pending, ReorderQueue::kMaxHeld);
  EXPECT_LT(growth, 4 * 1024) << "RSS grew " << growth << " KiB";
  std::printf(
      "[ info ] %llu records in %.2f s: %.2f M records/s; RSS growth %ld KiB; "
      "max open %zu, max pending %zu\n",
      static_cast<unsigned long long>(records - records_before), secs,
      static_cast<double>(records - records_before) / secs / 1e6, growth, max_open, max_pending);
}

}  // namespace
}  // namespace uringscope
