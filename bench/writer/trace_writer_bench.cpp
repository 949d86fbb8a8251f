// SPDX-License-Identifier: MIT
// The --trace writer alone: a fixed, seeded stream of records (submits; punts with a
// worker's issue; poll arms; failures; multishot CQEs; CQEs by user_data only; CQEs of
// no request; thread names that need escaping) through TraceWriter into FILE. Prints
// the writer's wall time per record. The stream depends on nothing but the seed, so two
// builds' files can be compared byte for byte (bench/writer.sh does both).
#include <linux/io_uring.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "trace/trace_writer.h"

namespace {

using uringscope::TraceWriter;

// xorshift64: the same stream on every machine and build.
uint64_t next_random() {
  static uint64_t state = 88172645463325252ull;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

uint64_t write_stream(TraceWriter& w, uint64_t requests) {
  static const char* const kComms[] = {"app", "iou-wrk-101", "we\x01ird\x7f", "bad\xff\xfe",
                                       "\xc3\xbctf8", "q\"uo\\te"};
  uint64_t ts = 1'000'000'000'123ull;
  uint64_t records = 0;
  auto add = [&](const us_trace_event& e) {
    w.add(e);
    ++records;
  };
  for (uint64_t i = 0; i < requests; ++i) {
    uint64_t r = next_random();
    us_trace_event e{};
    e.ring = 1 + r % 3;
    e.tgid = 100 + (r >> 8) % 2;
    e.tid = e.tgid + ((r >> 12) % 3 == 0 ? 1 : 0);
    e.opcode = (r >> 16) % 60;
    e.req = 0xffff888000000000ull + ((i % 97) << 8);  // io_kiocbs recycled, as the kernel does
    e.user_data = i * 0x1001 + (r & 0xff);
    std::strncpy(e.comm, kComms[(r >> 20) % 6], sizeof e.comm);
    ts += (r >> 24) % 3000;
    e.ts = ts;
    e.kind = US_TR_SUBMIT;
    add(e);
    if ((r >> 30) % 5 == 0) {
      us_trace_event punt = e;
      punt.kind = US_TR_PUNT;
      punt.aux = (r >> 33) % 5;
      punt.ts = ts + 10;
      add(punt);
      us_trace_event issue = e;
      issue.kind = US_TR_ISSUE;
      issue.tid = e.tgid + 7;
      issue.ts = ts + 20;
      add(issue);
    }
    if ((r >> 36) % 11 == 0) {
      us_trace_event arm = e;
      arm.kind = US_TR_POLL_ARM;
      arm.ts = ts + 15;
      add(arm);
    }
    if ((r >> 40) % 13 == 0) {
      us_trace_event failed = e;
      failed.kind = US_TR_FAILED;
      failed.res = -22;
      failed.ts = ts + 16;
      add(failed);
    }
    int cqes = (r >> 44) % 7 == 0 ? 3 : 1;
    for (int c = 0; c < cqes; ++c) {
      us_trace_event cqe = e;
      cqe.kind = US_TR_COMPLETE;
      cqe.ts = ts + 30 + c;
      cqe.res = (r >> 48) % 9 == 0 ? -static_cast<int32_t>((r >> 52) % 130)
                                   : static_cast<int32_t>((r >> 52) % 70000);
      cqe.cflags = c + 1 < cqes ? IORING_CQE_F_MORE | (c << 16) : 0;
      cqe.aux = (r >> 56) % 40;
      if ((r >> 58) % 17 == 0) cqe.req = 0;                      // matched by user_data
      if ((r >> 60) % 13 == 0 && c == 0) cqe.user_data ^= 0x5;  // no such request
      add(cqe);
    }
    // What the tool's drains do, at a fixed pace so the output stays the same.
    if (i % 50000 == 0) w.delivered_before(ts - 1000);
    if (i % 100000 == 7) w.set_dropped(i / 1000);
  }
  w.finish(ts + 5000, {{1, "ring one"}, {2, "r\"2"}});
  return records;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: trace_writer_bench FILE [REQUESTS (default 1000000)]\n");
    return 1;
  }
  try {
    uint64_t requests = argc == 3 ? std::stoull(argv[2]) : 1000000;
    auto start = std::chrono::steady_clock::now();
    TraceWriter writer(argv[1]);
    uint64_t records = write_stream(writer, requests);
    std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    std::printf("records=%llu seconds=%.3f ns_per_record=%.1f\n",
                static_cast<unsigned long long>(records), seconds.count(),
                seconds.count() * 1e9 / static_cast<double>(records));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trace_writer_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
