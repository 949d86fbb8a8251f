// SPDX-License-Identifier: MIT
// The --metrics HTTP server over real loopback sockets: what it serves, what it refuses,
// and that no client (silent, slow, oversized, or many at once) can stall the others.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "util/error.h"
#include "metrics/exposition.h"
#include "metrics/listen_address.h"
#include "metrics/server.h"
#include "util/unique_fd.h"

namespace uringscope {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

Snapshot small_snapshot(uint64_t submitted = 42) {
  Snapshot s;
  s.tool_version = "1.2.3";
  s.wall_ns = 1'000'000'000;
  s.kernel.release = "6.18.0";
  s.kernel.tier = Tier::Full;
  Ring r;
  r.id = 0;
  r.pid = 7;
  r.comm = "app";
  OpStats op;
  op.opcode = 22;  // READ
  op.submitted = submitted;
  op.completed = submitted;
  op.latency.buckets[11] = submitted;
  op.latency.sum_ns = submitted * 3000;
  r.ops.push_back(op);
  s.rings.push_back(r);
  aggregate(s);
  return s;
}

UniqueFd connect_to(uint16_t port, int family = AF_INET) {
  UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  int rc;
  if (family == AF_INET6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    a.sin6_addr = in6addr_loopback;
    rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0) fd.reset();
  return fd;
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

struct Received {
  std::string bytes;
  bool closed = false;  // the server closed (EOF) within the timeout
  bool reset = false;   // ... with a reset
};

// Reads until the server closes the connection or the timeout passes.
Received read_until_close(int fd, std::chrono::milliseconds timeout = 10s) {
  Received r;
  const auto deadline = Clock::now() + timeout;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return r;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      r.bytes.append(buf, static_cast<std::size_t>(n));
    } else {
      r.closed = true;
      r.reset = n < 0;
      return r;
    }
  }
}

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool complete = false;  // a status line, headers, and Content-Length bytes of body

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

HttpResponse parse_response(const std::string& raw, bool head_request = false) {
  HttpResponse r;
  const std::size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos || raw.compare(0, 9, "HTTP/1.1 ") != 0) return r;
  r.status = std::stoi(raw.substr(9, 3));
  std::size_t pos = raw.find("\r\n") + 2;
  while (pos < end) {
    const std::size_t eol = raw.find("\r\n", pos);
    const std::string line = raw.substr(pos, eol - pos);
    const std::size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    r.headers[name] = value;
    pos = eol + 2;
  }
  r.body = raw.substr(end + 4);
  const std::size_t length = r.headers.count("content-length") ? std::stoul(r.header("content-length")) : 0;
  r.complete = head_request ? r.body.empty() : r.body.size() == length;
  return r;
}

// One request on a fresh connection, answer read to the close.
HttpResponse request(uint16_t port, const std::string& raw, bool head_request = false,
                     std::chrono::milliseconds timeout = 10s) {
  UniqueFd fd = connect_to(port);
  EXPECT_TRUE(fd) << "connect: " << std::strerror(errno);
  if (!fd) return {};
  EXPECT_TRUE(send_all(fd.get(), raw));
  const Received got = read_until_close(fd.get(), timeout);
  EXPECT_TRUE(got.closed) << "the server did not close the connection";
  return parse_response(got.bytes, head_request);
}

std::string get(const std::string& path, const std::string& extra_headers = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n" + extra_headers + "\r\n";
}

class MetricsServerTest : public ::testing::Test {
 protected:
  std::shared_ptr<const Snapshot> snap = std::make_shared<const Snapshot>(small_snapshot());
  MetricsServer server{ListenAddress{"127.0.0.1", 0, false}, [this] { return std::atomic_load(&snap); }};
  uint16_t port = server.port();
};

TEST_F(MetricsServerTest, ServesTheTextFormatByDefault) {
  ASSERT_NE(port, 0);
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(port) + "/metrics");
  const HttpResponse r = request(port, get("/metrics"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.header("connection"), "close");
  EXPECT_EQ(r.body, render_exposition(*snap, ExpositionFormat::Prometheus004));
  EXPECT_NE(r.body.find("uringscope_requests_submitted_total{ring=\"0\",pid=\"7\",comm=\"app\",op=\"READ\"} 42\n"),
            std::string::npos);
}

TEST_F(MetricsServerTest, ServesOpenMetricsToScrapersThatAskForIt) {
  const HttpResponse r = request(
      port, get("/metrics", "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.header("content-type"), "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(r.body, render_exposition(*snap, ExpositionFormat::OpenMetrics));
  EXPECT_TRUE(r.body.size() >= 6 && r.body.compare(r.body.size() - 6, 6, "# EOF\n") == 0);
  // HTTP/1.0 and a query string are fine too.
  const HttpResponse q = request(port, "GET /metrics?name[]=x HTTP/1.0\r\n\r\n");
  EXPECT_EQ(q.status, 200);
  EXPECT_TRUE(q.complete);
}

TEST_F(MetricsServerTest, HeadSendsTheHeadersOnly) {
  const HttpResponse full = request(port, get("/metrics"));
  const HttpResponse r = request(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", true);
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(r.header("content-length"), std::to_string(full.body.size()));
}

TEST_F(MetricsServerTest, AnythingButGetOrHeadOfMetricsIsRefused) {
  const HttpResponse other = request(port, get("/other"));
  EXPECT_EQ(other.status, 404);
  EXPECT_TRUE(other.complete);
  EXPECT_EQ(request(port, get("/")).status, 404);
  EXPECT_EQ(request(port, get("/metricsx")).status, 404);
  const HttpResponse post = request(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("allow"), "GET, HEAD");
  EXPECT_EQ(request(port, "DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n").status, 405);
}

TEST_F(MetricsServerTest, MalformedRequestsGetA400) {
  const char* bad[] = {
      "garbage\r\n\r\n",
      "GET\r\n\r\n",
      "GET /metrics\r\n\r\n",
      "GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n",      // two spaces
      "GET /metrics HTTP/1.1 extra\r\nHost: x\r\n\r\n",
      "GET metrics HTTP/1.1\r\nHost: x\r\n\r\n",        // not origin-form
      "GET /metrics HTTP/x.y\r\nHost: x\r\n\r\n",
      "GET /metrics HTTP/1.1\r\n\r\n",                  // 1.1 without Host
      "GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
      "G\x01T /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
      "\r\n\r\n",
  };
  for (const char* raw : bad) {
    const HttpResponse r = request(port, raw);
    EXPECT_EQ(r.status, 400) << ::testing::PrintToString(std::string(raw));
    EXPECT_TRUE(r.complete);
  }
  EXPECT_EQ(request(port, "GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n").status, 505);
  // Bare LF line ends are tolerated (RFC 9112 2.2).
  EXPECT_EQ(request(port, "GET /metrics HTTP/1.1\nHost: x\n\n").status, 200);
}

TEST_F(MetricsServerTest, AnOversizedRequestIsRejectedAndTheConnectionClosed) {
  UniqueFd fd = connect_to(port);
  ASSERT_TRUE(fd);
  std::string raw = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
  // The server stops reading at its cap, answers, and drains the rest: the send
  // completes and the answer arrives intact (no reset swallowing it).
  send_all(fd.get(), raw);
  const Received got = read_until_close(fd.get(), 5s);
  EXPECT_TRUE(got.closed);
  const HttpResponse r = parse_response(got.bytes);
  EXPECT_EQ(r.status, 431);
  EXPECT_TRUE(r.complete);

  // A request line longer than the cap is a 414.
  const HttpResponse uri = request(port, "GET /metrics?" + std::string(16 * 1024, 'q') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(uri.status, 414);
  // And the server is still fine.
  EXPECT_EQ(request(port, get("/metrics")).status, 200);
}

TEST_F(MetricsServerTest, SilentClientsAreDroppedAfterTheDeadlineWithoutStallingOthers) {
  const auto start = Clock::now();
  std::vector<UniqueFd> silent;
  for (int i = 0; i < 3; ++i) silent.push_back(connect_to(port));
  // One that sends half a request head and stops.
  UniqueFd partial = connect_to(port);
  ASSERT_TRUE(partial);
  send_all(partial.get(), "GET /metrics HTTP/1.1\r\nHost: x\r\n");

  // Meanwhile everyone else is served at once.
  Clock::duration slowest{};
  for (int i = 0; i < 20; ++i) {
    const auto t0 = Clock::now();
    const HttpResponse r = request(port, get("/metrics"));
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.complete);
    slowest = std::max(slowest, Clock::now() - t0);
  }
  EXPECT_LT(slowest, 500ms) << "a request waited behind silent clients";

  // The silent ones are closed, without an answer, about 5 s after they connected.
  for (UniqueFd* fd : {&silent[0], &silent[1], &silent[2], &partial}) {
    const Received got = read_until_close(fd->get(), 10s);
    EXPECT_TRUE(got.closed);
    EXPECT_TRUE(got.bytes.empty());
  }
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, 4500ms);
  EXPECT_LT(waited, 7s);
}

TEST(MetricsServerSlowReader, AClientThatDoesNotReadItsAnswerStallsNobody) {
  // A machine-wide run with many rings: an exposition of several MB, far more than the
  // socket buffers hold, so the server's send to the non-reader blocks half way.
  Snapshot big = small_snapshot();
  const Ring proto = big.rings[0];
  big.rings.clear();
  for (uint32_t id = 0; id < 300; ++id) {
    Ring r = proto;
    r.id = id;
    r.pid = 1000 + id;
    for (uint32_t opcode : {1u, 2u, 23u}) {
      OpStats op = proto.ops[0];
      op.opcode = opcode;
      r.ops.push_back(op);
    }
    big.rings.push_back(r);
  }
  aggregate(big);
  auto snap = std::make_shared<const Snapshot>(big);
  MetricsServer server(ListenAddress{"127.0.0.1", 0, false}, [snap] { return snap; });
  const std::size_t size = render_exposition(*snap, ExpositionFormat::Prometheus004).size();
  ASSERT_GT(size, 4u << 20);

  UniqueFd stuck(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int small = 4096;
  setsockopt(stuck.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(server.port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(stuck.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_TRUE(send_all(stuck.get(), get("/metrics")));
  std::this_thread::sleep_for(200ms);  // the server is now blocked on this one's window

  Clock::duration slowest{};
  for (int i = 0; i < 10; ++i) {
    const auto t0 = Clock::now();
    const HttpResponse r = request(server.port(), "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", true);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("content-length"), std::to_string(size));
    slowest = std::max(slowest, Clock::now() - t0);
  }
  EXPECT_LT(slowest, 500ms);
  // The stuck client still gets a correct answer when it finally reads.
  const Received got = read_until_close(stuck.get(), 10s);
  const HttpResponse r = parse_response(got.bytes);
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
}

TEST_F(MetricsServerTest, FiftyConcurrentClientsAreAllServed) {
  // 16 connections are served at a time; the others wait in the listen backlog and are
  // taken as slots free up. None is refused, none gets a partial answer.
  constexpr int kClients = 50;
  std::vector<UniqueFd> fds;
  for (int i = 0; i < kClients; ++i) {
    fds.push_back(connect_to(port));
    ASSERT_TRUE(fds.back()) << i;
  }
  for (auto& fd : fds) ASSERT_TRUE(send_all(fd.get(), get("/metrics")));
  const std::string expected = render_exposition(*snap, ExpositionFormat::Prometheus004);
  int served = 0;
  for (auto& fd : fds) {
    const Received got = read_until_close(fd.get(), 10s);
    const HttpResponse r = parse_response(got.bytes);
    // "Cleanly" either way: a whole 200, or a close with nothing sent.
    EXPECT_TRUE((r.status == 200 && r.complete && r.body == expected) || (got.closed && got.bytes.empty()));
    served += r.status == 200;
  }
  EXPECT_EQ(served, kClients);
}

TEST_F(MetricsServerTest, ThreadsOfClientsHammeringDoNotBreakIt) {
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        UniqueFd fd = connect_to(port);
        if (!fd || !send_all(fd.get(), get("/metrics"))) continue;
        const HttpResponse r = parse_response(read_until_close(fd.get(), 10s).bytes);
        if (r.status == 200 && r.complete) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 200);
}

TEST_F(MetricsServerTest, EachScrapeSeesTheNewestSnapshot) {
  EXPECT_NE(request(port, get("/metrics")).body.find("} 42\n"), std::string::npos);
  std::atomic_store(&snap, std::make_shared<const Snapshot>(small_snapshot(43)));
  const std::string body = request(port, get("/metrics")).body;
  EXPECT_NE(body.find("op=\"READ\"} 43\n"), std::string::npos);
  EXPECT_EQ(body.find("op=\"READ\"} 42\n"), std::string::npos);
}

TEST_F(MetricsServerTest, ThePortInUseIsAClearError) {
  try {
    MetricsServer second(ListenAddress{"127.0.0.1", port, false}, [] { return nullptr; });
    FAIL() << "a second server bound the same port";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use");
  }
  // The first one is unaffected.
  EXPECT_EQ(request(port, get("/metrics")).status, 200);
}

TEST_F(MetricsServerTest, ItsSocketsDoNotLeakIntoChildProcesses) {
  // uringscope runs the traced command: it must not inherit the listener or a client.
  UniqueFd idle = connect_to(port);
  std::this_thread::sleep_for(100ms);  // let the server accept it
  DIR* dir = opendir("/proc/self/fd");
  ASSERT_NE(dir, nullptr);
  int sockets = 0;
  while (dirent* ent = readdir(dir)) {
    const int fd = std::atoi(ent->d_name);
    if (ent->d_name[0] == '.' || fd == dirfd(dir)) continue;
    char target[256] = {};
    const std::string link = "/proc/self/fd/" + std::string(ent->d_name);
    if (readlink(link.c_str(), target, sizeof target - 1) < 0) continue;
    if (std::string(target).rfind("socket:", 0) != 0) continue;
    ++sockets;
    EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC) << "fd " << fd << " " << target;
  }
  closedir(dir);
  EXPECT_GE(sockets, 3);  // listener, our client, the server's end
}

// uringscope reads SIGINT/SIGTERM/SIGHUP through a signalfd, which needs them blocked in
// every thread: the server thread must block them whenever it was started.
TEST(MetricsServerSignals, TheServerThreadBlocksProcessSignals) {
  auto tasks = [] {
    std::set<std::string> ids;
    DIR* dir = opendir("/proc/self/task");
    while (dirent* ent = dir ? readdir(dir) : nullptr) {
      if (ent->d_name[0] != '.') ids.insert(ent->d_name);
    }
    if (dir) closedir(dir);
    return ids;
  };
  const std::set<std::string> before = tasks();
  MetricsServer server(ListenAddress{"127.0.0.1", 0, false}, [] { return nullptr; });
  std::string tid;
  for (const std::string& id : tasks()) {
    if (!before.count(id)) tid = id;
  }
  ASSERT_FALSE(tid.empty());
  std::ifstream status("/proc/self/task/" + tid + "/status");
  std::string line, blocked;
  while (std::getline(status, line)) {
    if (line.rfind("SigBlk:", 0) == 0) blocked = line.substr(7);
  }
  const unsigned long long mask = std::stoull(blocked, nullptr, 16);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGPIPE}) {
    EXPECT_TRUE(mask & (1ull << (sig - 1))) << "signal " << sig << " not blocked: " << blocked;
  }
}

TEST(MetricsServerNoSnapshot, AnswersServiceUnavailableUntilTheFirstSnapshot) {
  std::shared_ptr<const Snapshot> snap;
  MetricsServer server(ListenAddress{"127.0.0.1", 0, false}, [&] { return std::atomic_load(&snap); });
  const HttpResponse r = request(server.port(), get("/metrics"));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.header("retry-after"), "1");
  std::atomic_store(&snap, std::make_shared<const Snapshot>(small_snapshot()));
  EXPECT_EQ(request(server.port(), get("/metrics")).status, 200);
}

TEST(MetricsServerLifetime, StopsPromptlyWithClientsConnected) {
  std::optional<MetricsServer> server;
  server.emplace(ListenAddress{"127.0.0.1", 0, false}, [] { return nullptr; });
  UniqueFd a = connect_to(server->port());
  UniqueFd b = connect_to(server->port());
  send_all(b.get(), "GET /metr");
  std::this_thread::sleep_for(50ms);
  const auto t0 = Clock::now();
  server.reset();
  EXPECT_LT(Clock::now() - t0, 500ms);
  // Its connections were closed with it.
  EXPECT_TRUE(read_until_close(a.get(), 2s).closed);
  EXPECT_TRUE(read_until_close(b.get(), 2s).closed);
}

TEST(MetricsServerLifetime, ServesOnIpv6Loopback) {
  UniqueFd probe(::socket(AF_INET6, SOCK_STREAM, 0));
  if (!probe) GTEST_SKIP() << "no IPv6 on this machine";
  std::optional<MetricsServer> server;
  try {
    server.emplace(parse_listen_address("[::1]:0"), [] { return std::make_shared<const Snapshot>(small_snapshot()); });
  } catch (const Error& e) {
    GTEST_SKIP() << "no IPv6 loopback: " << e.what();
  }
  EXPECT_EQ(server->url(), "http://[::1]:" + std::to_string(server->port()) + "/metrics");
  UniqueFd fd = connect_to(server->port(), AF_INET6);
  ASSERT_TRUE(fd);
  send_all(fd.get(), get("/metrics"));
  EXPECT_EQ(parse_response(read_until_close(fd.get()).bytes).status, 200);
}

// --- the address ------------------------------------------------------------------------

TEST(ListenAddressParse, LoopbackUnlessAllInterfacesIsAskedFor) {
  ListenAddress a = parse_listen_address("9477");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 9477);
  EXPECT_FALSE(a.all_interfaces);

  a = parse_listen_address(":9477");
  EXPECT_EQ(a.host, "0.0.0.0");
  EXPECT_TRUE(a.all_interfaces);

  a = parse_listen_address("0.0.0.0:9477");
  EXPECT_EQ(a.host, "0.0.0.0");
  EXPECT_TRUE(a.all_interfaces);

  a = parse_listen_address("127.0.0.1:9090");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 9090);
  EXPECT_FALSE(a.all_interfaces);

  a = parse_listen_address("localhost:80");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_FALSE(a.all_interfaces);

  a = parse_listen_address("[::1]:9090");
  EXPECT_EQ(a.host, "::1");
  EXPECT_FALSE(a.all_interfaces);

  a = parse_listen_address("[::]:9090");
  EXPECT_EQ(a.host, "::");
  EXPECT_TRUE(a.all_interfaces);

  a = parse_listen_address("10.1.2.3:0");
  EXPECT_EQ(a.host, "10.1.2.3");
  EXPECT_EQ(a.port, 0);
  EXPECT_EQ(parse_listen_address("65535").port, 65535);
}

TEST(ListenAddressParse, MalformedSpecsAreUsageErrors) {
  for (const char* spec : {"", ":", "abc", "9090:", "65536", "-1", "+80", "1.2.3:80", "1.2.3.4.5:80",
                           "::1:9090", "[::1]", "[::1]9090", "[nope]:80", "example.com:80",
                           "127.0.0.1:80x", "127.0.0.1: 80", "999999"}) {
    EXPECT_THROW(parse_listen_address(spec), UsageError) << spec;
  }
  try {
    parse_listen_address("::1:9090");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("brackets"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace uringscope
