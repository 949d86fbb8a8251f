// SPDX-License-Identifier: MIT
// The --metrics HTTP endpoint: one thread, one poll() loop, non-blocking sockets. It
// serves GET/HEAD /metrics and nothing else (connection.h is one client, http.h the
// protocol); connections are capped in number. Plain POSIX sockets, because the tool must
// stay one static binary that links only libbpf, libelf and zlib.
#include "metrics/server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <list>
#include <optional>
#include <vector>

#include "metrics/connection.h"
#include "util/error.h"
#include "util/untrusted_text.h"

namespace uringscope {
namespace {

using Clock = Connection::Clock;
using namespace std::chrono_literals;

// Enough for Prometheus (one scrape at a time per target) and a few curls; a client past
// the limit waits in the listen backlog until a slot frees, at most the connection
// timeout.
constexpr std::size_t kMaxConnections = 16;
constexpr int kBacklog = 128;

// The socket address of a numeric host; nullopt when `host` is not one. Fills addr.
std::optional<socklen_t> socket_address(const ListenAddress& where, sockaddr_storage& addr) {
  if (where.host.find(':') != std::string::npos) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(where.port);
    if (inet_pton(AF_INET6, where.host.c_str(), &a6->sin6_addr) != 1) return std::nullopt;
    return sizeof *a6;
  }
  auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
  a4->sin_family = AF_INET;
  a4->sin_port = htons(where.port);
  if (inet_pton(AF_INET, where.host.c_str(), &a4->sin_addr) != 1) return std::nullopt;
  return sizeof *a4;
}

// Starts `body` on a thread that blocks every signal. uringscope takes SIGINT/SIGTERM/
// SIGHUP through a signalfd, which works only while every thread blocks them. The thread
// inherits this full mask from birth, so no process signal can ever be delivered to it,
// whenever the signalfd is set up.
template <typename F>
std::thread start_without_signals(F body) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread t;
  try {
    t = std::thread(std::move(body));
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return t;
}

// Accepts waiting clients while there is room. Returns when the backlog is empty or, on
// a shortage of fds or memory, with `paused_until` set: the pending client stays in the
// backlog and the listener stays readable, so without a pause the loop would spin.
void accept_clients(int listener, std::list<Connection>& conns, Clock::time_point& paused_until) {
  while (conns.size() < kMaxConnections) {
    UniqueFd fd(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd) {
      conns.emplace_back(std::move(fd), Clock::now());
      continue;
    }
    if (errno == ECONNABORTED || errno == EINTR) continue;  // that client is gone
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      paused_until = Clock::now() + 100ms;  // retry once something may have freed up
    }
    break;  // EAGAIN: backlog empty
  }
}

// Closes connections past their deadline; returns the earliest deadline left.
std::optional<Clock::time_point> expire(std::list<Connection>& conns, Clock::time_point now) {
  std::optional<Clock::time_point> next;
  for (auto it = conns.begin(); it != conns.end();) {
    if (it->deadline() <= now) {
      it = conns.erase(it);  // too slow: closed without an answer
    } else {
      next = next ? std::min(*next, it->deadline()) : it->deadline();
      ++it;
    }
  }
  return next;
}

// Answers the connections waiting for a fresh snapshot that has come, or that waited
// as long as a scrape may.
void answer_waiting(std::list<Connection>& conns, const ScrapeDemand& demand,
                    const MetricsServer::Source& latest, ExpositionCache& cache, Clock::time_point now) {
  for (auto it = conns.begin(); it != conns.end();) {
    bool keep = true;
    if (it->waiting() && (demand.answered(it->ticket()) || it->answer_by() <= now)) {
      try {
        keep = it->answer(latest, cache);
      } catch (const std::exception&) {
        keep = false;
      }
    }
    it = keep ? std::next(it) : conns.erase(it);
  }
}

// The earliest moment a waiting connection gives up waiting, if one waits.
std::optional<Clock::time_point> next_answer(const std::list<Connection>& conns,
                                             std::optional<Clock::time_point> next) {
  for (const Connection& c : conns)
    if (c.waiting()) next = next ? std::min(*next, c.answer_by()) : c.answer_by();
  return next;
}

}  // namespace

MetricsServer::MetricsServer(const ListenAddress& where, Source latest)
    : MetricsServer(where, std::move(latest), nullptr) {}

MetricsServer::MetricsServer(const ListenAddress& where, ScrapeDemand& demand)
    : MetricsServer(where, [&demand] { return demand.latest(); }, &demand) {}

MetricsServer::MetricsServer(const ListenAddress& where, Source latest, ScrapeDemand* demand)
    : host_(where.host), latest_(std::move(latest)), demand_(demand) {
  const auto fail = [&](std::string_view what, int err) {
    return Error(fmt::format("cannot listen on {}: {}{}", host_port(where.host, where.port), what,
                             err ? std::string(what.empty() ? "" : ": ") + std::strerror(err) : ""));
  };
  const int family = where.host.find(':') != std::string::npos ? AF_INET6 : AF_INET;
  sockaddr_storage addr{};
  const std::optional<socklen_t> addr_len = socket_address(where, addr);
  if (!addr_len) throw fail(family == AF_INET6 ? "not an IPv6 address" : "not an IPv4 address", 0);

  // CLOEXEC everywhere: the command uringscope runs must not inherit the listener.
  listener_.reset(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!listener_) throw fail("", errno);
  const int one = 1;
  // Lets a restart bind while old connections sit in TIME_WAIT; on Linux it still
  // refuses a port another socket is listening on.
  ::setsockopt(listener_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (family == AF_INET6 && where.all_interfaces) {
    // "[::]:PORT" means every interface, IPv4 included, whatever the sysctl default.
    const int zero = 0;
    ::setsockopt(listener_.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  }
  if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), *addr_len) != 0) throw fail("", errno);
  if (::listen(listener_.get(), kBacklog) != 0) throw fail("", errno);

  sockaddr_storage bound{};
  socklen_t bound_len = sizeof bound;
  if (::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&bound), &bound_len) != 0) throw fail("", errno);
  port_ = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                   : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  stop_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_) throw Error(fmt::format("metrics server: eventfd: {}", std::strerror(errno)));
  thread_ = start_without_signals([this] { serve(); });
}

MetricsServer::~MetricsServer() {
  const uint64_t one = 1;
  // An eventfd write of 1 cannot fail short of a counter overflow.
  [[maybe_unused]] ssize_t n = ::write(stop_.get(), &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

uint16_t MetricsServer::port() const { return port_; }

std::string MetricsServer::url() const { return "http://" + host_port(host_, port_) + "/metrics"; }

void MetricsServer::serve() {
  std::list<Connection> conns;
  ExpositionCache cache;
  std::vector<pollfd> fds;
  std::vector<std::list<Connection>::iterator> polled;
  Clock::time_point accept_paused_until{};
  // Fixed slots: the stop eventfd, the listener, the fresh-snapshot eventfd.
  constexpr std::size_t kFirstConnection = 3;
  try {
    for (;;) {
      const Clock::time_point now = Clock::now();
      std::optional<Clock::time_point> next = next_answer(conns, expire(conns, now));

      fds.clear();
      polled.clear();
      fds.push_back({stop_.get(), POLLIN, 0});
      // At the limit the listener is not polled: new clients wait in the backlog.
      const bool accepting = conns.size() < kMaxConnections && now >= accept_paused_until;
      if (!accepting && conns.size() < kMaxConnections) {
        next = next ? std::min(*next, accept_paused_until) : accept_paused_until;
      }
      fds.push_back({accepting ? listener_.get() : -1, POLLIN, 0});
      fds.push_back({demand_ ? demand_->ready_fd() : -1, POLLIN, 0});
      for (auto it = conns.begin(); it != conns.end(); ++it) {
        fds.push_back({it->fd(), it->events(), 0});
        polled.push_back(it);
      }
      int timeout_ms = -1;
      if (next) {
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
        timeout_ms = static_cast<int>(std::clamp<long long>(wait, 0, 60'000));
      }
      if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
        if (errno == EINTR) continue;
        throw Error(fmt::format("poll: {}", std::strerror(errno)));
      }
      if (fds[0].revents) return;
      if (fds[2].revents) demand_->ready();

      for (std::size_t i = 0; i < polled.size(); ++i) {
        if (!fds[i + kFirstConnection].revents) continue;
        bool keep = false;
        try {
          keep = polled[i]->step(latest_, cache, demand_);
        } catch (const std::exception&) {
          keep = false;  // e.g. out of memory while rendering: drop this client only
        }
        if (!keep) conns.erase(polled[i]);
      }
      if (demand_) answer_waiting(conns, *demand_, latest_, cache, Clock::now());
      if (accepting && fds[1].revents) accept_clients(listener_.get(), conns, accept_paused_until);
    }
  } catch (const std::exception& e) {
    // Never take the tracer down: the report still comes; only the endpoint is gone.
    std::cerr << "uringscope: metrics endpoint stopped: " << visible_text(e.what()) << std::endl;
  }
}

}  // namespace uringscope
