// SPDX-License-Identifier: MIT
// Fresh snapshots for scrapers: a scrape gets a reading taken after it asked, however many
// ask at once they share one read, reads keep their distance, nobody waits forever; and
// the server holds a scrape until its reading comes without holding up other clients.
#include <poll.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "metrics/scrape_demand.h"
#include "metrics/server.h"
#include "support/http_get.h"

namespace uringscope {
namespace {

using namespace std::chrono_literals;
using Clock = ScrapeDemand::Clock;

// A snapshot whose one ring completed `n` NOPs; wall_ns says which reading it is.
Snapshot numbered(uint64_t n) {
  Snapshot s;
  s.wall_ns = n;
  Ring r;
  r.pid = 7;
  r.comm = "app";
  OpStats op;
  op.completed = n;
  r.ops = {op};
  s.rings = {r};
  aggregate(s);
  return s;
}

// What a scrape gets: it asks, then waits (on the ready fd, as the server does) until
// its reading is there or `limit` passes.
std::shared_ptr<const Snapshot> scrape(ScrapeDemand& d, std::chrono::milliseconds limit = 5s) {
  const uint64_t ticket = d.ask();
  const auto end = Clock::now() + limit;
  while (!d.answered(ticket) && Clock::now() < end) {
    pollfd p{d.ready_fd(), POLLIN, 0};
    ::poll(&p, 1, 10);
  }
  return d.latest();
}

// The run loop: serves every few milliseconds until told to stop, counting reads.
struct RunLoop {
  explicit RunLoop(ScrapeDemand& d) : demand(d), thread([this] { loop(); }) {}
  ~RunLoop() {
    stop = true;
    thread.join();
  }
  void loop() {
    while (!stop) {
      demand.serve([this] { return numbered(++reads); });
      std::this_thread::sleep_for(2ms);
    }
  }
  ScrapeDemand& demand;
  std::atomic<uint64_t> reads{0};
  std::atomic<bool> stop{false};
  std::thread thread;
};

TEST(ScrapeDemand, AScrapeGetsAReadingTakenAfterItAsked) {
  ScrapeDemand demand({.min_gap = 0ms, .max_wait = 5s});
  demand.publish(numbered(1000));
  EXPECT_FALSE(demand.wanted(Clock::now()));  // nobody asked
  RunLoop loop(demand);
  const auto first = scrape(demand);
  ASSERT_TRUE(first);
  EXPECT_NE(first->wall_ns, 1000u);
  const uint64_t reads_before = loop.reads;
  EXPECT_GT(scrape(demand)->wall_ns, reads_before);  // read after the second ask began
}

TEST(ScrapeDemand, ManyScrapersShareOneReadPerGap) {
  ScrapeDemand demand({.min_gap = 200ms, .max_wait = 5s});
  demand.publish(numbered(0));
  RunLoop loop(demand);
  std::vector<std::thread> scrapers;
  std::atomic<int> served{0};
  const auto start = Clock::now();
  for (int i = 0; i < 32; ++i) {
    scrapers.emplace_back([&] {
      for (int k = 0; k < 5; ++k)
        if (scrape(demand)) ++served;
    });
  }
  for (auto& t : scrapers) t.join();
  const auto elapsed = Clock::now() - start;
  EXPECT_EQ(served, 160);
  // 160 scrapes, at most one read per 200 ms of the time they took (and the first).
  const auto gaps = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count() / 200;
  EXPECT_LE(loop.reads, static_cast<uint64_t>(gaps) + 1);
  EXPECT_LE(loop.reads, 8u);
}

TEST(ScrapeDemand, AScrapeBeforeTheFirstSnapshotWaitsForIt) {
  // "attached" is printed a moment before the first reading: a scraper that starts on it
  // gets numbers, not a 503.
  ScrapeDemand demand({.min_gap = 0ms, .max_wait = 10s});
  const uint64_t early = demand.ask();
  EXPECT_FALSE(demand.answered(early));
  EXPECT_EQ(demand.latest(), nullptr);
  demand.publish(numbered(7));
  // That reading may have begun before the scrape asked: the scrape waits for the next.
  EXPECT_FALSE(demand.answered(early));
  EXPECT_TRUE(demand.wanted(Clock::now()));
  EXPECT_TRUE(demand.serve([] { return numbered(8); }));
  EXPECT_TRUE(demand.answered(early));
  EXPECT_EQ(demand.latest()->wall_ns, 8u);
}

TEST(ScrapeDemand, AfterTheLastSnapshotNobodyWaits) {
  ScrapeDemand demand({.min_gap = 0ms, .max_wait = 10s});
  demand.finish(numbered(42));
  const auto start = Clock::now();
  EXPECT_EQ(scrape(demand)->wall_ns, 42u);
  EXPECT_LT(Clock::now() - start, 1s);
  EXPECT_FALSE(demand.wanted(Clock::now()));
  EXPECT_FALSE(demand.serve([] { return numbered(1); }));
}

TEST(ScrapeDemand, ReadsKeepTheirDistance) {
  ScrapeDemand demand({.min_gap = 200ms, .max_wait = 10ms});
  demand.publish(numbered(0));
  demand.ask();
  const auto t0 = Clock::now();
  EXPECT_TRUE(demand.wanted(t0));
  EXPECT_TRUE(demand.serve([] { return numbered(1); }, t0));
  demand.ask();
  EXPECT_FALSE(demand.serve([] { return numbered(2); }, t0 + 100ms));
  EXPECT_TRUE(demand.serve([] { return numbered(2); }, t0 + 200ms));
}

TEST(ScrapeDemandServer, AScrapeWaitsForItsReadingAndACrowdSharesIt) {
  ScrapeDemand demand({.min_gap = 0ms, .max_wait = 10s});
  demand.publish(numbered(1));
  MetricsServer server(ListenAddress{"127.0.0.1", 0, false}, demand);
  std::vector<std::future<std::string>> crowd;
  for (int i = 0; i < 16; ++i)
    crowd.push_back(std::async(std::launch::async, [&] { return http_test::get_metrics(server.port(), 5s); }));
  // Nobody is answered with the old snapshot while the reading is not there.
  const auto until = Clock::now() + 3s;
  while (Clock::now() < until && !demand.wanted(Clock::now())) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(200ms);  // every client has asked by now
  for (auto& c : crowd) EXPECT_EQ(c.wait_for(0ms), std::future_status::timeout);
  EXPECT_TRUE(demand.serve([] { return numbered(2); }));
  for (auto& c : crowd) {
    const std::string answer = c.get();
    EXPECT_NE(answer.find("HTTP/1.1 200"), std::string::npos) << answer;
    EXPECT_NE(answer.find("op=\"NOP\"} 2\n"), std::string::npos) << answer;
  }
  // One read answered all sixteen: none is waiting any more.
  EXPECT_FALSE(demand.wanted(Clock::now()));
}

TEST(ScrapeDemandServer, WithoutAReadingAScrapeGetsTheNewestAfterMaxWait) {
  ScrapeDemand demand({.min_gap = 0ms, .max_wait = 300ms});
  demand.publish(numbered(5));
  MetricsServer server(ListenAddress{"127.0.0.1", 0, false}, demand);
  const auto start = Clock::now();
  const std::string answer = http_test::get_metrics(server.port(), 5s);
  EXPECT_GE(Clock::now() - start, 250ms);
  EXPECT_NE(answer.find("op=\"NOP\"} 5\n"), std::string::npos) << answer;
}

}  // namespace
}  // namespace uringscope
