// SPDX-License-Identifier: MIT
// The kernel tier for the traps of the io_uring tracepoints (docs/matching.md):
// each test runs one fault-injector scenario that walks into one trap (recycled request
// pointers, CQEs without a request, overflowed CQEs, CQEs that never come, requests that
// fail before submit, submissions without io_uring_enter, requests older than the attach,
// completions in another thread) and holds uringscope's JSON to the injector's ground
// truth, exactly unless a tolerance is stated.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "harness.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;
using harness::ring_of;

using harness::latency_samples;
using harness::num;

namespace {

class Traps : public harness::KernelTest {
 protected:
  std::string json_file() { return file("report.json"); }
  // The per-op object, failing the test (not crashing it) when it is missing.
  static const nlohmann::json& op_of(const nlohmann::json& ring, const std::string& op) {
    const nlohmann::json* found = harness::find_op(ring.at("ops"), op);
    if (found == nullptr) {
      ADD_FAILURE() << "no " << op << " row in " << ring.at("ops").dump();
      static const nlohmann::json empty = {{"submitted", -1}, {"completed", -1},
                                           {"untracked", -1}, {"errors", -1},
                                           {"multishot_cqes", -1}, {"punted", -1},
                                           {"log2_hist", nlohmann::json::array()}};
      return empty;
    }
    return *found;
  }

};

// The kernel recycles io_kiocbs from a per-ring cache at once. With an 8-entry SQ the
// same few request addresses serve all 20000 NOPs, thousands of times each: a tracer
// that does not overwrite its entry at every submit would mis-time or lose requests, and
// one that keeps stale entries would show evictions.
TEST_F(Traps, RecycledRequestPointersAreTrackedExactly) {
  auto [report, gt] = run_scenario({"--entries", "8", "clean", "20000"});
  const long long n = gt.number("op", "NOP", "submitted");
  ASSERT_EQ(n, 20000);
  ASSERT_EQ(gt.number("label", "ring", "sq_entries"), 8);
  const auto& ring = ring_of(report, gt);
  const auto& nop = op_of(ring, "NOP");
  EXPECT_EQ(num(nop, "submitted"), n);
  EXPECT_EQ(num(nop, "completed"), gt.number("op", "NOP", "completed"));
  EXPECT_EQ(num(nop, "completed"), n);
  EXPECT_EQ(num(nop, "untracked"), 0);
  EXPECT_EQ(num(ring.at("counters"), "untracked_completions"), 0);
  EXPECT_EQ(num(ring.at("counters"), "inflight_map_drops"), 0);
  EXPECT_EQ(latency_samples(nop), n);
}

// One POLL_ADD, many CQEs. On 6.13+ the F_MORE CQEs reach io_uring_complete with
// req == NULL (aux path) and only the final -ECANCELED one carries the request, so every
// intermediate CQE counted here was found through (ring, user_data). Exactly one latency
// sample proves the request ended once, at the CQE without F_MORE.
TEST_F(Traps, MultishotCqesWithoutARequestAreAttributedByUserData) {
  auto [report, gt] = run_scenario({"multishot", "200"});
  const long long more = gt.number("op", "POLL_ADD", "multishot_cqes");
  ASSERT_EQ(more, 200);
  ASSERT_EQ(gt.number("op", "POLL_ADD", "completed"), more + 1);
  const auto& ring = ring_of(report, gt);
  const auto& poll = op_of(ring, "POLL_ADD");
  EXPECT_EQ(num(poll, "submitted"), 1);
  EXPECT_EQ(num(poll, "completed"), gt.number("op", "POLL_ADD", "completed"));
  EXPECT_EQ(num(poll, "multishot_cqes"), more);
  EXPECT_EQ(num(poll, "untracked"), 0);
  // The terminating -ECANCELED is res < 0: counted by both sides' definition of error.
  EXPECT_EQ(num(poll, "errors"), gt.number("op", "POLL_ADD", "errors"));
  EXPECT_EQ(latency_samples(poll), 1);
  const auto& remove = op_of(ring, "POLL_REMOVE");
  EXPECT_EQ(num(remove, "submitted"), 1);
  EXPECT_EQ(num(remove, "completed"), gt.number("op", "POLL_REMOVE", "completed"));
  EXPECT_EQ(latency_samples(remove), 1);
  const auto& counters = ring.at("counters");
  EXPECT_EQ(num(counters, "untracked_completions"), 0);
  EXPECT_EQ(num(counters, "multishot_cqes"), more);
}

// Linked members after the head are issued from their predecessor's completion, not at
// submit; each must still be counted once, and none may look untracked.
TEST_F(Traps, LinkedRequestsAreAllCounted) {
  auto [report, gt] = run_scenario({"link", "300"});
  const long long n = gt.number("label", "links", "chains") * gt.number("label", "links", "length");
  ASSERT_EQ(n, 900);
  ASSERT_EQ(gt.number("op", "NOP", "submitted"), n);
  const auto& ring = ring_of(report, gt);
  const auto& nop = op_of(ring, "NOP");
  EXPECT_EQ(num(nop, "submitted"), n);
  EXPECT_EQ(num(nop, "completed"), gt.number("op", "NOP", "completed"));
  EXPECT_EQ(num(nop, "untracked"), 0);
  EXPECT_EQ(num(nop, "errors"), 0);
  EXPECT_EQ(latency_samples(nop), n);
  EXPECT_EQ(num(ring.at("counters"), "untracked_completions"), 0);
}

// An overflowed CQE fires io_uring_cqe_overflow (no request pointer) and never
// io_uring_complete, and the later flush into the ring fires nothing. So the overflow
// event is the request's completion: without it 48 (or 984) NOPs would look in flight.
TEST_F(Traps, OverflowedCqesAreCompletionsFoundByUserData) {
  for (const char* count : {"64", "1000"}) {
    SCOPED_TRACE(std::string("overflow ") + count);
    // The scenario's default ring (8 entries: cq 16) makes the overflow count exact.
    auto [report, gt] = run_scenario({"overflow", count});
    const long long n = gt.number("op", "NOP", "submitted");
    const long long overflowed = gt.number("label", "cq", "overflowed");
    ASSERT_EQ(n, std::stoll(count));
    ASSERT_EQ(overflowed, n - gt.number("label", "ring", "cq_entries"));
    ASSERT_EQ(gt.number("label", "cq", "dropped"), 0);
    const auto& ring = ring_of(report, gt);
    const auto& counters = ring.at("counters");
    EXPECT_EQ(num(counters, "cq_overflows"), overflowed);
    const auto& nop = op_of(ring, "NOP");
    EXPECT_EQ(num(nop, "submitted"), n);
    EXPECT_EQ(num(nop, "completed"), n);
    EXPECT_EQ(num(nop, "untracked"), 0);
    EXPECT_EQ(num(counters, "untracked_completions"), 0);
    EXPECT_EQ(latency_samples(nop), n);
    EXPECT_EQ(num(report.at("tool_stats"), "overflow_no_req"), 0);
  }
}

// Requests with IOSQE_CQE_SKIP_SUCCESS post no CQE: they must count as submitted and
// never as completed, and their entries must not be reported as evictions.
// This is also where the flags-width trap is covered: REQ_F_CQE_SKIP is bit 6 of
// req->flags, a u64 since 6.9 with bits above 31 in use on 6.18, and the BPF side reads
// it through the 64-bit field. Bit 6 is in the low word, so what this run proves is
// that the field is read at the right place and width for the running kernel (the
// skip entries are then exempt from the drop count), not that high bits survive.
// Caveat: a misread would show up here only if a stale skip entry got evicted, which
// needs a bucket collision among the few recycled request addresses.
TEST_F(Traps, CqeSkipRequestsAreSubmittedButNeverComplete) {
  auto [report, gt] = run_scenario({"cqe-skip", "1000"});
  const long long skipped = gt.number("label", "cqe_skip", "skipped");
  ASSERT_EQ(skipped, 1000);
  ASSERT_EQ(gt.number("op", "NOP", "submitted"), skipped + 1);
  ASSERT_EQ(gt.number("op", "NOP", "completed"), 1);
  const auto& ring = ring_of(report, gt);
  const auto& nop = op_of(ring, "NOP");
  EXPECT_EQ(num(nop, "submitted"), skipped + 1);
  EXPECT_EQ(num(nop, "completed"), 1);
  EXPECT_EQ(num(nop, "untracked"), 0);
  EXPECT_EQ(latency_samples(nop), 1);
  EXPECT_EQ(num(ring.at("counters"), "inflight_map_drops"), 0);
}

// SQEs with opcode 250 fail in io_init_req() (io_uring_req_failed) and never fire the
// submit tracepoint, yet each posts a CQE (-EINVAL) with its request pointer. Right
// answer: N failed requests (seen at io_uring_req_failed, so tracked, but rejected before
// issue: no latency sample), none submitted, under an op that is not a real opcode the
// program used. 250 is beyond uringscope's table (US_OP_OTHER = 79), so OTHER, or OP_250
// if the table ever grows. Trap inside the trap: the kernel resets req->opcode to 0
// (IORING_OP_NOP) for an out-of-range opcode before failing it, so reading the opcode
// from the request blames NOP, an op the program never submitted.
TEST_F(Traps, FailedSubmissionsAreErrorsOfTheirOwnOpNotNops) {
  auto [report, gt] = run_scenario({"badop", "100"});
  const long long n = gt.number("op", "INVALID", "submitted");
  ASSERT_EQ(n, 100);
  ASSERT_EQ(gt.number("label", "invalid", "opcode"), 250);
  ASSERT_EQ(gt.number("op", "INVALID", "completed"), n);
  ASSERT_EQ(gt.number("op", "INVALID", "errors"), n);
  // Without IORING_SETUP_SUBMIT_ALL each failing SQE ends its io_uring_enter().
  ASSERT_EQ(gt.value("submit_calls"), n);
  const auto& ring = ring_of(report, gt);
  const auto& counters = ring.at("counters");
  EXPECT_EQ(num(counters, "submissions"), 0);
  EXPECT_EQ(num(counters, "completions"), n);
  EXPECT_EQ(num(counters, "errors"), n);
  EXPECT_EQ(num(counters, "failed_requests"), n);
  EXPECT_EQ(num(counters, "untracked_completions"), 0);
  // The program submitted no NOP: a NOP row would put its errors on the wrong op.
  EXPECT_EQ(harness::find_op(ring.at("ops"), "NOP"), nullptr) << ring.at("ops").dump();
  const nlohmann::json* bad = harness::find_op(ring.at("ops"), "OTHER");
  if (bad == nullptr) bad = harness::find_op(ring.at("ops"), "OP_250");
  ASSERT_NE(bad, nullptr) << "no OTHER/OP_250 row in " << ring.at("ops").dump();
  EXPECT_EQ(num(*bad, "submitted"), 0);
  EXPECT_EQ(num(*bad, "completed"), n);
  EXPECT_EQ(num(*bad, "failed"), n);
  EXPECT_EQ(num(*bad, "untracked"), 0);
  EXPECT_EQ(num(*bad, "errors"), n);
  ASSERT_EQ(bad->at("errnos").size(), 1u);
  EXPECT_EQ(bad->at("errnos").at(0).at("name"), "EINVAL");
  EXPECT_EQ(num(bad->at("errnos").at(0), "count"), n);
  EXPECT_EQ(latency_samples(*bad), 0);
}

// On an SQPOLL ring the kernel thread iou-sqp-<pid> submits (and here also completes):
// both must be attributed to the injector's process and ring, by tgid and ctx, not comm.
// No enter call carries the SQEs, so a BATCH finding would be a false positive.
TEST_F(Traps, SqpollSubmissionsBelongToTheOwningProcessAndRing) {
  auto [report, gt] = run_scenario({"sqpoll", "1000"});
  const long long n = gt.number("op", "NOP", "submitted");
  ASSERT_EQ(n, 1000);
  ASSERT_NE(gt.number("label", "ring", "flags") & 2, 0) << "ring is not SQPOLL";
  ASSERT_EQ(report.at("rings").size(), 1u) << report.at("rings").dump();
  const auto& ring = ring_of(report, gt);
  EXPECT_TRUE(ring.at("sqpoll").get<bool>());
  EXPECT_EQ(num(ring, "flags"), gt.number("label", "ring", "flags"));
  EXPECT_EQ(ring.at("comm"), "inject");
  const auto& nop = op_of(ring, "NOP");
  EXPECT_EQ(num(nop, "submitted"), n);
  EXPECT_EQ(num(nop, "completed"), n);
  EXPECT_EQ(num(nop, "untracked"), 0);
  EXPECT_EQ(latency_samples(nop), n);
  EXPECT_EQ(num(ring.at("counters"), "submissions"), n);
  EXPECT_TRUE(harness::findings_with_tag(report, "BATCH").empty()) << report.at("findings").dump();
}

// A sparse program on an SQPOLL ring: asleep most of a 6 s run, woken for every NOP but
// the first, under two wake-ups a second. Named whatever the rate, INFO at this one.
TEST_F(Traps, ASparseSqpollProgramWokenForEverySubmissionIsNamed) {
  auto [report, gt] = run_scenario({"sqpoll-sparse", "12"});
  const auto& ring = ring_of(report, gt);
  EXPECT_EQ(num(ring.at("counters"), "sqpoll_wakeups"), gt.value("wakeups"));
  EXPECT_EQ(num(ring.at("counters"), "submissions"), gt.value("submitted"));
  const auto found = harness::findings_with_tag(report, "SQPOLL");
  ASSERT_EQ(found.size(), 1u) << report.at("findings").dump();
  EXPECT_EQ(found[0].at("severity"), "INFO");
}

// A POLL_ADD submitted before attach completes inside the window: it must be counted
// (completed 1) as untracked with no latency sample, since its submit time is unknown,
// while the NOPs submitted after attach are tracked exactly.
TEST_F(Traps, RequestsFromBeforeAttachAreUntracked) {
  harness::Subprocess app({kInject, "--wait-signal", "--linger", "1", "inflight", "100"});
  ASSERT_TRUE(app.wait_for_output("READY", false, 10s)) << app.err();
  const std::string json = json_file();
  harness::Subprocess scope(
      {kUringscope, "-p", std::to_string(app.pid()), "-d", "30", "--json=" + json});
  ASSERT_TRUE(scope.wait_for_output("attached", true, harness::kAttachTimeout)) << scope.err();
  app.signal(SIGUSR1);
  ASSERT_EQ(app.wait(), 0) << app.err();
  // The window ends when the watched process exits, well before -d.
  ASSERT_EQ(scope.wait(30s), 0) << scope.err();
  auto gt = harness::parse_ground_truth(app.out());
  auto report = harness::read_json(json);
  ASSERT_EQ(gt.number("op", "POLL_ADD", "submitted_before_ready"), 1);
  ASSERT_EQ(gt.number("op", "POLL_ADD", "completed"), 1);
  const auto& ring = ring_of(report, gt);
  EXPECT_EQ(ring.at("source"), "fd_table");
  const auto& poll = op_of(ring, "POLL_ADD");
  EXPECT_EQ(num(poll, "submitted"), gt.number("op", "POLL_ADD", "submitted") -
                                        gt.number("op", "POLL_ADD", "submitted_before_ready"));
  EXPECT_EQ(num(poll, "completed"), 1);
  EXPECT_EQ(num(poll, "untracked"), 1);
  EXPECT_EQ(latency_samples(poll), 0);
  const auto& nop = op_of(ring, "NOP");
  const long long n = gt.number("op", "NOP", "submitted");
  ASSERT_EQ(n, 100);
  EXPECT_EQ(num(nop, "submitted"), n);
  EXPECT_EQ(num(nop, "completed"), gt.number("op", "NOP", "completed"));
  EXPECT_EQ(num(nop, "untracked"), 0);
  EXPECT_EQ(latency_samples(nop), n);
  EXPECT_EQ(num(ring.at("counters"), "untracked_completions"), 1);
}

// IOSQE_ASYNC reads complete in io-wq workers (comm iou-wrk-<pid>), not in the
// submitter. Attribution is by ring: all completions land on the injector's one ring,
// and no worker shows up as a process or ring of its own.
TEST_F(Traps, PuntedCompletionsInWorkerThreadsCountOnTheSubmittersRing) {
  auto [report, gt] = run_scenario({"punt", "300"});
  const long long n = gt.number("op", "READ", "submitted");
  ASSERT_EQ(n, 300);
  ASSERT_EQ(gt.number("op", "READ", "forced_async"), n);
  ASSERT_EQ(report.at("rings").size(), 1u) << report.at("rings").dump();
  const auto& ring = ring_of(report, gt);
  EXPECT_EQ(ring.at("comm"), "inject");
  const auto& read = op_of(ring, "READ");
  EXPECT_EQ(num(read, "submitted"), n);
  EXPECT_EQ(num(read, "completed"), gt.number("op", "READ", "completed"));
  EXPECT_EQ(num(read, "completed"), n);
  EXPECT_EQ(num(read, "untracked"), 0);
  EXPECT_EQ(latency_samples(read), n);
  EXPECT_EQ(num(ring.at("counters"), "completions"), n);
}

}  // namespace
