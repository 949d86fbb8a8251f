// SPDX-License-Identifier: MIT
// The report fixture: one hand-built snapshot and its findings, which the text, JSON and
// schema tests render. Every number the tests expect is derived by hand from the comment
// below.
#include "support/fixtures.h"

namespace uringscope::report_test {

// ring 0  myapp pid 31337, fd 5, no flags, created in the window.
//         READ  1,102,238 submitted, 695,512 punted (63.0999...%), latency:
//               1,000,000 in [8192,16384) ns, 102,000 in [2^20,2^21), 236 in [2^23,2^24),
//               max 9.1ms; p50 = rank 551,118 of 1,102,236 -> 8192 + 8192*0.551118
//               = 12,706ns ("12.7us"); p99 = rank 1,091,214 -> 2^20 + 2^20*91,214/102,000
//               = 1,986,270ns ("1.99ms"); mean 167,124,000,000 / 1,102,236 = 151,622ns.
//         WRITE 91,002 submitted, 1,820 punted (2.0%), 3 errors.
//         FSYNC 16,304 submitted, all punted (100.0%) -- no finding, so no marker.
//         1,209,544 SQEs over 1,204,332 submitting enters: avg batch 1.0043.
// ring 1  dbwriter pid 4242, fd unknown, SQPOLL|CQSIZE, found in the fd table at attach;
//         RECV 5,000 submitted, 5,012 completed of which 12 untracked; 7 CQ overflows.
// ring 2  the catch-all ring: 3 NOPs.
//
// The newer fields, all hand-set:
// ring 0  punt reasons: FSYNC 16,304 forced; READ 690,000 regular file + 5,512 -EAGAIN
//         (= 695,512); WRITE 1,820 hashed. WRITE's 3 errors are EBADF (9) x2, EINVAL (22)
//         x1, and 1 WRITE was rejected before issue. READ: 40 waited on poll, 12 of them on
//         regular files, 1 cancelled at exit. Counters: 1 failed request, poll 40/12,
//         17 short writes, 1,100,000 task work queued, run in 600,000 passes
//         (1,100,000 items), 1 CQE cancelled at exit, 64 io-wq workers (pid 31337), 2 leaks
//         suspected.
// ring 1  SQPOLL thread tid 4250: 9.3s off-CPU = 75.0% of the 12.4s window, 9 sleeps,
//         35 preemptions, 8 wake-up enters. RECV: 900 of 5,000 waited on poll. 5,000 task
//         work queued, 1,000 runs of 5,000 items; 2 io-wq workers (pid 4242); 3 pending.
// leaks   threshold 5s, 2 suspected + 3 pending, oldest 11.9s; five records, oldest first.
// workers pid 31337: 64, pid 4242: 2.
Histogram read_histogram() {
  Histogram h;
  h.buckets[13] = 1'000'000;
  h.buckets[20] = 102'000;
  h.buckets[23] = 236;
  h.sum_ns = 1'000'000ull * 12'000 + 102'000ull * 1'500'000 + 236ull * 9'000'000;
  h.max_ns = 9'100'000;
  return h;
}

Histogram uniform_histogram(uint64_t n, uint64_t each_ns) {
  Histogram h;
  std::size_t slot = 0;
  while (slot + 1 < kHistBuckets && bucket_upper_ns(slot) <= each_ns) ++slot;
  h.buckets[slot] = n;
  h.sum_ns = n * each_ns;
  h.max_ns = n ? each_ns : 0;
  return h;
}

Snapshot report_fixture() {
  Snapshot s;
  s.tool_version = "0.1.0";
  s.wall_ns = 12'400'000'000;
  s.ncpus = 8;
  s.kernel.release = "6.18.44";
  s.kernel.tier = Tier::Full;
  s.kernel.features = {{"submit", true, "io_uring_submit_req"},
                       {"punt", false, "io_uring_queue_async_work missing from BTF"}};
  s.target.mode = TargetMode::Pid;
  s.target.pids = {31337, 4242};

  Ring r0;
  r0.id = 0;
  r0.ctx = 0xffff888012340000;
  r0.pid = 31337;
  r0.comm = "myapp";
  r0.fd = 5;
  r0.sq_entries = 256;
  r0.cq_entries = 512;
  r0.setup_flags = 0;
  r0.source = RingSource::Create;
  r0.counters.enter_calls = 1'204'332;
  r0.counters.enter_submit_calls = 1'204'332;
  r0.counters.to_submit_sum = 1'209'544;
  r0.counters.submissions = 1'209'544;
  r0.counters.completions = 1'209'542;
  r0.counters.punted = 713'636;
  r0.counters.errors = 3;
  r0.counters.rings_created = 1;
  r0.counters.failed_requests = 1;
  r0.counters.poll_armed = 40;
  r0.counters.poll_armed_regular = 12;
  r0.counters.short_writes = 17;
  r0.counters.task_adds = 1'100'000;
  r0.counters.task_work_runs = 600'000;
  r0.counters.task_work_items = 1'100'000;
  r0.counters.cancelled_at_exit = 1;
  r0.counters.workers_distinct = 64;
  r0.counters.leaks_suspected = 2;
  {
    OpStats fsync;
    fsync.opcode = 3;
    fsync.submitted = fsync.completed = fsync.punted = 16'304;
    fsync.punt_reasons.forced = 16'304;
    fsync.latency.buckets[16] = 16'304;
    fsync.latency.sum_ns = 16'304ull * 100'000;
    fsync.latency.max_ns = 120'000;
    OpStats read;
    read.opcode = 22;
    read.submitted = 1'102'238;
    read.completed = 1'102'236;
    read.punted = 695'512;
    read.punt_reasons.regular_file = 690'000;
    read.punt_reasons.eagain = 5'512;
    read.poll_armed = 40;
    read.poll_armed_regular = 12;
    read.cancelled_at_exit = 1;
    read.latency = read_histogram();
    read.bytes = 1'102'236ull * 4096;  // 4.2GiB, 4.0KiB per request
    OpStats write;
    write.opcode = 23;
    write.submitted = write.completed = 91'002;
    write.punted = 1'820;
    write.punt_reasons.hashed = 1'820;
    write.errors = 3;
    write.errnos = {{9, 2}, {22, 1}};  // EBADF, EINVAL
    write.failed = 1;
    write.bytes = 91'002ull * 512;  // 44.4MiB, 512B per request
    write.latency.buckets[14] = 91'002;
    write.latency.sum_ns = 91'002ull * 22'000;
    write.latency.max_ns = 30'000;
    r0.ops = {fsync, read, write};
  }

  Ring r1;
  r1.id = 1;
  r1.ctx = 0xffff888056780000;
  r1.pid = 4242;
  r1.comm = "dbwriter";
  r1.fd = -1;
  r1.sq_entries = 64;
  r1.cq_entries = 128;
  r1.setup_flags = (1u << 1) | (1u << 3);  // SQPOLL | CQSIZE
  r1.source = RingSource::FdTable;
  r1.counters.enter_calls = 10;
  r1.counters.submissions = 5'000;
  r1.counters.completions = 5'012;
  r1.counters.cq_overflows = 7;
  r1.counters.untracked_completions = 12;
  r1.sq_tid = 4250;
  r1.counters.poll_armed = 900;
  r1.counters.task_adds = 5'000;
  r1.counters.task_work_runs = 1'000;
  r1.counters.task_work_items = 5'000;
  r1.counters.sqpoll_offcpu_ns = 9'300'000'000;
  r1.counters.sqpoll_sleeps = 9;
  r1.counters.sqpoll_preempts = 35;
  r1.counters.sqpoll_wakeups = 8;
  r1.counters.workers_distinct = 2;
  r1.counters.leaks_pending = 3;
  {
    OpStats recv;
    recv.opcode = 27;
    recv.submitted = 5'000;
    recv.completed = 5'012;
    recv.untracked = 12;
    recv.poll_armed = 900;
    recv.latency.buckets[9] = 5'000;
    recv.latency.sum_ns = 5'000ull * 850;
    recv.latency.max_ns = 1'000;
    r1.ops = {recv};
  }

  Ring other;
  other.id = 2;
  other.source = RingSource::CatchAll;
  other.counters.enter_calls = 3;
  other.counters.enter_submit_calls = 3;
  other.counters.to_submit_sum = 3;
  other.counters.submissions = 3;
  other.counters.completions = 3;
  {
    OpStats nop;
    nop.opcode = 0;
    nop.submitted = nop.completed = 3;
    nop.latency.buckets[0] = 3;
    nop.latency.sum_ns = 3;
    nop.latency.max_ns = 1;
    other.ops = {nop};
  }

  s.rings = {r0, r1, other};
  s.tool.rings_full = 9;
  s.leak.threshold_ns = 5'000'000'000;
  s.leak.suspected = 2;
  s.leak.pending = 3;
  s.leak.oldest_ns = 11'900'000'000;
  s.leak.waiting_samples = {{0, 1}, {250'000'000, 3}, {500'000'000, 5}};
  s.leak.requests = {
      {.ring = 0, .opcode = 22, .age_ns = 11'900'000'000, .user_data = 0xdeadbeef00000001,
       .where = RequestWhere::IoWq},
      {.ring = 1, .opcode = 27, .age_ns = 10'500'000'000, .user_data = 0x1000,
       .where = RequestWhere::Poll, .waiting = true,
       .file = "tcp 127.0.0.1:5432 -> 127.0.0.1:40122"},
      {.ring = 1, .opcode = 27, .age_ns = 10'500'000'000, .user_data = 0x1001,
       .where = RequestWhere::Poll, .waiting = true},
      {.ring = 0, .opcode = 22, .age_ns = 8'200'000'000, .user_data = 0x2a,
       .where = RequestWhere::Issued, .abandoned = true},
      {.ring = 1, .opcode = 27, .age_ns = 7'000'000'000, .user_data = 0x1002,
       .where = RequestWhere::Poll, .waiting = true},
  };
  s.workers = {{31337, 64}, {4242, 2}};
  aggregate(s);
  return s;
}

std::vector<Finding> report_findings() {
  Finding overflow{"OVERFLOW", Severity::Crit, 1u, std::nullopt,
                   "ring #1: the CQ ring overflowed 7 times, so completions took the slow path.",
                   "Size the CQ ring larger with IORING_SETUP_CQSIZE or reap completions "
                   "more often.",
                   {{"cq_overflows", int64_t{7}}}};
  Finding punt{"PUNT", Severity::Warn, 0u, 22u,
               "ring #0: 695,512 of 1,102,238 READ requests were punted to io-wq worker threads "
               "(63.1%), most likely buffered reads that missed the page cache.",
               "Use O_DIRECT with registered buffers, or warm the page cache with readahead "
               "before reading.",
               {{"punt_pct", 63.1}, {"punted", int64_t{695'512}}, {"reason", std::string("buffered read miss")}}};
  Finding batch{"BATCH", Severity::Info, 0u, std::nullopt,
                "ring #0 submits 1.00 SQEs per io_uring_enter() call on average.",
                "Queue several SQEs before each submit.",
                {{"avg_batch", 1.0043}}};
  Finding tool{"TOOL", Severity::Info, std::nullopt, std::nullopt,
               "9 events could not be given a ring of their own.",
               "Nothing to change in the application.",
               {{"rings_full", int64_t{9}}}};
  return {overflow, punt, batch, tool};
}

}  // namespace uringscope::report_test
