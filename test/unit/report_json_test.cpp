// SPDX-License-Identifier: MIT
// JSON schema 2 over the hand-built snapshot of report_text_test.cpp. Expected values
// come from the fixture's numbers (see the derivations there), not from the renderer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "report/hazards_json.h"
#include "report/report.h"
#include "uringscope/fields.h"
#include "support/fixtures.h"

namespace uringscope::report_test {


namespace {

using Json = nlohmann::ordered_json;

std::set<std::string> keys_of(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

const Json& op_named(const Json& ops, const std::string& name) {
  for (const Json& op : ops)
    if (op.at("op") == name) return op;
  ADD_FAILURE() << "no op " << name;
  static const Json missing;
  return missing;
}

class ReportJson : public ::testing::Test {
 protected:
  Snapshot snap = report_fixture();
  std::vector<Finding> findings = report_findings();
  Json j = render_json(snap, findings);
};

TEST_F(ReportJson, TopLevelKeysAndIdentity) {
  EXPECT_EQ(keys_of(j), (std::set<std::string>{"tool", "schema", "tool_version", "wall_ns", "ncpus",
                                               "kernel", "target", "invalid_utf8_replaced",
                                               "counters", "ops", "rings", "rings_omitted",
                                               "leak", "workers", "tool_stats", "hazards",
                                               "end_to_end", "findings"}));
  // In the contract but not measured yet: the key is there so consumers can rely on it,
  // and says "not measured" instead of carrying zeros that would read as "checked, clean".
  // hazards has its counts always; "available" says whether --check was on.
  EXPECT_EQ(j.at("hazards"), (Json{{"available", false}, {"ranges_checked", 0}, {"calls_checked", 0},
                                   {"overlap", 0}, {"bufreg", 0}, {"unmap", 0},
                                   {"records", Json::array()}}));
  EXPECT_EQ(j.at("end_to_end"), (Json{{"available", false}}));

  EXPECT_EQ(j.at("tool"), "uringscope");
  ASSERT_TRUE(j.at("schema").is_number_integer());
  EXPECT_EQ(j.at("schema").get<int>(), 2);
  EXPECT_EQ(j.at("tool_version"), "0.1.0");
  ASSERT_TRUE(j.at("wall_ns").is_number_unsigned());
  EXPECT_EQ(j.at("wall_ns").get<uint64_t>(), 12'400'000'000u);
  EXPECT_EQ(j.at("ncpus").get<unsigned>(), 8u);
  // Stable order: the schema's order, starting with the identity fields.
  EXPECT_EQ(j.begin().key(), "tool");
}

TEST_F(ReportJson, KernelAndTarget) {
  const Json& k = j.at("kernel");
  EXPECT_EQ(k.at("release"), "6.18.44");
  EXPECT_EQ(k.at("tier"), "full");
  EXPECT_EQ(k.at("features"), (Json{{"submit", true}, {"punt", false}}));
  EXPECT_TRUE(k.at("features").at("submit").is_boolean());
  EXPECT_EQ(k.at("feature_detail").at("punt"), "io_uring_queue_async_work missing from BTF");
  EXPECT_EQ(k.at("feature_detail").at("submit"), "io_uring_submit_req");

  const Json& t = j.at("target");
  EXPECT_EQ(t.at("mode"), "pid");
  EXPECT_EQ(t.at("pids"), (Json{31337, 4242}));
  EXPECT_EQ(t.at("pids_omitted"), 0);
  EXPECT_TRUE(t.at("command").is_array());
  EXPECT_TRUE(t.at("command").empty());
}

TEST_F(ReportJson, CountersAreEveryFieldAsIntegers) {
  std::set<std::string> names;
  for (const CounterField& f : kCounterFields) names.insert(std::string(f.name));
  names.insert("trace_rb_drops");  // the contract's; 0 until --trace exists
  const Json& c = j.at("counters");
  EXPECT_EQ(keys_of(c), names);
  for (const auto& [key, value] : c.items()) EXPECT_TRUE(value.is_number_unsigned()) << key;
  // All rings together: 1,209,544 + 5,000 + 3.
  EXPECT_EQ(c.at("submissions").get<uint64_t>(), 1'214'547u);
  EXPECT_EQ(c.at("enter_calls").get<uint64_t>(), 1'204'345u);
  EXPECT_EQ(c.at("cq_overflows").get<uint64_t>(), 7u);
  EXPECT_EQ(c.at("untracked_completions").get<uint64_t>(), 12u);
  EXPECT_FALSE(c.contains("avg_batch"));
}

TEST_F(ReportJson, OpsMergedOverRingsInOpcodeOrder) {
  const Json& ops = j.at("ops");
  ASSERT_EQ(ops.size(), 5u);
  std::vector<unsigned> opcodes;
  for (const Json& op : ops) opcodes.push_back(op.at("opcode").get<unsigned>());
  EXPECT_EQ(opcodes, (std::vector<unsigned>{0, 3, 22, 23, 27}));
  EXPECT_EQ(ops[0].at("op"), "NOP");
  EXPECT_EQ(ops[4].at("op"), "RECV");
  EXPECT_EQ(op_named(ops, "RECV").at("untracked").get<uint64_t>(), 12u);
}

TEST_F(ReportJson, OpShapeAndValues) {
  const Json& read = op_named(j.at("ops"), "READ");
  EXPECT_EQ(keys_of(read),
            (std::set<std::string>{"op", "opcode", "submitted", "completed", "untracked", "punted",
                                   "punt_pct", "errors", "multishot_cqes", "avg_ns", "p50_ns",
                                   "p99_ns", "max_ns", "log2_hist",
                                   // added within schema 2
                                   "punt_reasons", "errnos", "failed", "poll_armed",
                                   "poll_armed_regular", "cancelled_at_exit", "zc_results", "zc_result_sum_ns",
                                    "zc_notifications", "bytes", "bytes_per_request",
                                    "bytes_per_sec"}));
  for (const char* key : {"opcode", "submitted", "completed", "untracked", "punted", "errors",
                          "multishot_cqes", "avg_ns", "p50_ns", "p99_ns", "max_ns"})
    EXPECT_TRUE(read.at(key).is_number_integer()) << key;
  EXPECT_TRUE(read.at("punt_pct").is_number_float());

  EXPECT_EQ(read.at("opcode").get<unsigned>(), 22u);
  EXPECT_EQ(read.at("submitted").get<uint64_t>(), 1'102'238u);
  EXPECT_EQ(read.at("completed").get<uint64_t>(), 1'102'236u);
  EXPECT_EQ(read.at("punted").get<uint64_t>(), 695'512u);
  EXPECT_NEAR(read.at("punt_pct").get<double>(), 63.09998, 1e-4);
  EXPECT_EQ(read.at("avg_ns").get<uint64_t>(), 151'622u);  // 167,124,000,000 / 1,102,236
  EXPECT_EQ(read.at("max_ns").get<uint64_t>(), 9'100'000u);

  // Percentiles are the histogram's own interpolation of the hand histogram, and land in
  // the buckets that hold their ranks (551,118th and 1,091,214th of 1,102,236).
  Histogram h = read_histogram();
  uint64_t p50 = read.at("p50_ns").get<uint64_t>();
  uint64_t p99 = read.at("p99_ns").get<uint64_t>();
  EXPECT_EQ(p50, h.quantile_ns(0.5));
  EXPECT_EQ(p99, h.quantile_ns(0.99));
  EXPECT_GE(p50, 8192u);
  EXPECT_LT(p50, 16384u);
  EXPECT_GE(p99, 1u << 20);
  EXPECT_LT(p99, 1u << 21);

  const Json& hist = read.at("log2_hist");
  ASSERT_TRUE(hist.is_array());
  ASSERT_EQ(hist.size(), 40u);
  for (std::size_t i = 0; i < hist.size(); ++i) {
    ASSERT_TRUE(hist[i].is_number_integer());
    uint64_t want = i == 13 ? 1'000'000 : i == 20 ? 102'000 : i == 23 ? 236 : 0;
    EXPECT_EQ(hist[i].get<uint64_t>(), want) << "bucket " << i;
  }
}

TEST_F(ReportJson, OpWithoutSamplesHasZeroLatency) {
  OpStats op;
  op.opcode = 200;  // beyond the table
  op.submitted = 2;
  Json o = op_json(op, 0);
  EXPECT_EQ(o.at("op"), "OP_200");
  EXPECT_EQ(o.at("p50_ns").get<uint64_t>(), 0u);
  EXPECT_EQ(o.at("avg_ns").get<uint64_t>(), 0u);
  EXPECT_DOUBLE_EQ(o.at("punt_pct").get<double>(), 0.0);
  EXPECT_TRUE(o.at("punt_pct").is_number_float());
}

TEST_F(ReportJson, Rings) {
  const Json& rings = j.at("rings");
  ASSERT_EQ(rings.size(), 3u);
  std::set<std::string> ring_keys{"id",        "fd",       "pid",        "comm",   "sq_entries",
                                  "cq_entries", "flags",    "flag_names", "sqpoll", "source", "destroyed",
                                  "avg_batch", "counters", "ops",
                                  "sq_tid", "files", "fold", "folded_rings"};  // added within schema 2
  for (const Json& r : rings) {
    EXPECT_EQ(keys_of(r), ring_keys);
    EXPECT_EQ(keys_of(r.at("counters")), keys_of(counters_json(Counters{})));
    EXPECT_TRUE(r.at("avg_batch").is_number_float());
  }

  const Json& r0 = rings[0];
  EXPECT_EQ(r0.at("id").get<unsigned>(), 0u);
  ASSERT_TRUE(r0.at("fd").is_number_integer());
  EXPECT_EQ(r0.at("fd").get<int>(), 5);
  EXPECT_EQ(r0.at("pid").get<unsigned>(), 31337u);
  EXPECT_EQ(r0.at("comm"), "myapp");
  EXPECT_EQ(r0.at("sq_entries").get<unsigned>(), 256u);
  EXPECT_EQ(r0.at("cq_entries").get<unsigned>(), 512u);
  EXPECT_EQ(r0.at("flags").get<unsigned>(), 0u);
  EXPECT_EQ(r0.at("flag_names"), Json::array());
  EXPECT_EQ(r0.at("sqpoll"), false);
  EXPECT_TRUE(r0.at("sq_tid").is_null());  // no SQPOLL thread
  EXPECT_EQ(r0.at("source"), "create");
  EXPECT_NEAR(r0.at("avg_batch").get<double>(), 1'209'544.0 / 1'204'332.0, 1e-12);
  EXPECT_EQ(r0.at("counters").at("submissions").get<uint64_t>(), 1'209'544u);
  ASSERT_EQ(r0.at("ops").size(), 3u);
  EXPECT_EQ(r0.at("ops")[1].at("op"), "READ");
  EXPECT_EQ(keys_of(r0.at("ops")[1]), keys_of(op_named(j.at("ops"), "READ")));

  const Json& r1 = rings[1];
  EXPECT_TRUE(r1.at("fd").is_null());  // unknown fd
  EXPECT_EQ(r1.at("flags").get<unsigned>(), 10u);
  EXPECT_EQ(r1.at("flag_names"), (Json{"SQPOLL", "CQSIZE"}));
  EXPECT_EQ(r1.at("sqpoll"), true);
  ASSERT_TRUE(r1.at("sq_tid").is_number_integer());
  EXPECT_EQ(r1.at("sq_tid").get<unsigned>(), 4250u);
  EXPECT_EQ(r1.at("source"), "fd_table");
  EXPECT_DOUBLE_EQ(r1.at("avg_batch").get<double>(), 0.0);  // no submitting enters
  EXPECT_EQ(r1.at("counters").at("cq_overflows").get<uint64_t>(), 7u);

  EXPECT_EQ(rings[2].at("source"), "catch_all");
  EXPECT_EQ(rings[2].at("comm"), "");
}

TEST_F(ReportJson, ToolStats) {
  EXPECT_EQ(j.at("tool_stats"), (Json{{"rings_full", 9},
                                      {"opstats_full", 0},
                                      {"op_out_of_range", 0},
                                      {"enter_no_ring", 0},
                                      {"overflow_no_req", 0},
                                      {"errno_full", 0},
                                      {"threads_full", 0},
                                      {"trace_drops", 0},
                                      {"udata_ambiguous", 0},
                                      {"udata_evicted", 0},
                                      {"zc_ambiguous", 0},
                                      {"notif_no_req", 0},
                                      {"latency_torn", 0},
                                      {"check_drops", 0},
                                      {"check_unseen", 0},
                                      {"files_full", 0},
                                      {"names_full", 0}, {"kernel_misses", 0}}));
  snap.tool.errno_full = 4;
  snap.tool.threads_full = 1;
  snap.tool.trace_drops = 7;
  const Json report = render_json(snap, findings);
  const Json& t = report.at("tool_stats");
  EXPECT_EQ(t.at("errno_full").get<uint64_t>(), 4u);
  EXPECT_EQ(t.at("threads_full").get<uint64_t>(), 1u);
  EXPECT_EQ(t.at("trace_drops").get<uint64_t>(), 7u);
  // The run's trace drops are the contract's counters.trace_rb_drops; rings keep 0.
  EXPECT_EQ(report.at("counters").at("trace_rb_drops").get<uint64_t>(), 7u);
  EXPECT_EQ(report.at("rings").at(0).at("counters").at("trace_rb_drops").get<uint64_t>(), 0u);
}

// The field tables of fields.h are the JSON keys, in the schema's order.
TEST_F(ReportJson, FieldTablesAreTheKeysInOrder) {
  std::vector<std::string> tool_keys, want_tool;
  for (const auto& [key, value] : j.at("tool_stats").items()) tool_keys.push_back(key);
  for (const ToolField& f : kToolFields) want_tool.emplace_back(f.name);
  EXPECT_EQ(tool_keys, want_tool);

  const Json& read = op_named(j.at("ops"), "READ");
  std::vector<std::string> op_keys;
  for (const auto& [key, value] : read.items()) op_keys.push_back(key);
  EXPECT_EQ(op_keys, (std::vector<std::string>{
                         "op", "opcode", "submitted", "completed", "untracked", "punted",
                         "punt_pct", "punt_reasons", "errors", "errnos", "failed",
                         "multishot_cqes", "poll_armed", "poll_armed_regular",
                         "cancelled_at_exit", "zc_results", "zc_result_sum_ns", "zc_notifications", "bytes", "bytes_per_request", "bytes_per_sec", "avg_ns", "p50_ns", "p99_ns", "max_ns",
                         "log2_hist"}));
  for (const OpCounterField& f : kOpCounterFields)
    EXPECT_TRUE(read.contains(std::string(f.name))) << f.name;
  std::vector<std::string> reason_keys, want_reasons;
  for (const auto& [key, value] : read.at("punt_reasons").items()) reason_keys.push_back(key);
  for (const PuntReasonField& f : kPuntReasonFields) want_reasons.emplace_back(f.name);
  EXPECT_EQ(reason_keys, want_reasons);
}

TEST_F(ReportJson, Findings) {
  const Json& f = j.at("findings");
  ASSERT_EQ(f.size(), 4u);
  std::set<std::string> keys{"tag", "severity", "ring", "op", "opcode", "message", "suggestion",
                             "evidence"};
  for (const Json& one : f) EXPECT_EQ(keys_of(one), keys);

  EXPECT_EQ(f[0].at("tag"), "OVERFLOW");
  EXPECT_EQ(f[0].at("severity"), "CRIT");
  EXPECT_EQ(f[0].at("ring").get<unsigned>(), 1u);
  EXPECT_TRUE(f[0].at("op").is_null());
  EXPECT_TRUE(f[0].at("opcode").is_null());
  EXPECT_TRUE(f[0].at("evidence").at("cq_overflows").is_number_integer());

  const Json& punt = f[1];
  EXPECT_EQ(punt.at("tag"), "PUNT");
  EXPECT_EQ(punt.at("severity"), "WARN");
  EXPECT_EQ(punt.at("ring").get<unsigned>(), 0u);
  EXPECT_EQ(punt.at("op"), "READ");
  EXPECT_EQ(punt.at("opcode").get<unsigned>(), 22u);
  EXPECT_EQ(punt.at("message"), findings[1].message);
  EXPECT_EQ(punt.at("suggestion"), findings[1].suggestion);
  const Json& ev = punt.at("evidence");
  EXPECT_TRUE(ev.at("punt_pct").is_number_float());
  EXPECT_DOUBLE_EQ(ev.at("punt_pct").get<double>(), 63.1);
  EXPECT_TRUE(ev.at("punted").is_number_integer());
  EXPECT_EQ(ev.at("punted").get<int64_t>(), 695'512);
  EXPECT_EQ(ev.at("reason"), "buffered read miss");

  EXPECT_EQ(f[2].at("severity"), "INFO");
  EXPECT_EQ(f[3].at("tag"), "TOOL");
  EXPECT_TRUE(f[3].at("ring").is_null());
  EXPECT_TRUE(f[3].at("op").is_null());
}

TEST_F(ReportJson, RoundTripsThroughText) {
  std::string dumped = j.dump();
  EXPECT_EQ(Json::parse(dumped), j);
  // A consumer using plain (sorted) json reads the same values.
  nlohmann::json plain = nlohmann::json::parse(dumped);
  EXPECT_EQ(plain.at("schema").get<int>(), 2);
  EXPECT_EQ(plain.at("rings")[0].at("ops")[1].at("submitted").get<uint64_t>(), 1'102'238u);
  EXPECT_DOUBLE_EQ(plain.at("findings")[1].at("evidence").at("punt_pct").get<double>(), 63.1);
  EXPECT_TRUE(plain.at("findings")[3].at("ring").is_null());
}

TEST_F(ReportJson, LargeCountersStayExact) {
  snap.rings[0].counters.completions = UINT64_MAX;
  aggregate(snap);
  snap.totals.completions = UINT64_MAX;  // the sum would wrap; set the total directly
  Json big = render_json(snap, findings);
  Json back = Json::parse(big.dump());
  EXPECT_EQ(back.at("counters").at("completions").get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(back.at("rings")[0].at("counters").at("completions").get<uint64_t>(), UINT64_MAX);
}

// --- fields added within schema 2

TEST_F(ReportJson, TopLevelOrderPutsLeakAndWorkersAfterRings) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  auto pos = [&](const std::string& k) {
    return std::find(keys.begin(), keys.end(), k) - keys.begin();
  };
  EXPECT_EQ(pos("rings_omitted"), pos("rings") + 1);
  EXPECT_EQ(pos("leak"), pos("rings_omitted") + 1);
  EXPECT_EQ(pos("workers"), pos("leak") + 1);
  EXPECT_EQ(pos("tool_stats"), pos("workers") + 1);
}

TEST_F(ReportJson, NewerCountersAreEmittedEverywhere) {
  // Named by hand, so a field dropped from kCounterFields fails here too.
  for (const char* name :
       {"failed_requests", "poll_armed", "poll_armed_regular", "short_writes", "task_adds",
        "task_work_runs", "task_work_items", "local_task_work_runs", "local_task_work_items",
        "local_task_work_max_lag_ns", "local_task_work_pending_ns", "sqpoll_offcpu_ns",
        "sqpoll_sleeps", "sqpoll_preempts", "sqpoll_wakeups", "workers_distinct",
        "cancelled_at_exit", "leaks_suspected", "leaks_pending"}) {
    EXPECT_TRUE(j.at("counters").contains(name)) << name;
    for (const Json& r : j.at("rings")) EXPECT_TRUE(r.at("counters").contains(name)) << name;
  }
  const Json& c = j.at("counters");
  EXPECT_EQ(c.at("poll_armed").get<uint64_t>(), 940u);  // 40 + 900
  EXPECT_EQ(c.at("poll_armed_regular").get<uint64_t>(), 12u);
  EXPECT_EQ(c.at("short_writes").get<uint64_t>(), 17u);
  EXPECT_EQ(c.at("task_adds").get<uint64_t>(), 1'105'000u);
  EXPECT_EQ(c.at("task_work_runs").get<uint64_t>(), 601'000u);
  EXPECT_EQ(c.at("task_work_items").get<uint64_t>(), 1'105'000u);
  EXPECT_EQ(c.at("sqpoll_offcpu_ns").get<uint64_t>(), 9'300'000'000u);
  EXPECT_EQ(c.at("sqpoll_sleeps").get<uint64_t>(), 9u);
  EXPECT_EQ(c.at("sqpoll_preempts").get<uint64_t>(), 35u);
  EXPECT_EQ(c.at("sqpoll_wakeups").get<uint64_t>(), 8u);
  EXPECT_EQ(c.at("workers_distinct").get<uint64_t>(), 66u);  // pid 31337: 64, pid 4242: 2
  EXPECT_EQ(c.at("failed_requests").get<uint64_t>(), 1u);
  EXPECT_EQ(c.at("cancelled_at_exit").get<uint64_t>(), 1u);
  EXPECT_EQ(c.at("leaks_suspected").get<uint64_t>(), 2u);
  EXPECT_EQ(c.at("leaks_pending").get<uint64_t>(), 3u);

  const Json& r1 = j.at("rings")[1].at("counters");
  EXPECT_EQ(r1.at("sqpoll_offcpu_ns").get<uint64_t>(), 9'300'000'000u);
  EXPECT_EQ(r1.at("workers_distinct").get<uint64_t>(), 2u);
  EXPECT_EQ(r1.at("leaks_pending").get<uint64_t>(), 3u);
  EXPECT_EQ(j.at("rings")[0].at("counters").at("workers_distinct").get<uint64_t>(), 64u);

  // Each ring's counters are its own values, field by field.
  for (std::size_t i = 0; i < snap.rings.size(); ++i)
    for (const CounterField& f : kCounterFields)
      EXPECT_EQ(j.at("rings")[i].at("counters").at(std::string(f.name)).get<uint64_t>(),
                snap.rings[i].counters.*f.member)
          << "ring " << i << " " << f.name;
}

TEST_F(ReportJson, LagCountersAreTheLargestNotTheSum) {
  snap.rings[0].counters.local_task_work_max_lag_ns = 4'500'000;
  snap.rings[1].counters.local_task_work_max_lag_ns = 1'000'000;
  aggregate(snap);
  Json again = render_json(snap, findings);
  EXPECT_EQ(again.at("counters").at("local_task_work_max_lag_ns").get<uint64_t>(), 4'500'000u);
}

TEST_F(ReportJson, OpPuntReasonsErrnosAndPollCounts) {
  const Json& write = op_named(j.at("ops"), "WRITE");
  EXPECT_EQ(write.at("punt_reasons"),
            (Json{{"forced", 0}, {"hashed", 1'820}, {"regular_file", 0}, {"eagain", 0}}));
  const Json& errnos = write.at("errnos");
  ASSERT_TRUE(errnos.is_array());
  ASSERT_EQ(errnos.size(), 2u);
  EXPECT_EQ(keys_of(errnos[0]), (std::set<std::string>{"errno", "name", "count"}));
  ASSERT_TRUE(errnos[0].at("errno").is_number_integer());
  EXPECT_EQ(errnos[0].at("errno").get<int>(), 9);
  EXPECT_EQ(errnos[0].at("name"), "EBADF");
  EXPECT_EQ(errnos[0].at("count").get<uint64_t>(), 2u);
  EXPECT_EQ(errnos[1].at("errno").get<int>(), 22);
  EXPECT_EQ(errnos[1].at("name"), "EINVAL");
  EXPECT_EQ(errnos[1].at("count").get<uint64_t>(), 1u);
  EXPECT_EQ(write.at("failed").get<uint64_t>(), 1u);

  const Json& read = op_named(j.at("ops"), "READ");
  EXPECT_EQ(read.at("punt_reasons"),
            (Json{{"forced", 0}, {"hashed", 0}, {"regular_file", 690'000}, {"eagain", 5'512}}));
  EXPECT_EQ(read.at("errnos"), Json::array());
  EXPECT_EQ(read.at("poll_armed").get<uint64_t>(), 40u);
  EXPECT_EQ(read.at("poll_armed_regular").get<uint64_t>(), 12u);
  EXPECT_EQ(read.at("cancelled_at_exit").get<uint64_t>(), 1u);
  EXPECT_EQ(op_named(j.at("ops"), "FSYNC").at("punt_reasons").at("forced").get<uint64_t>(),
            16'304u);
  for (const char* key : {"failed", "poll_armed", "poll_armed_regular", "cancelled_at_exit"})
    EXPECT_TRUE(read.at(key).is_number_unsigned()) << key;
  for (const auto& [key, value] : read.at("punt_reasons").items())
    EXPECT_TRUE(value.is_number_unsigned()) << key;

  // Per ring, the same shape with the ring's own numbers.
  const Json& recv = j.at("rings")[1].at("ops")[0];
  EXPECT_EQ(recv.at("op"), "RECV");
  EXPECT_EQ(recv.at("poll_armed").get<uint64_t>(), 900u);
  EXPECT_EQ(recv.at("poll_armed_regular").get<uint64_t>(), 0u);
}

TEST_F(ReportJson, Leak) {
  const Json& leak = j.at("leak");
  EXPECT_EQ(keys_of(leak), (std::set<std::string>{"threshold_ns", "suspected", "pending",
                                                  "oldest_ns", "requests", "waiting_samples"}));
  ASSERT_EQ(leak.at("waiting_samples").size(), 3u);
  EXPECT_EQ(leak.at("waiting_samples")[1].at("at_ns").get<uint64_t>(), 250'000'000u);
  EXPECT_EQ(leak.at("waiting_samples")[2].at("requests").get<uint64_t>(), 5u);
  EXPECT_EQ(leak.at("threshold_ns").get<uint64_t>(), 5'000'000'000u);
  EXPECT_EQ(leak.at("suspected").get<uint64_t>(), 2u);
  EXPECT_EQ(leak.at("pending").get<uint64_t>(), 3u);
  EXPECT_EQ(leak.at("oldest_ns").get<uint64_t>(), 11'900'000'000u);
  const Json& reqs = leak.at("requests");
  ASSERT_EQ(reqs.size(), 5u);
  std::set<std::string> keys{"ring", "op", "opcode", "age_ns", "user_data", "user_data_hex",
                             "where", "abandoned", "waiting", "file"};
  for (const Json& r : reqs) {
    EXPECT_EQ(keys_of(r), keys);
    EXPECT_TRUE(r.at("user_data").is_number_unsigned());
    EXPECT_TRUE(r.at("abandoned").is_boolean());
    EXPECT_TRUE(r.at("waiting").is_boolean());
  }
  EXPECT_EQ(reqs[0].at("ring").get<unsigned>(), 0u);
  EXPECT_EQ(reqs[0].at("op"), "READ");
  EXPECT_EQ(reqs[0].at("opcode").get<unsigned>(), 22u);
  EXPECT_EQ(reqs[0].at("age_ns").get<uint64_t>(), 11'900'000'000u);
  EXPECT_EQ(reqs[0].at("user_data").get<uint64_t>(), 0xdeadbeef00000001u);  // above INT64_MAX
  EXPECT_EQ(reqs[0].at("user_data_hex"), "0xdeadbeef00000001");
  EXPECT_EQ(reqs[0].at("where"), "io-wq");
  EXPECT_EQ(reqs[0].at("abandoned"), false);
  EXPECT_EQ(reqs[0].at("waiting"), false);
  EXPECT_TRUE(reqs[0].at("file").is_null());  // no --files

  EXPECT_EQ(reqs[1].at("ring").get<unsigned>(), 1u);
  EXPECT_EQ(reqs[1].at("op"), "RECV");
  EXPECT_EQ(reqs[1].at("where"), "poll");
  EXPECT_EQ(reqs[1].at("waiting"), true);
  EXPECT_EQ(reqs[1].at("user_data_hex"), "0x1000");
  EXPECT_EQ(reqs[1].at("file"), "tcp 127.0.0.1:5432 -> 127.0.0.1:40122");

  EXPECT_EQ(reqs[3].at("where"), "issued");
  EXPECT_EQ(reqs[3].at("abandoned"), true);
  EXPECT_EQ(reqs[3].at("user_data").get<uint64_t>(), 42u);
  EXPECT_EQ(reqs[3].at("user_data_hex"), "0x2a");

  // The exposed piece has the same shape, and big user_data survives a text round trip.
  EXPECT_EQ(leak_json(snap.leak), leak);
  Json back = Json::parse(j.dump());
  EXPECT_EQ(back.at("leak").at("requests")[0].at("user_data").get<uint64_t>(),
            0xdeadbeef00000001u);
}

TEST_F(ReportJson, Workers) {
  EXPECT_EQ(j.at("workers"), (Json::array({Json{{"pid", 31337}, {"distinct", 64}},
                                           Json{{"pid", 4242}, {"distinct", 2}}})));
  EXPECT_TRUE(j.at("workers")[0].at("pid").is_number_unsigned());
}

TEST(ReportJsonEmpty, EmptySnapshotKeepsTheShape) {
  Snapshot snap;
  snap.target.mode = TargetMode::Command;
  snap.target.command = {"./myapp", "-x"};
  aggregate(snap);
  Json j = render_json(snap, {});
  EXPECT_EQ(j.at("rings"), Json::array());
  EXPECT_EQ(j.at("ops"), Json::array());
  EXPECT_EQ(j.at("findings"), Json::array());
  EXPECT_EQ(j.at("kernel").at("features"), Json::object());
  EXPECT_EQ(j.at("target").at("mode"), "command");
  EXPECT_EQ(j.at("target").at("command"), (Json{"./myapp", "-x"}));
  // + trace_rb_drops
  EXPECT_EQ(j.at("counters").size(), kCounterFields.size() + 1);
  // The leak scan always runs: zeros here mean "none found", so the object is there.
  EXPECT_EQ(j.at("leak"), (Json{{"threshold_ns", 0},
                                {"suspected", 0},
                                {"pending", 0},
                                {"oldest_ns", 0},
                                {"requests", Json::array()},
                               {"waiting_samples", Json::array()}}));
  EXPECT_EQ(j.at("workers"), Json::array());
  EXPECT_EQ(Json::parse(j.dump()), j);
}

TEST_F(ReportJson, HazardsAndEndToEndSayNotMeasured) {
  // Before findings, as the contract lists them.
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  auto pos = [&](const std::string& k) {
    return std::find(keys.begin(), keys.end(), k) - keys.begin();
  };
  EXPECT_EQ(pos("hazards"), pos("tool_stats") + 1);
  EXPECT_EQ(pos("end_to_end"), pos("hazards") + 1);
  EXPECT_EQ(pos("findings"), pos("end_to_end") + 1);
  EXPECT_TRUE(j.at("hazards").at("available").is_boolean());
  EXPECT_TRUE(j.at("end_to_end").at("available").is_boolean());

  // Hazard counts are 0 without --check, at the top level and in every ring's; trace
  // drops are a true 0 (no per-event records without --trace), on every counters object.
  for (const char* hazard : {"hazard_overlaps", "hazard_bufreg", "hazard_unmap"}) {
    EXPECT_EQ(j.at("counters").at(hazard).get<uint64_t>(), 0u) << hazard;
    for (const Json& r : j.at("rings")) EXPECT_EQ(r.at("counters").at(hazard), 0u) << hazard;
  }
  std::vector<const Json*> all{&j.at("counters")};
  for (const Json& r : j.at("rings")) all.push_back(&r.at("counters"));
  for (const Json* c : all) {
    ASSERT_TRUE(c->contains("trace_rb_drops"));
    EXPECT_TRUE(c->at("trace_rb_drops").is_number_unsigned());
    EXPECT_EQ(c->at("trace_rb_drops").get<uint64_t>(), 0u);
  }
  // One key set: the run's counters and every ring's.
  const std::set<std::string> run_keys = keys_of(j.at("counters"));
  EXPECT_EQ(keys_of(counters_json(Counters{})), run_keys);
  for (const Json& r : j.at("rings")) EXPECT_EQ(keys_of(r.at("counters")), run_keys);
}

// --- stable key names

// Objects whose keys are data (feature names, evidence names), not schema: their keys
// show as "*". Evidence keys are each rule's own and are pinned by the rules tests.
bool keys_are_data(const std::string& path) {
  return path == "kernel.features" || path == "kernel.feature_detail" ||
         path == "findings[].evidence";
}

// Every key path in `v`: "rings[].ops[].punt_reasons.forced", array elements as "[]".
void collect_paths(const Json& v, const std::string& path, std::set<std::string>& out) {
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      std::string sub = (path.empty() ? "" : path + ".") + (keys_are_data(path) ? "*" : key);
      out.insert(sub);
      collect_paths(value, sub, out);
    }
  } else if (v.is_array()) {
    for (const Json& item : v) {
      out.insert(path + "[]");
      collect_paths(item, path + "[]", out);
    }
  }
}

// Written out by hand on purpose: a key renamed or removed in the renderer fails here,
// and a key added must be added here too (and to docs/json.md and the schema). Within
// schema 2 this list may only grow.
const std::set<std::string> kKeyPaths = {
    "tool", "schema", "tool_version", "wall_ns", "ncpus",
    "kernel", "kernel.release", "kernel.tier",
    "kernel.features", "kernel.features.*", "kernel.feature_detail", "kernel.feature_detail.*",
    "target", "target.mode", "target.pids", "target.pids[]", "target.pids_omitted", "target.command",
    "target.command[]",
    "counters",
    "counters.enter_calls", "counters.enter_submit_calls", "counters.to_submit_sum",
    "counters.submissions", "counters.completions", "counters.punted", "counters.errors",
    "counters.cq_overflows", "counters.multishot_cqes", "counters.untracked_completions",
    "counters.inflight_map_drops", "counters.rings_created", "counters.failed_requests",
    "counters.poll_armed", "counters.poll_armed_regular", "counters.short_writes",
    "counters.task_adds", "counters.task_work_runs", "counters.task_work_items",
    "counters.local_task_work_runs", "counters.local_task_work_items",
    "counters.local_task_work_max_lag_ns", "counters.local_task_work_pending_ns",
    "counters.sqpoll_offcpu_ns", "counters.sqpoll_sleeps", "counters.sqpoll_preempts",
    "counters.sqpoll_wakeups", "counters.workers_distinct", "counters.cancelled_at_exit",
    "counters.leaks_suspected", "counters.leaks_pending", "counters.aux_cqes_by_request",
    "counters.trace_rb_drops",
    "counters.hazard_overlaps", "counters.hazard_bufreg", "counters.hazard_unmap",
    "ops", "ops[]", "ops[].op", "ops[].opcode", "ops[].submitted", "ops[].completed",
    "ops[].untracked", "ops[].punted", "ops[].punt_pct", "ops[].punt_reasons",
    "ops[].punt_reasons.forced", "ops[].punt_reasons.hashed",
    "ops[].punt_reasons.regular_file", "ops[].punt_reasons.eagain", "ops[].errors",
    "ops[].errnos", "ops[].errnos[]", "ops[].errnos[].errno", "ops[].errnos[].name",
    "ops[].errnos[].count", "ops[].failed", "ops[].multishot_cqes", "ops[].poll_armed",
    "ops[].poll_armed_regular", "ops[].cancelled_at_exit", "ops[].zc_results", "ops[].zc_result_sum_ns", "ops[].zc_notifications", "ops[].bytes", "ops[].bytes_per_request", "ops[].bytes_per_sec", "ops[].avg_ns", "ops[].p50_ns",
    "ops[].p99_ns", "ops[].max_ns", "ops[].log2_hist", "ops[].log2_hist[]",
    "rings", "rings[]", "rings[].id", "rings[].fd", "rings[].pid", "rings[].comm",
    "rings[].sq_entries", "rings[].cq_entries", "rings[].flags", "rings[].flag_names",
    "rings[].flag_names[]", "rings[].sqpoll", "rings[].sq_tid", "rings[].source", "rings[].destroyed",
    "rings[].fold", "rings[].folded_rings", "rings[].avg_batch",
    "rings[].counters",
    "rings[].counters.enter_calls", "rings[].counters.enter_submit_calls",
    "rings[].counters.to_submit_sum", "rings[].counters.submissions",
    "rings[].counters.completions", "rings[].counters.punted", "rings[].counters.errors",
    "rings[].counters.cq_overflows", "rings[].counters.multishot_cqes",
    "rings[].counters.untracked_completions", "rings[].counters.inflight_map_drops",
    "rings[].counters.rings_created", "rings[].counters.failed_requests",
    "rings[].counters.poll_armed", "rings[].counters.poll_armed_regular",
    "rings[].counters.short_writes", "rings[].counters.task_adds",
    "rings[].counters.task_work_runs", "rings[].counters.task_work_items",
    "rings[].counters.local_task_work_runs", "rings[].counters.local_task_work_items",
    "rings[].counters.local_task_work_max_lag_ns",
    "rings[].counters.local_task_work_pending_ns", "rings[].counters.sqpoll_offcpu_ns",
    "rings[].counters.sqpoll_sleeps", "rings[].counters.sqpoll_preempts",
    "rings[].counters.sqpoll_wakeups", "rings[].counters.workers_distinct",
    "rings[].counters.cancelled_at_exit", "rings[].counters.leaks_suspected",
    "rings[].counters.leaks_pending", "rings[].counters.aux_cqes_by_request",
    "rings[].counters.trace_rb_drops",
    "rings[].counters.hazard_overlaps", "rings[].counters.hazard_bufreg",
    "rings[].counters.hazard_unmap",
    "rings[].files", "rings[].ops", "rings[].ops[]", "rings[].ops[].op", "rings[].ops[].opcode",
    "rings[].ops[].submitted", "rings[].ops[].completed", "rings[].ops[].untracked",
    "rings[].ops[].punted", "rings[].ops[].punt_pct", "rings[].ops[].punt_reasons",
    "rings[].ops[].punt_reasons.forced", "rings[].ops[].punt_reasons.hashed",
    "rings[].ops[].punt_reasons.regular_file", "rings[].ops[].punt_reasons.eagain",
    "rings[].ops[].errors", "rings[].ops[].errnos", "rings[].ops[].errnos[]",
    "rings[].ops[].errnos[].errno", "rings[].ops[].errnos[].name",
    "rings[].ops[].errnos[].count", "rings[].ops[].failed", "rings[].ops[].multishot_cqes",
    "rings[].ops[].poll_armed", "rings[].ops[].poll_armed_regular",
    "rings[].ops[].cancelled_at_exit", "rings[].ops[].zc_results", "rings[].ops[].zc_result_sum_ns", "rings[].ops[].zc_notifications", "rings[].ops[].bytes", "rings[].ops[].bytes_per_request", "rings[].ops[].bytes_per_sec", "rings[].ops[].avg_ns", "rings[].ops[].p50_ns",
    "rings[].ops[].p99_ns", "rings[].ops[].max_ns", "rings[].ops[].log2_hist",
    "rings[].ops[].log2_hist[]",
    "rings_omitted", "rings_omitted.rings", "rings_omitted.idle_rings",
    "rings_omitted.processes",
    "leak", "leak.threshold_ns", "leak.suspected", "leak.pending", "leak.oldest_ns",
    "leak.requests", "leak.requests[]", "leak.requests[].ring", "leak.requests[].op",
    "leak.requests[].opcode", "leak.requests[].age_ns", "leak.requests[].user_data",
    "leak.requests[].user_data_hex", "leak.requests[].where", "leak.requests[].abandoned",
    "leak.requests[].waiting", "leak.requests[].file", "leak.waiting_samples", "leak.waiting_samples[]",
    "leak.waiting_samples[].at_ns", "leak.waiting_samples[].requests",
    "workers", "workers[]", "workers[].pid", "workers[].distinct", "invalid_utf8_replaced",
    "tool_stats", "tool_stats.rings_full", "tool_stats.opstats_full",
    "tool_stats.op_out_of_range", "tool_stats.enter_no_ring", "tool_stats.overflow_no_req",
    "tool_stats.errno_full", "tool_stats.threads_full", "tool_stats.trace_drops",
    "tool_stats.udata_ambiguous", "tool_stats.udata_evicted", "tool_stats.zc_ambiguous",
    "tool_stats.notif_no_req", "tool_stats.latency_torn", "tool_stats.check_drops",
    "tool_stats.check_unseen", "tool_stats.files_full", "tool_stats.names_full",
    "tool_stats.kernel_misses",
    "hazards", "hazards.available", "hazards.ranges_checked", "hazards.calls_checked",
    "hazards.overlap", "hazards.bufreg", "hazards.unmap",
    "hazards.records",
    "end_to_end", "end_to_end.available",
    "findings", "findings[]", "findings[].tag", "findings[].severity", "findings[].ring",
    "findings[].op", "findings[].opcode", "findings[].message", "findings[].suggestion",
    "findings[].evidence", "findings[].evidence.*",
};

TEST_F(ReportJson, KeyPathsAreStable) {
  // The fixture fills every array the report has, so every element shape is walked; a
  // command line makes target.command non-empty too.
  snap.target.command = {"./myapp", "--serve"};
  std::set<std::string> paths;
  collect_paths(render_json(snap, findings), "", paths);

  std::vector<std::string> missing;  // renamed or removed: breaks consumers
  std::set_difference(kKeyPaths.begin(), kKeyPaths.end(), paths.begin(), paths.end(),
                      std::back_inserter(missing));
  std::vector<std::string> added;  // fine within schema 2, but list and document it
  std::set_difference(paths.begin(), paths.end(), kKeyPaths.begin(), kKeyPaths.end(),
                      std::back_inserter(added));
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& p : v) s += "\n  " + p;
    return s;
  };
  EXPECT_TRUE(missing.empty()) << "key paths gone from the report (a schema-2 break):"
                               << joined(missing);
  EXPECT_TRUE(added.empty()) << "new key paths: add them to kKeyPaths, docs/json.md and "
                                "docs/json.schema.json:"
                             << joined(added);
}

TEST(ReportJsonKeys, DocsNameEveryKey) {
  // docs/json.md promises to describe every field: each key of the list must appear
  // there in backticks. (Data keys, "*", are described by their parent.)
  const std::filesystem::path doc =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "docs" /
      "json.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << "cannot read " << doc;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& path : kKeyPaths) {
    std::string key = path.substr(path.find_last_of('.') == std::string::npos
                                      ? 0
                                      : path.find_last_of('.') + 1);
    while (key.size() > 2 && key.ends_with("[]")) key.resize(key.size() - 2);
    if (key == "*") continue;
    EXPECT_NE(text.find("`" + key + "`"), std::string::npos) << path << " is not in " << doc;
  }
}

TEST(ReportJsonKeys, PerRingAndTotalCountersAndOpsShareKeys) {
  // Counters and ops have one shape at the top level and per ring, the hazard counts
  // (--check) included; the walk above lists both, this pins that they are the same.
  std::set<std::string> top;
  std::set<std::string> ring;
  for (const std::string& p : kKeyPaths) {
    for (const std::string prefix : {"counters.", "ops[]."})
      if (p.rfind(prefix, 0) == 0) top.insert(p);
    for (const std::string prefix : {"rings[].counters.", "rings[].ops[]."})
      if (p.rfind(prefix, 0) == 0) ring.insert(p.substr(std::string("rings[].").size()));
  }
  EXPECT_EQ(top, ring);
  EXPECT_GT(top.size(), 50u);
}

// The same kind of value at every node: integers stay integers, floats stay floats
// (punt_pct 100 is written "100.0"), nulls stay null. nlohmann's == compares numbers
// across kinds, so it alone would not notice a float turning into an integer.
void expect_same_kinds(const Json& a, const nlohmann::json& b, const std::string& path) {
  auto kind = [](const auto& v) {
    if (v.is_number_integer()) return std::string("integer");  // signed or unsigned
    return std::string(v.type_name());
  };
  ASSERT_EQ(kind(a), kind(b)) << path;
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (const auto& [key, value] : a.items()) {
      ASSERT_TRUE(b.contains(key)) << path << "." << key;
      expect_same_kinds(value, b.at(key), path + "." + key);
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (std::size_t i = 0; i < a.size(); ++i)
      expect_same_kinds(a[i], b[i], path + "[" + std::to_string(i) + "]");
  }
}

TEST_F(ReportJson, RoundTripThroughPlainJsonIsExact) {
  // What a consumer does: parse the text (run.cpp writes dump(2)) with a plain json.
  for (int indent : {-1, 2}) {
    const std::string text = j.dump(indent);
    const nlohmann::json plain = nlohmann::json::parse(text);
    expect_same_kinds(j, plain, "$");
    // Values equal too: the text gives back the report exactly, in order, and a
    // consumer that writes its (key-sorted) copy out again reads the same document.
    EXPECT_EQ(Json::parse(text), j);
    EXPECT_EQ(nlohmann::json::parse(plain.dump()), plain);
    EXPECT_EQ(nlohmann::json::parse(Json::parse(text).dump()), plain);
  }
  const nlohmann::json plain = nlohmann::json::parse(j.dump());
  EXPECT_EQ(plain.at("hazards").at("available"), false);
  EXPECT_EQ(plain.at("rings")[0].at("ops")[1].at("punt_pct").get<double>(),
            j.at("rings")[0].at("ops")[1].at("punt_pct").get<double>());  // bit-exact
  EXPECT_TRUE(plain.at("rings")[1].at("fd").is_null());
}

}  // namespace
}  // namespace uringscope::report_test

namespace uringscope {
namespace {

// --check's records: every key the docs name, both requests of an overlap.
TEST(HazardsJson, RecordsCarryBothRequestsAndTheRange) {
  HazardInfo info;
  info.checked = true;
  info.overlaps = 1;
  HazardRequest a{.ring = 0, .opcode = 22, .user_data = 1, .addr = 0x1000, .len = 4096,
                  .into = true, .fixed = false, .index = 0, .submit_ns = 10};
  HazardRequest b = a;
  b.user_data = 2;
  b.addr = 0x1800;
  b.submit_ns = 15;
  info.records.push_back({.kind = HazardKind::Overlap, .pid = 7, .first = a, .second = b,
                          .addr = 0x1800, .len = 2048, .at_ns = 15, .call = {}});
  info.records.push_back({.kind = HazardKind::Unmap, .pid = 7, .first = a, .second = std::nullopt,
                          .addr = 0x1000, .len = 4096, .at_ns = 30, .call = "munmap"});
  const auto j = hazards_json(info);
  EXPECT_EQ(j.at("available"), true);
  EXPECT_EQ(j.at("overlap"), 1);
  ASSERT_EQ(j.at("records").size(), 2u);
  const auto& overlap = j.at("records")[0];
  EXPECT_EQ(overlap.at("kind"), "overlap");
  EXPECT_EQ(overlap.at("second").at("user_data"), 2);
  EXPECT_EQ(overlap.at("first").at("op"), "READ");
  EXPECT_EQ(overlap.at("first").at("user_data_hex"), "0x1");
  EXPECT_EQ(overlap.at("len"), 2048);
  EXPECT_TRUE(overlap.at("call").is_null());
  const auto& unmap = j.at("records")[1];
  EXPECT_TRUE(unmap.at("second").is_null());
  EXPECT_EQ(unmap.at("call"), "munmap");
  std::set<std::string> keys;
  for (const auto& [k, v] : overlap.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"kind", "pid", "first", "second", "addr", "len", "at_ns",
                                         "call"}));
}

}  // namespace
}  // namespace uringscope
