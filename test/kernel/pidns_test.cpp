// SPDX-License-Identifier: MIT
// uringscope inside a child pid namespace: the pids it is given and the pids it reports
// are the namespace's, while the kernel's tracepoints see root-namespace pids. The
// injector prints its own getpid(), which is the namespace's view: the ground truth.
#include <gtest/gtest.h>
#include <unistd.h>

#include "harness.h"

using harness::kInject;
using harness::kUringscope;

namespace {

class PidNamespace : public harness::KernelTest {
 protected:
  void SetUp() override {
    KernelTest::SetUp();
    json_ = file("pidns.json");
  }
  void expect_ring_of(const harness::GroundTruth& gt) {
    auto report = harness::read_json(json_);
    const long long pid = gt.value("pid");
    ASSERT_LT(pid, 100) << "the injector should see a small namespace pid, saw " << pid;
    bool found = false;
    for (const auto& ring : report.at("rings")) {
      if (ring.at("pid").get<long long>() != pid) continue;
      found = true;
      EXPECT_EQ(ring.at("counters").at("submissions").get<long long>(), gt.value("submitted"));
      EXPECT_EQ(ring.at("counters").at("completions").get<long long>(), gt.value("completed"));
    }
    EXPECT_TRUE(found) << "no ring of namespace pid " << pid << " in " << report.at("rings").dump();
  }
  std::string json_;
};

TEST_F(PidNamespace, CommandModeAttributesToTheNamespacePid) {
  auto r = harness::run({"unshare", "--pid", "--fork", "--mount-proc", kUringscope,
                         "--json=" + json_, "--", kInject, "clean", "300"});
  ASSERT_EQ(r.status, 0) << r.err;
  expect_ring_of(harness::parse_ground_truth(r.out));
}

TEST_F(PidNamespace, AttachByNamespacePid) {
  // Inside the namespace: start the injector, wait until it is ready, attach by its
  // (namespace) pid, wait until attached, then let it run.
  const std::string script =
      "set -e\n"
      "out=$(mktemp); err=$(mktemp)\n"
      "'" + kInject + "' --wait-signal --linger 1 clean 300 >\"$out\" &\n"
      "app=$!\n"
      "n=0; until grep -q READY \"$out\"; do n=$((n+1)); [ $n -lt 400 ] || exit 90; sleep 0.05; done\n"
      "'" + kUringscope + "' -p \"$app\" -d 20 --json='" + json_ + "' 2>\"$err\" >/dev/null &\n"
      "scope=$!\n"
      "n=0; until grep -q attached \"$err\"; do n=$((n+1)); [ $n -lt 400 ] || { cat \"$err\" >&2; exit 91; }; sleep 0.05; done\n"
      "kill -USR1 \"$app\"\n"
      "wait \"$app\"; wait \"$scope\"\n"
      "cat \"$out\"; cat \"$err\" >&2; rm -f \"$out\" \"$err\"\n";
  auto r = harness::run({"unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script});
  ASSERT_EQ(r.status, 0) << r.err;
  expect_ring_of(harness::parse_ground_truth(r.out));
}

}  // namespace
