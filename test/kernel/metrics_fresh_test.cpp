// SPDX-License-Identifier: MIT
// --metrics reads the kernel tables when it is scraped: a scrape right after a burst of
// requests has the burst's exact count, not the count of a snapshot published before it
// (a once-a-second publication would almost never have it), and a crowd of scrapers
// is served without making uringscope spin.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "harness.h"
#include "support/http_get.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;

namespace {

class MetricsFresh : public harness::KernelTest {};

// The body of a GET /metrics answered with 200 within 5 s; "" otherwise.
std::string scrape(uint16_t port) {
  return uringscope::http_test::ok_body(uringscope::http_test::get_metrics(port, 5s));
}

// The value of the sample `name{...}` whose labels include every one of `labels`.
long long sample(const std::string& body, const std::string& name, const std::vector<std::string>& labels) {
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + "{", 0) != 0) continue;
    bool all = true;
    for (const std::string& l : labels) all = all && line.find(l) != std::string::npos;
    if (all) return std::stoll(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

// The value of the unlabelled sample `name`, as written; "" when absent.
std::string unlabelled_sample(const std::string& body, const std::string& name) {
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + " ", 0) == 0) return line.substr(name.size() + 1);
  return "";
}

// The port uringscope says it listens on ("metrics at http://127.0.0.1:PORT/metrics").
uint16_t announced_port(const std::string& err) {
  std::smatch m;
  if (!std::regex_search(err, m, std::regex("metrics at http://127\\.0\\.0\\.1:([0-9]+)/metrics"))) return 0;
  return static_cast<uint16_t>(std::stoi(m[1]));
}

// utime + stime of a process, in clock ticks.
long long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string f;
  long long utime = 0, stime = 0;
  for (int i = 3; fields >> f; ++i) {
    if (i == 14) utime = std::stoll(f);
    if (i == 15) { stime = std::stoll(f); break; }
  }
  return utime + stime;
}

// The injector, waiting for SIGUSR1 with its ring open, and uringscope --metrics on it.
struct Watched {
  explicit Watched(const std::string& nops)
      : app({kInject, "--wait-signal", "--linger", "30", "clean", nops}) {
    if (!app.wait_for_output("READY", false, 10s)) return;
    scope.emplace(std::vector<std::string>{kUringscope, "--metrics", "127.0.0.1:0", "-p",
                                           std::to_string(app.pid())});
    if (scope->wait_for_output("metrics at", true, 30s)) port = announced_port(scope->err());
  }
  ~Watched() {
    app.signal(SIGKILL);
    app.wait(10s);
  }
  harness::Subprocess app;
  std::optional<harness::Subprocess> scope;
  uint16_t port = 0;
};

TEST_F(MetricsFresh, AScrapeRightAfterABurstHasItsExactCount) {
  // uringscope attaches and publishes its first snapshot; then the burst runs, and the
  // scrape follows at once.
  Watched w("3000");
  ASSERT_NE(w.port, 0) << w.app.err() << (w.scope ? w.scope->err() : "");
  harness::Subprocess& app = w.app;
  harness::Subprocess& scope = *w.scope;
  const uint16_t port = w.port;
  std::this_thread::sleep_for(1500ms);  // past any once-a-second publication
  const std::string pid = "pid=\"" + std::to_string(app.pid()) + "\"";
  EXPECT_EQ(sample(scrape(port), "uringscope_requests_completed_total", {pid, "op=\"NOP\""}), -1)
      << "no NOP before the burst";

  app.signal(SIGUSR1);
  ASSERT_TRUE(app.wait_for_output("GROUND-TRUTH submit_calls", false, 30s)) << app.err();
  const harness::GroundTruth gt = harness::parse_ground_truth(app.out());
  const long long completed = gt.number("op", "NOP", "completed");
  ASSERT_EQ(completed, 3000);
  const auto asked = std::chrono::steady_clock::now();
  const std::string body = scrape(port);
  const auto answered = std::chrono::steady_clock::now() - asked;
  EXPECT_EQ(sample(body, "uringscope_requests_completed_total", {pid, "op=\"NOP\""}), completed) << body;
  EXPECT_EQ(sample(body, "uringscope_requests_submitted_total", {pid, "op=\"NOP\""}), completed);
  EXPECT_EQ(sample(body, "uringscope_request_latency_seconds_count", {pid, "op=\"NOP\""}), completed);
  EXPECT_LT(answered, 1s) << "a fresh read is rate-limited, not slow";

  scope.signal(SIGINT);
  EXPECT_EQ(scope.wait(30s), 0) << scope.err();
}

TEST_F(MetricsFresh, ACrowdOfScrapersSharesTheReads) {
  Watched w("500");
  ASSERT_NE(w.port, 0) << w.app.err() << (w.scope ? w.scope->err() : "");
  harness::Subprocess& app = w.app;
  harness::Subprocess& scope = *w.scope;
  const uint16_t port = w.port;
  app.signal(SIGUSR1);
  ASSERT_TRUE(app.wait_for_output("GROUND-TRUTH submit_calls", false, 30s)) << app.err();
  const std::string pid = "pid=\"" + std::to_string(app.pid()) + "\"";

  // Sixteen scrapers back to back for three seconds. Each reading of the tables carries
  // its own window length, so the distinct windows the crowd saw count the reads.
  std::atomic<int> exact{0}, wrong{0};
  std::mutex windows_lock;
  std::set<std::string> windows;
  const long long before = cpu_ticks(scope.pid());
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> crowd;
  for (int i = 0; i < 16; ++i) {
    crowd.emplace_back([&] {
      while (std::chrono::steady_clock::now() - start < 3s) {
        const std::string body = scrape(port);
        const long long n = sample(body, "uringscope_requests_completed_total", {pid, "op=\"NOP\""});
        (n == 500 ? exact : wrong)++;
        const std::string window = unlabelled_sample(body, "uringscope_window_seconds");
        const std::lock_guard hold(windows_lock);
        windows.insert(window);
      }
    });
  }
  for (auto& t : crowd) t.join();
  const auto spent = std::chrono::steady_clock::now() - start;
  const double cpu_s = static_cast<double>(cpu_ticks(scope.pid()) - before) / static_cast<double>(sysconf(_SC_CLK_TCK));
  EXPECT_GT(exact.load(), 16);
  EXPECT_EQ(wrong.load(), 0);
  // At most one read per 200 ms whatever the crowd, plus the one already there and the
  // one a scrape still waiting at the end asked for.
  const auto reads_allowed = static_cast<size_t>(spent / 200ms) + 2;
  EXPECT_LE(windows.size(), reads_allowed) << exact.load() << " scrapes saw " << windows.size() << " readings";
  // What is left is HTTP and rendering: far from a core spinning, even in an emulated
  // guest, where 181 scrapes have cost 1.5 s.
  EXPECT_LT(cpu_s, 2.5) << exact.load() << " scrapes cost " << cpu_s << " s of CPU in 3 s";
  std::cerr << "[ info ] " << exact.load() << " scrapes in 3 s saw " << windows.size()
            << " readings and cost uringscope " << cpu_s << " s of CPU\n";

  scope.signal(SIGINT);
  EXPECT_EQ(scope.wait(30s), 0) << scope.err();
}

}  // namespace
