// SPDX-License-Identifier: MIT
// The baseline fixture: a saved report's snapshot and findings, which the baseline
// reader, its fuzzer and the diff read back. Expected values are derived by hand from
// the comment below.
#include "support/fixtures.h"

namespace uringscope::baseline_test {

// 10s window, three rings:
// ring 0  app pid 100, fd 5, created in the window. 4,000 SQEs over 1,000 submitting
//         enters: avg batch 4.0; 2 CQ overflows.
//         READ  1,000 submitted, 250 punted (25%), 4 errors; latency 1,000 samples in
//               [1024, 2048) ns, max 2047: p50 = rank 500 -> 1024 + 1024 * 0.5 = 1536;
//               p99 = rank 990 -> 1024 + 1024 * 0.99 = 2037.76 -> 2037.
//         WRITE 3,000 submitted, none punted, no errors; 3,000 in [4096, 8192), max 8191:
//               p50 = 4096 + 4096 * 0.5 = 6144; p99 = 4096 + 4096 * 0.99 = 8151.04 -> 8151.
// ring 1  db pid 200, fd unknown, found in the fd table; SQPOLL, so no submitting enter
//         (avg batch 0). FSYNC 500 submitted, all punted, 1 error; 500 in [2^20, 2^21),
//         max 2,000,000: p50 = 2^20 * 1.5 = 1,572,864; p99 = 2^20 * 1.99 = 2,086,666
//         capped at the max: 2,000,000.
// ring 2  the catch-all ring, no ops.
// findings: PUNT WARN ring 0 READ; OVERFLOW CRIT ring 0; TOOL INFO, no ring, no op.
Snapshot baseline_fixture() {
  Snapshot s;
  s.tool_version = "0.1.0";
  s.wall_ns = 10'000'000'000;
  s.ncpus = 4;
  s.kernel.release = "6.18.44";
  s.kernel.tier = Tier::Full;
  s.target.mode = TargetMode::Command;
  s.target.command = {"./app", "--fast"};

  Ring app;
  app.id = 0;
  app.pid = 100;
  app.comm = "app";
  app.fd = 5;
  app.sq_entries = 256;
  app.cq_entries = 512;
  app.source = RingSource::Create;
  app.counters.enter_calls = 1'200;
  app.counters.enter_submit_calls = 1'000;
  app.counters.to_submit_sum = 4'000;
  app.counters.submissions = 4'000;
  app.counters.completions = 4'000;
  app.counters.punted = 250;
  app.counters.errors = 4;
  app.counters.cq_overflows = 2;
  {
    OpStats read;
    read.opcode = 22;
    read.submitted = read.completed = 1'000;
    read.punted = 250;
    read.punt_reasons.regular_file = 250;
    read.errors = 4;
    read.errnos = {{5, 4}};  // EIO
    read.latency.buckets[10] = 1'000;
    read.latency.sum_ns = 1'000ull * 1'500;
    read.latency.max_ns = 2'047;
    OpStats write;
    write.opcode = 23;
    write.submitted = write.completed = 3'000;
    write.latency.buckets[12] = 3'000;
    write.latency.sum_ns = 3'000ull * 6'000;
    write.latency.max_ns = 8'191;
    app.ops = {read, write};
  }

  Ring db;
  db.id = 1;
  db.pid = 200;
  db.comm = "db";
  db.fd = -1;
  db.setup_flags = 1u << 1;  // SQPOLL
  db.source = RingSource::FdTable;
  db.sq_tid = 201;
  db.counters.submissions = 500;
  db.counters.completions = 500;
  db.counters.punted = 500;
  db.counters.errors = 1;
  {
    OpStats fsync;
    fsync.opcode = 3;
    fsync.submitted = fsync.completed = fsync.punted = 500;
    fsync.punt_reasons.forced = 500;
    fsync.errors = 1;
    fsync.errnos = {{28, 1}};  // ENOSPC
    fsync.latency.buckets[20] = 500;
    fsync.latency.sum_ns = 500ull * 1'500'000;
    fsync.latency.max_ns = 2'000'000;
    db.ops = {fsync};
  }

  Ring other;
  other.id = 2;
  other.source = RingSource::CatchAll;

  s.rings = {app, db, other};
  s.leak.threshold_ns = 5'000'000'000;
  s.workers = {{200, 3}};
  aggregate(s);
  return s;
}

std::vector<Finding> baseline_findings() {
  return {
      {"OVERFLOW", Severity::Crit, 0u, std::nullopt,
       "ring #0: the CQ ring overflowed 2 times, so completions took the slow path.",
       "Size the CQ ring larger.", {{"cq_overflows", int64_t{2}}}},
      {"PUNT", Severity::Warn, 0u, 22u,
       "ring #0: 250 of 1,000 READ requests were punted to io-wq (25.0%).",
       "Use O_DIRECT.", {{"punt_pct", 25.0}}},
      {"TOOL", Severity::Info, std::nullopt, std::nullopt, "Nothing lost, just saying.",
       "Nothing to change.", {}},
  };
}

}  // namespace uringscope::baseline_test
