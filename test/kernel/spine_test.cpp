// SPDX-License-Identifier: MIT
// The kernel tier for the spine: uringscope loads its programs on this machine's kernel,
// the fault injector does something known, and the report must say exactly that.
#include <gtest/gtest.h>
#include <signal.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "harness.h"
#include "probe/probe.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;
using harness::ring_of;

namespace {

class Spine : public harness::KernelTest {
 protected:
  std::string json_file() { return file("report.json"); }
};

TEST_F(Spine, CleanNopsAreCountedExactly) {
  auto [report, gt] = run_scenario({"clean", "1000"});
  const long long n = gt.number("op", "NOP", "submitted");
  ASSERT_EQ(n, 1000);
  ASSERT_EQ(report.at("rings").size(), 1u);
  const auto& ring = ring_of(report, gt);
  const auto& truth = gt.find("label", "ring");
  EXPECT_EQ(std::to_string(ring.at("sq_entries").get<int>()), truth.at("sq_entries"));
  EXPECT_EQ(std::to_string(ring.at("cq_entries").get<int>()), truth.at("cq_entries"));
  const auto* nop = harness::find_op(ring.at("ops"), "NOP");
  ASSERT_NE(nop, nullptr);
  EXPECT_EQ(nop->at("submitted").get<long long>(), n);
  EXPECT_EQ(nop->at("completed").get<long long>(), gt.number("op", "NOP", "completed"));
  EXPECT_EQ(nop->at("punted").get<long long>(), 0);
  EXPECT_EQ(ring.at("counters").at("untracked_completions").get<long long>(), 0);
  // Every tracked request lands in the histogram exactly once.
  long long in_hist = 0;
  for (const auto& b : nop->at("log2_hist")) in_hist += b.get<long long>();
  EXPECT_EQ(in_hist, n);
  EXPECT_EQ(ring.at("counters").at("enter_submit_calls").get<long long>(), gt.value("submit_calls"));
  EXPECT_TRUE(harness::findings_with_tag(report, "PUNT").empty());
  EXPECT_TRUE(harness::findings_with_tag(report, "BATCH").empty());
  EXPECT_FALSE(harness::has_finding_at_or_above_warn(report)) << report.at("findings").dump();
}

TEST_F(Spine, CleanPageCacheReadsRaiseNoWarning) {
  auto [report, gt] = run_scenario({"clean-read", "500"});
  const auto& ring = ring_of(report, gt);
  const auto* read = harness::find_op(ring.at("ops"), "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->at("submitted").get<long long>(), gt.number("op", "READ", "submitted"));
  EXPECT_EQ(read->at("completed").get<long long>(), gt.number("op", "READ", "completed"));
  EXPECT_FALSE(harness::has_finding_at_or_above_warn(report)) << report.at("findings").dump();
}

TEST_F(Spine, ForcedAsyncReadsAreReportedAsPunted) {
  auto [report, gt] = run_scenario({"punt", "200"});
  const long long n = gt.number("op", "READ", "submitted");
  ASSERT_EQ(gt.number("op", "READ", "forced_async"), n);
  const auto& ring = ring_of(report, gt);
  const auto* read = harness::find_op(ring.at("ops"), "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->at("submitted").get<long long>(), n);
  EXPECT_EQ(read->at("completed").get<long long>(), gt.number("op", "READ", "completed"));
  EXPECT_GE(read->at("punted").get<long long>() * 100, n * 95);
  auto punts = harness::findings_with_tag(report, "PUNT");
  ASSERT_FALSE(punts.empty()) << report.at("findings").dump();
  bool names_read = false;
  for (const auto& f : punts) names_read |= f.at("op") == "READ";
  EXPECT_TRUE(names_read);
  EXPECT_TRUE(harness::findings_with_tag(report, "BATCH").empty());
}

TEST_F(Spine, OneSqePerEnterIsReportedAsPoorBatching) {
  auto [report, gt] = run_scenario({"nobatch", "500"});
  const auto& ring = ring_of(report, gt);
  const auto& counters = ring.at("counters");
  EXPECT_EQ(counters.at("submissions").get<long long>(), gt.number("op", "NOP", "submitted"));
  EXPECT_EQ(counters.at("enter_submit_calls").get<long long>(), gt.value("submit_calls"));
  EXPECT_LE(ring.at("avg_batch").get<double>(), 1.05);
  EXPECT_FALSE(harness::findings_with_tag(report, "BATCH").empty()) << report.at("findings").dump();
  EXPECT_TRUE(harness::findings_with_tag(report, "PUNT").empty());
}

TEST_F(Spine, CommandExitStatusPropagates) {
  auto r = harness::run({kUringscope, "--", "sh", "-c", "exit 7"});
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_NE(r.out.find("uringscope report"), std::string::npos);
  // NODATA: sh used no io_uring, and the report must say so rather than look healthy.
  EXPECT_NE(r.out.find("NODATA"), std::string::npos) << r.out;
}

TEST_F(Spine, AttachesToARunningPid) {
  harness::Subprocess app({kInject, "--wait-signal", "--linger", "1", "punt", "300"});
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
  EXPECT_EQ(report.at("target").at("mode"), "pid");
  const auto& ring = ring_of(report, gt);
  // The ring existed before attach: found by the fd-table walk, fd included, and named
  // after its owner (the walk runs in uringscope, which must not lend its own name).
  EXPECT_EQ(ring.at("source"), "fd_table");
  EXPECT_EQ(ring.at("comm"), "inject");
  const auto* read = harness::find_op(ring.at("ops"), "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->at("submitted").get<long long>(), gt.number("op", "READ", "submitted"));
  EXPECT_EQ(read->at("completed").get<long long>(), gt.number("op", "READ", "completed"));
  EXPECT_FALSE(harness::findings_with_tag(report, "PUNT").empty());
}

TEST_F(Spine, SystemWideSeesEveryRing) {
  const std::string json = json_file();
  harness::Subprocess scope({kUringscope, "-a", "-d", "4", "--json=" + json});
  ASSERT_TRUE(scope.wait_for_output("attached", true, harness::kAttachTimeout)) << scope.err();
  auto a = harness::run({kInject, "clean", "2000"});
  auto b = harness::run({kInject, "nobatch", "300"});
  ASSERT_EQ(a.status, 0);
  ASSERT_EQ(b.status, 0);
  ASSERT_EQ(scope.wait(30s), 0) << scope.err();
  auto report = harness::read_json(json);
  EXPECT_EQ(report.at("target").at("mode"), "all");
  for (const auto* run : {&a, &b}) {
    auto gt = harness::parse_ground_truth(run->out);
    const auto& ring = ring_of(report, gt);
    EXPECT_EQ(ring.at("counters").at("submissions").get<long long>(), gt.value("submitted"));
    EXPECT_EQ(ring.at("counters").at("completions").get<long long>(), gt.value("completed"));
  }
}

TEST_F(Spine, InterruptEndsTheRunWithAReport) {
  const std::string json = json_file();
  harness::Subprocess scope({kUringscope, "--json=" + json, "--", kInject, "--linger", "60",
                             "clean", "500"});
  ASSERT_TRUE(scope.wait_for_output("GROUND-TRUTH op=NOP", false, 20s)) << scope.err();
  scope.signal(SIGINT);
  // kill() is not the terminal: uringscope passes SIGINT on, the command dies of it and
  // its status (128 + 2) is ours.
  EXPECT_EQ(scope.wait(20s), 130) << scope.err();
  auto report = harness::read_json(json);
  const auto* nop = harness::find_op(report.at("ops"), "NOP");
  ASSERT_NE(nop, nullptr);
  EXPECT_EQ(nop->at("submitted").get<long long>(), 500);
  EXPECT_NE(scope.out().find("uringscope report"), std::string::npos);
}

TEST_F(Spine, InterruptInPidModeStillReports) {
  harness::Subprocess app({kInject, "--linger", "60", "clean", "100"});
  ASSERT_TRUE(app.wait_for_output("GROUND-TRUTH op=NOP", false, 10s));
  harness::Subprocess scope({kUringscope, "-p", std::to_string(app.pid())});
  ASSERT_TRUE(scope.wait_for_output("attached", true, harness::kAttachTimeout)) << scope.err();
  scope.signal(SIGTERM);
  EXPECT_EQ(scope.wait(20s), 0) << scope.err();
  EXPECT_NE(scope.out().find("uringscope report"), std::string::npos);
  // The idle ring was found in the fd table even though it did nothing in the window:
  // the report folds it into the idle line of its process.
  EXPECT_NE(scope.out().find("1 ring: #0 fd="), std::string::npos) << scope.out();
}

TEST_F(Spine, UnderSudoTheCommandRunsAsTheInvokingUser) {
  // sudo leaves SUDO_UID/SUDO_GID behind; 65534 is nobody/nogroup on Debian.
  auto dropped = harness::run({"env", "SUDO_UID=65534", "SUDO_GID=65534", kUringscope, "--",
                               "sh", "-c", "echo uid=$(id -u) gid=$(id -g)"});
  EXPECT_EQ(dropped.status, 0) << dropped.err;
  EXPECT_EQ(dropped.out.rfind("uid=65534 gid=65534\n", 0), 0u) << dropped.out;
  auto kept = harness::run({"env", "SUDO_UID=65534", "SUDO_GID=65534", kUringscope,
                            "--keep-root", "--", "sh", "-c", "echo uid=$(id -u)"});
  EXPECT_EQ(kept.out.rfind("uid=0\n", 0), 0u) << kept.out;
}

TEST_F(Spine, DurationClosesTheWindowButTheCommandRunsOn) {
  const std::string json = json_file();
  auto start = std::chrono::steady_clock::now();
  auto r = harness::run({kUringscope, "-d", "1", "--json=" + json, "--", "sh", "-c",
                         "sleep 2; exit 5"});
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_GE(elapsed, 2s);
  auto report = harness::read_json(json);
  EXPECT_LT(report.at("wall_ns").get<double>(), 1.9e9);
  EXPECT_GE(report.at("wall_ns").get<double>(), 0.9e9);
}

// Bad input: one line on stderr, exit 1, nothing left loaded (TearDown checks).
TEST_F(Spine, UnknownPidIsAOneLineError) {
  auto r = harness::run({kUringscope, "-p", "4194000", "-d", "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "uringscope: no such process: 4194000\n");
}

TEST_F(Spine, MissingCommandIsAOneLineError) {
  auto r = harness::run({kUringscope, "--", "/nonexistent/app"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "uringscope: command not found: /nonexistent/app (no such file)\n");
  r = harness::run({kUringscope, "no-such-command-anywhere"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "uringscope: command not found: no-such-command-anywhere\n");
}

TEST_F(Spine, BadArgumentsAreOneLineErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-p", "12x"}, {"-a", "-d", "-3"}, {"-a", "-p", "1"}, {}, {"--bogus"}}) {
    std::vector<std::string> argv = {kUringscope};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = harness::run(argv);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("uringscope: ", 0), 0u) << r.err;
  }
}

TEST_F(Spine, WithoutPrivilegesTheCapabilitiesAreNamed) {
  // A copy nobody can run: the tree may sit where nobody cannot reach (a clone in /root).
  const std::string binary = file("uringscope");
  std::filesystem::copy_file(kUringscope, binary, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(binary, std::filesystem::perms::owner_all |
                                           std::filesystem::perms::group_exec |
                                           std::filesystem::perms::group_read |
                                           std::filesystem::perms::others_exec |
                                           std::filesystem::perms::others_read);
  harness::Subprocess p({binary, "-a", "-d", "1"}, [] {
    // nobody, no capabilities left after the uid change
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(99);
  });
  EXPECT_EQ(p.wait(), 1);
  EXPECT_NE(p.err().find("CAP_BPF"), std::string::npos) << p.err();
  EXPECT_NE(p.err().find("CAP_PERFMON"), std::string::npos) << p.err();
  EXPECT_EQ(std::count(p.err().begin(), p.err().end(), '\n'), 1) << p.err();
}

TEST_F(Spine, WithoutKernelBtfItSaysSo) {
  // Hide /sys/kernel/btf in a private mount namespace.
  auto r = harness::run({"unshare", "--mount", "sh", "-c",
                         "mount -t tmpfs none /sys/kernel/btf && exec " + kUringscope +
                             " -a -d 1"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("CONFIG_DEBUG_INFO_BTF"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A completion variant built for another kernel's io_uring_complete: the 6.13+ (ctx,
// req, cqe) program dereferences a pointer that older kernels pass as a plain number,
// and the 5.15 program reads a 4th argument that 6.13+ does not have.
std::string mismatched_completion_program() {
  auto version = harness::run({kUringscope, "--version"});
  return version.out.find("io_uring_complete(ctx, req, cqe)") != std::string::npos ? "usc_cqe_ud"
                                                                                   : "usc_cqe";
}

TEST_F(Spine, AVerifierRejectionIsOneLineAndVerboseShowsTheLog) {
  // Completion tracking is required: a rejected completion program ends the run.
  const std::string forced = "URINGSCOPE_FORCE_PROGRAMS=" + mismatched_completion_program();
  auto r = harness::run({"env", forced, kUringscope, "-a", "-d", "1"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("verifier"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  auto verbose = harness::run({"env", forced, kUringscope, "-v", "-a", "-d", "1"});
  EXPECT_EQ(verbose.status, 1);
  EXPECT_NE(verbose.err.find("PROG LOAD LOG"), std::string::npos) << verbose.err;
}

TEST_F(Spine, AnOptionalProgramTheVerifierRejectsCostsOnlyItsFeature) {
  // The 5.18-5.19 punt program reads a 7th argument no 6.x io_uring_queue_async_work has.
  const std::string json = json_file();
  auto r = harness::run({"env", "URINGSCOPE_FORCE_PROGRAMS=usc_punt_ctx_req", kUringscope,
                         "--json=" + json, "--", kInject, "clean", "200"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto report = harness::read_json(json);
  EXPECT_FALSE(report.at("kernel").at("features").at("punt").get<bool>());
  EXPECT_NE(report.at("kernel").at("feature_detail").at("punt").get<std::string>().find("verifier"),
            std::string::npos);
  EXPECT_EQ(report.at("kernel").at("tier"), "legacy");
  const auto* nop = harness::find_op(report.at("ops"), "NOP");
  ASSERT_NE(nop, nullptr);
  EXPECT_EQ(nop->at("submitted").get<long long>(), 200);
  EXPECT_NE(r.out.find("kernel features off"), std::string::npos) << r.out;
}

TEST_F(Spine, SkippedFeaturesLoadNothingAndSaySo) {
  const std::string json = json_file();
  auto r = harness::run({"env", "URINGSCOPE_SKIP_FEATURES=io_threads,poll_arm", kUringscope,
                         "--json=" + json, "--", kInject, "clean", "200"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto report = harness::read_json(json);
  const auto& kernel = report.at("kernel");
  for (const char* skipped : {"io_threads", "poll_arm"}) {
    EXPECT_FALSE(kernel.at("features").at(skipped).get<bool>()) << skipped;
    EXPECT_NE(kernel.at("feature_detail").at(skipped).get<std::string>().find("skipped"),
              std::string::npos) << skipped;
  }
  // An optional feature skipped is not a lesser tier, and the spine still counts.
  EXPECT_EQ(kernel.at("tier"), "full");
  const auto* nop = harness::find_op(report.at("ops"), "NOP");
  ASSERT_NE(nop, nullptr);
  EXPECT_EQ(nop->at("submitted").get<long long>(), 200);

  for (const char* bad : {"URINGSCOPE_SKIP_FEATURES=submit", "URINGSCOPE_SKIP_FEATURES=nosuch"}) {
    auto refused = harness::run({"env", bad, kUringscope, "-a", "-d", "1"});
    EXPECT_EQ(refused.status, 1) << bad;
    EXPECT_NE(refused.err.find("URINGSCOPE_SKIP_FEATURES"), std::string::npos) << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  }
}

// io_uring_enter has two ways in: fentry on the syscall body where the kernel has
// trampolines, else the syscall tracepoint. Whichever this kernel gives, the counts are
// the injector's, and the report names the way it took (and why not fentry).
TEST_F(Spine, EnterIsCountedWhicheverWayInAndSaysWhich) {
  auto version = harness::run({kUringscope, "--version"});
  const std::string fentry_way = std::string("fentry on ") + uringscope::kEnterFentryFunction;
  const bool fentry_offered = version.out.find(fentry_way) != std::string::npos;
  for (const std::string forced : {"", "usc_enter"}) {
    SCOPED_TRACE(forced.empty() ? "probe's choice" : "forced to the tracepoint");
    const std::string json = json_file();
    auto r = harness::run({"env", "URINGSCOPE_FORCE_PROGRAMS=" + forced, kUringscope,
                           "--json=" + json, "--", kInject, "nobatch", "300"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto gt = harness::parse_ground_truth(r.out + r.err);
    const auto report = harness::read_json(json);
    ASSERT_EQ(report.at("rings").size(), 1u);
    EXPECT_EQ(report.at("rings")[0].at("counters").at("enter_submit_calls").get<long long>(),
              gt.value("submit_calls"));
    const std::string detail = report.at("kernel").at("feature_detail").at("enter");
    if (detail.starts_with(fentry_way)) {
      EXPECT_TRUE(forced.empty()) << detail;
      EXPECT_TRUE(fentry_offered);
    } else {
      EXPECT_TRUE(detail.starts_with("syscalls/sys_enter_io_uring_enter tracepoint")) << detail;
      // Offered but not taken: the report says why.
      if (fentry_offered && forced.empty()) {
        EXPECT_NE(detail.find("(fentry "), std::string::npos) << detail;
      }
    }
  }
}

TEST_F(Spine, VersionShowsTierAndFeatures) {
  auto r = harness::run({kUringscope, "--version"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("uringscope "), std::string::npos);
  EXPECT_NE(r.out.find("tier     full"), std::string::npos) << r.out;
  for (const char* feature : {"submit", "complete", "punt", "create", "overflow", "fd_walk", "enter"}) {
    EXPECT_NE(r.out.find(std::string("  ") + feature), std::string::npos) << feature;
  }
}

}  // namespace
