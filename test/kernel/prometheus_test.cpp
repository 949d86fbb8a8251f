// SPDX-License-Identifier: MIT
// --metrics against a real Prometheus server (the Debian package): uringscope traces a
// fault scenario while Prometheus scrapes it every second; once Prometheus holds the
// injector's ground-truth counts, the values it stored must equal the JSON report's,
// exactly for counts and histogram buckets.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "harness.h"
#include "metrics/metrics.h"
#include "util/unique_fd.h"

using namespace std::chrono_literals;
using harness::kInject;
using harness::kUringscope;
using uringscope::UniqueFd;

namespace {

using Clock = std::chrono::steady_clock;

// The prometheus binary from PATH (Debian: /usr/bin/prometheus), or empty.
std::string find_prometheus() {
  std::string path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
  path += ":/usr/bin:/usr/local/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t colon = path.find(':', start);
    const std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) {
      const std::string candidate = dir + "/prometheus";
      struct stat st {};
      if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
        return candidate;
      }
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

// A loopback port nobody listens on right now (the kernel picks it).
uint16_t free_port() {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (!fd || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    throw std::runtime_error("cannot find a free port");
  }
  return ntohs(a.sin_port);
}

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// GET over HTTP/1.0, so the answer is never chunked and ends at the close. Returns the
// status and body; status 0 when nothing answered.
std::pair<int, std::string> http_get(uint16_t port, const std::string& target,
                                     std::chrono::milliseconds timeout = 5s) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return {0, ""};
  const std::string req = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::send(fd.get(), req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) return {0, ""};
  std::string raw;
  const auto deadline = Clock::now() + timeout;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return {0, ""};
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  const std::size_t end = raw.find("\r\n\r\n");
  if (raw.compare(0, 5, "HTTP/") != 0 || end == std::string::npos) return {0, ""};
  return {std::atoi(raw.c_str() + raw.find(' ') + 1), raw.substr(end + 4)};
}

// A Prometheus server of our own: its own config, storage in a temp dir, a loopback
// port, output in a log file. Killed and its directory removed on every path out.
class Prometheus {
 public:
  Prometheus(const std::string& binary, uint16_t scrape_port) : port_(free_port()) {
    char tmpl[] = "/tmp/uringscope-prometheus-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::ofstream(dir_ + "/prometheus.yml")
        << "global:\n"
           "  scrape_interval: 1s\n"
           "  scrape_timeout: 1s\n"
           "scrape_configs:\n"
           "  - job_name: uringscope\n"
           "    static_configs:\n"
           "      - targets: ['127.0.0.1:" << scrape_port << "']\n";
    const std::string log = dir_ + "/prometheus.log";
    process_.emplace(
        std::vector<std::string>{binary, "--config.file=" + dir_ + "/prometheus.yml",
                                 "--storage.tsdb.path=" + dir_ + "/data",
                                 "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
        [log] {
          // Into a file, not the harness's pipes: nobody drains those while we poll.
          int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
          if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
          }
        });
  }
  ~Prometheus() {
    process_.reset();  // SIGKILL and reap
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Prometheus(const Prometheus&) = delete;
  Prometheus& operator=(const Prometheus&) = delete;

  bool wait_ready(std::chrono::seconds timeout) const {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      if (http_get(port_, "/-/ready", 1s).first == 200) return true;
      std::this_thread::sleep_for(200ms);
    }
    return false;
  }

  // GET /api/v1/<path>; the "data" member of a successful answer, or null.
  nlohmann::json api(const std::string& path) const {
    auto [status, body] = http_get(port_, "/api/v1/" + path);
    if (status != 200) return nullptr;
    nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
    if (doc.is_discarded() || doc.value("status", "") != "success") return nullptr;
    return doc.at("data");
  }

  std::string log_tail() const {
    std::ifstream in(dir_ + "/prometheus.log");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > 3000 ? text.substr(text.size() - 3000) : text;
  }

 private:
  uint16_t port_;
  std::string dir_;
  std::optional<harness::Subprocess> process_;
};

// Every uringscope series Prometheus holds now, keyed by name and label set.
struct Series {
  std::map<std::string, std::string> labels;
  double value = 0;
};

std::vector<Series> query_all(const Prometheus& prom) {
  std::vector<Series> out;
  const nlohmann::json data = prom.api("query?query=" + url_encode(R"({job="uringscope",__name__=~"uringscope_.*"})"));
  if (data.is_null()) return out;
  for (const auto& r : data.at("result")) {
    Series s;
    for (const auto& [k, v] : r.at("metric").items()) s.labels[k] = v.get<std::string>();
    s.value = std::stod(r.at("value").at(1).get<std::string>());
    out.push_back(std::move(s));
  }
  return out;
}

// The value of the one series with this name whose labels include `want`.
std::optional<double> value(const std::vector<Series>& all, const std::string& name,
                            const std::map<std::string, std::string>& want) {
  std::optional<double> found;
  for (const Series& s : all) {
    auto it = s.labels.find("__name__");
    if (it == s.labels.end() || it->second != name) continue;
    bool match = true;
    for (const auto& [k, v] : want) {
      auto l = s.labels.find(k);
      match &= l != s.labels.end() && l->second == v;
    }
    if (!match) continue;
    if (found) return std::nullopt;  // ambiguous: the caller's labels are not enough
    found = s.value;
  }
  return found;
}

class PrometheusScrape : public harness::KernelTest {
 protected:
  std::vector<std::string> files_;
};

TEST_F(PrometheusScrape, ScrapedValuesMatchTheJsonReport) {
  const std::string binary = find_prometheus();
  ASSERT_FALSE(binary.empty())
      << "prometheus is not installed: this test needs a real Prometheus server "
         "(Debian package `prometheus`; packaging/install-deps.sh installs it)";

  const uint16_t metrics_port = free_port();
  Prometheus prom(binary, metrics_port);
  ASSERT_TRUE(prom.wait_ready(60s)) << "Prometheus did not become ready:\n" << prom.log_tail();

  // punt: every READ goes to io-wq (forced), so punts and io-wq latency are non-zero.
  // --linger keeps the window open while Prometheus catches up; SIGINT ends it early.
  const std::string json = file("metrics-report.json");
  harness::Subprocess scope({kUringscope, "--metrics", "127.0.0.1:" + std::to_string(metrics_port),
                             "--json=" + json, "--", kInject, "--linger", "60", "punt", "2000"});
  ASSERT_TRUE(scope.wait_for_output("GROUND-TRUTH op=READ", false, 30s)) << scope.err();
  ASSERT_TRUE(scope.wait_for_output("GROUND-TRUTH submit_calls", false, 10s)) << scope.err();
  const harness::GroundTruth gt = harness::parse_ground_truth(scope.out());
  const long long submitted = gt.number("op", "READ", "submitted");
  const long long completed = gt.number("op", "READ", "completed");
  const std::string pid = std::to_string(gt.value("pid"));
  ASSERT_EQ(submitted, 2000);

  // Wait until what Prometheus stored is the finished workload: all submitted, all
  // completed and in the histogram (a snapshot taken mid-run could have the first
  // without the others).
  const std::map<std::string, std::string> read = {{"pid", pid}, {"op", "READ"}};
  std::vector<Series> all;
  const auto deadline = Clock::now() + 45s;
  for (;;) {
    all = query_all(prom);
    const bool done = value(all, "uringscope_requests_submitted_total", read) == submitted &&
                      value(all, "uringscope_requests_completed_total", read) == completed &&
                      value(all, "uringscope_request_latency_seconds_count", read) == completed &&
                      value(all, "uringscope_cq_depth_samples_total", {{"pid", pid}}) == completed;
    if (done) break;
    if (Clock::now() > deadline) {
      FAIL() << "Prometheus never held the ground truth (submitted " << submitted << ", got "
             << value(all, "uringscope_requests_submitted_total", read).value_or(-1) << ")\ntargets: "
             << prom.api("targets").dump() << "\nuringscope: " << scope.err() << "\nprometheus:\n"
             << prom.log_tail();
    }
    std::this_thread::sleep_for(250ms);
  }

  // The scrape is healthy and went through OpenMetrics: only that format carries the
  // info type and units, so Prometheus's metadata shows which parser it used.
  const nlohmann::json targets = prom.api("targets");
  ASSERT_FALSE(targets.is_null());
  ASSERT_EQ(targets.at("activeTargets").size(), 1u);
  EXPECT_EQ(targets.at("activeTargets").at(0).at("health"), "up") << targets.dump();
  EXPECT_EQ(targets.at("activeTargets").at(0).at("lastError"), "") << targets.dump();
  const nlohmann::json meta = prom.api("metadata?metric=uringscope_request_latency_seconds");
  ASSERT_FALSE(meta.is_null());
  ASSERT_TRUE(meta.contains("uringscope_request_latency_seconds")) << meta.dump();
  EXPECT_EQ(meta.at("uringscope_request_latency_seconds").at(0).at("type"), "histogram");
  EXPECT_EQ(meta.at("uringscope_request_latency_seconds").at(0).at("unit"), "seconds");
  const nlohmann::json build = prom.api("metadata?metric=uringscope_build");
  ASSERT_TRUE(!build.is_null() && build.contains("uringscope_build")) << build.dump();
  EXPECT_EQ(build.at("uringscope_build").at(0).at("type"), "info");

  // End the run; the report is written on the way out.
  scope.signal(SIGINT);
  EXPECT_EQ(scope.wait(30s), 130) << scope.err();
  const nlohmann::json report = harness::read_json(json);

  // The injector's ring in the report, and its id as the ring label.
  const nlohmann::json* ring = nullptr;
  for (const auto& r : report.at("rings")) {
    if (std::to_string(r.at("pid").get<long long>()) == pid) ring = &r;
  }
  ASSERT_NE(ring, nullptr) << report.at("rings").dump();
  // The ring label is the metrics' own number for the ring (the report's id is a place in
  // the report): the ring_info series of the injector's pid and the ring's fd carries it.
  const std::string fd = ring->at("fd").is_null() ? "" : std::to_string(ring->at("fd").get<long long>());
  std::string ring_number;
  for (const Series& s : all) {
    if (s.labels.count("__name__") && s.labels.at("__name__") == "uringscope_ring_info" &&
        s.labels.count("pid") && s.labels.at("pid") == pid && s.labels.count("fd") &&
        s.labels.at("fd") == fd)
      ring_number = s.labels.at("ring");
  }
  ASSERT_FALSE(ring_number.empty()) << "no uringscope_ring_info for pid " << pid;
  const std::map<std::string, std::string> ring_labels = {
      {"ring", ring_number}, {"pid", pid}, {"comm", ring->at("comm").get<std::string>()}};

  // Per op: counts exact; the histogram bucket by bucket.
  ASSERT_FALSE(ring->at("ops").empty());
  for (const auto& op : ring->at("ops")) {
    auto labels = ring_labels;
    labels["op"] = op.at("op").get<std::string>();
    SCOPED_TRACE("op " + labels["op"]);
    auto num = [&](const char* key) { return static_cast<double>(op.at(key).get<long long>()); };
    EXPECT_EQ(value(all, "uringscope_requests_submitted_total", labels), num("submitted"));
    EXPECT_EQ(value(all, "uringscope_requests_completed_total", labels), num("completed"));
    // A counter has a series once it is not zero.
    EXPECT_EQ(value(all, "uringscope_untracked_completions_total", labels).value_or(0), num("untracked"));
    EXPECT_EQ(value(all, "uringscope_request_errors_total", labels), num("errors"));
    double punted = 0;
    for (const auto& [reason, n] : op.at("punt_reasons").items()) {
      auto with_reason = labels;
      with_reason["reason"] = reason;
      const double v = value(all, "uringscope_requests_punted_total", with_reason).value_or(0);
      EXPECT_EQ(v, static_cast<double>(n.get<long long>())) << reason;
      punted += v;
    }
    EXPECT_EQ(punted, num("punted"));

    // _count is the histogram's total; each cumulative bucket is the log2 buckets below it,
    // for the exposed bounds (256 ns to 68.7 s).
    const auto& hist = op.at("log2_hist");
    ASSERT_EQ(hist.size(), uringscope::kHistBuckets);
    long long cumulative = 0;
    for (std::size_t i = 0; i + 1 < hist.size(); ++i) {
      cumulative += hist.at(i).get<long long>();
      if (i < uringscope::kFirstExposedBucket || i > uringscope::kLastExposedBucket) continue;
      auto with_le = labels;
      with_le["le"] = uringscope::latency_bucket_le(i);
      EXPECT_EQ(value(all, "uringscope_request_latency_seconds_bucket", with_le), static_cast<double>(cumulative))
          << "le " << with_le["le"];
    }
    cumulative += hist.back().get<long long>();
    auto inf = labels;
    inf["le"] = "+Inf";
    EXPECT_EQ(value(all, "uringscope_request_latency_seconds_bucket", inf), static_cast<double>(cumulative));
    const auto count = value(all, "uringscope_request_latency_seconds_count", labels);
    EXPECT_EQ(count, static_cast<double>(cumulative));
    // The JSON gives the mean (sum / count, rounded down), not the sum: the sum in ns
    // must be one that rounds to it.
    const auto sum = value(all, "uringscope_request_latency_seconds_sum", labels);
    ASSERT_TRUE(sum.has_value());
    if (cumulative > 0) {
      const long long sum_ns = std::llround(*sum * 1e9);
      const long long avg = op.at("avg_ns").get<long long>();
      EXPECT_GE(sum_ns, avg * cumulative) << *sum;
      EXPECT_LT(sum_ns, (avg + 1) * cumulative) << *sum;
      EXPECT_GT(*sum, 0.0);
    }
  }

  // This scenario's facts, from the ground truth itself.
  auto forced = ring_labels;
  forced["op"] = "READ";
  forced["reason"] = "forced";
  EXPECT_EQ(value(all, "uringscope_requests_punted_total", forced),
            static_cast<double>(gt.number("op", "READ", "forced_async")));

  // Ring counters.
  const auto& counters = ring->at("counters");
  EXPECT_EQ(value(all, "uringscope_enter_calls_total", ring_labels),
            static_cast<double>(counters.at("enter_calls").get<long long>()));
  EXPECT_EQ(value(all, "uringscope_enter_submit_calls_total", ring_labels),
            static_cast<double>(counters.at("enter_submit_calls").get<long long>()));
  EXPECT_EQ(value(all, "uringscope_cq_overflows_total", ring_labels).value_or(0),
            static_cast<double>(counters.at("cq_overflows").get<long long>()));
  // The boundary's families (on by default) against end_to_end: the CQ depth exact; the
  // reap-lag histogram may miss the last CQEs, whose reap the timer or the teardown can
  // see after the last scrape.
  const nlohmann::json* e2e = nullptr;
  for (const auto& r : report.at("end_to_end").at("rings"))
    if (r.at("ring") == ring->at("id")) e2e = &r;
  ASSERT_NE(e2e, nullptr) << report.at("end_to_end").dump();
  const auto& depth = e2e->at("cq_depth");
  EXPECT_EQ(value(all, "uringscope_cq_depth_samples_total", ring_labels),
            static_cast<double>(depth.at("samples").get<long long>()));
  EXPECT_EQ(value(all, "uringscope_cq_depth_max", ring_labels),
            static_cast<double>(depth.at("max").get<long long>()));
  const auto reaps = value(all, "uringscope_cq_reap_lag_seconds_count", ring_labels);
  const auto watched = static_cast<double>(e2e->at("reap_lag").at("watched").get<long long>());
  ASSERT_TRUE(reaps.has_value());
  EXPECT_GE(*reaps, watched - 1);
  EXPECT_LE(*reaps, watched);
  EXPECT_GT(watched, 0);
  // io-wq workers per process: the distinct count only grows, and the JSON is read after
  // the scrape, when a worker may have run once more (one seen as it exits at teardown).
  for (const auto& w : report.at("workers")) {
    if (std::to_string(w.at("pid").get<long long>()) != pid) continue;
    const auto scraped = value(all, "uringscope_iowq_workers", {{"pid", pid}});
    ASSERT_TRUE(scraped.has_value());
    EXPECT_GE(*scraped, 1.0);
    EXPECT_LE(*scraped, static_cast<double>(w.at("distinct").get<long long>()));
  }
  EXPECT_EQ(value(all, "uringscope_build_info", {{"version", report.at("tool_version").get<std::string>()}}), 1.0);
}

TEST_F(PrometheusScrape, APortInUseIsAClearErrorBeforeAnythingIsAttached) {
  // Someone else holds the port.
  UniqueFd holder(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(holder.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(holder.get(), 1), 0);
  ASSERT_EQ(::getsockname(holder.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string port = std::to_string(ntohs(a.sin_port));

  const harness::Result r = harness::run({kUringscope, "--metrics", "127.0.0.1:" + port, "--", kInject, "clean", "10"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("cannot listen on 127.0.0.1:" + port + ": Address already in use"), std::string::npos)
      << r.err;
  // The command never ran.
  EXPECT_EQ(r.out.find("GROUND-TRUTH"), std::string::npos);
}

}  // namespace
