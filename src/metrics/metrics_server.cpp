// SPDX-License-Identifier: MIT
// The --metrics HTTP endpoint: one thread, one poll() loop, non-blocking sockets. It
// serves GET/HEAD /metrics and nothing else, and treats every client as hostile: the
// request head is capped in size and time, connections are capped in number, and a
// client that reads slowly only ever delays itself. Plain POSIX sockets, because the
// tool must stay one static binary that links only libbpf, libelf and zlib.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <list>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include "util/error.h"
#include "metrics/metrics.h"
#include "util/strings.h"

namespace uringscope {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Enough for Prometheus (one scrape at a time per target) and a few curls; a client past
// the limit waits in the listen backlog until a slot frees, at most kConnectionTimeout.
constexpr std::size_t kMaxConnections = 16;
// A scraper's request head is a few hundred bytes.
constexpr std::size_t kMaxRequestBytes = 8192;
// From accept to the end of the request head: bounds what a silent client can hold.
constexpr auto kRequestTimeout = 5s;
// From accept to the last byte of the response: a client that stops reading loses its
// connection, it never stalls the loop.
constexpr auto kConnectionTimeout = 15s;
// After the response, what the client still sends is read and dropped for a moment, so
// the close does not turn into a reset that could destroy the response in flight.
constexpr auto kLingerTimeout = 1s;
constexpr std::size_t kMaxLingerBytes = 256 * 1024;
constexpr int kBacklog = 128;

bool is_tchar(char c) {
  // RFC 9110 token characters.
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar); }

struct Response {
  int status = 200;
  std::string_view reason = "OK";
  std::string extra_headers;                       // each ending in \r\n
  std::string_view type = "text/plain; charset=utf-8";
  std::shared_ptr<const std::string> body;
  bool head_only = false;                          // HEAD: headers (with the length) only
};

Response error_response(int status, std::string_view reason, std::string_view text) {
  Response r;
  r.status = status;
  r.reason = reason;
  r.body = std::make_shared<const std::string>(std::string(text) + "\n");
  return r;
}

// What a parsed request head asks for.
struct Request {
  std::string method;
  std::string path;   // without the query
  std::string accept;
};

// Strict parse of a complete request head (request line and header lines, each ending in
// CRLF or a bare LF, up to the empty line). Returns an error response for anything that
// is not a well-formed HTTP/1.x request.
std::variant<Request, Response> parse_request(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const std::size_t lf = head.find('\n');
    std::string_view line = head.substr(0, lf);
    head = lf == std::string_view::npos ? std::string_view{} : head.substr(lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    lines.push_back(line);
  }
  const Response bad = error_response(400, "Bad Request", "bad request");
  if (lines.empty()) return bad;

  // request-line = method SP request-target SP HTTP-version, single spaces, no CR/ctl.
  const std::string_view rl = lines[0];
  const std::size_t sp1 = rl.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : rl.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || rl.find(' ', sp2 + 1) != std::string_view::npos) return bad;
  Request req;
  req.method = rl.substr(0, sp1);
  std::string_view target = rl.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = rl.substr(sp2 + 1);
  if (!is_token(req.method) || target.empty()) return bad;
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return bad;
  }
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || !std::isdigit(static_cast<unsigned char>(version[5])) ||
      version[6] != '.' || !std::isdigit(static_cast<unsigned char>(version[7]))) {
    return bad;
  }
  if (version[5] != '1') return error_response(505, "HTTP Version Not Supported", "HTTP/1.x only");
  const bool http11 = version[7] != '0';

  // absolute-form ("http://host/metrics") is legal too; only the path matters here.
  if (target.size() > 7 && iequals(target.substr(0, 7), "http://")) {
    const std::size_t slash = target.find('/', 7);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  if (target.front() != '/') return bad;
  req.path = target.substr(0, target.find('?'));

  int hosts = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    // No obs-fold, no space before the colon (RFC 9112 5.1 and 5.2 say reject).
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) return bad;
    std::string_view value = line.substr(colon + 1);
    for (char c : value) {
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return bad;
    }
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    const std::string_view name = line.substr(0, colon);
    if (iequals(name, "host")) ++hosts;
    if (iequals(name, "accept")) {
      // Repeated Accept fields are one comma-separated list.
      if (!req.accept.empty()) req.accept += ',';
      req.accept += value;
    }
  }
  // RFC 9112 3.2: a 1.1 request without exactly one Host is a 400.
  if (http11 && hosts != 1) return bad;
  if (!http11 && hosts > 1) return bad;
  return req;
}

// The newest snapshot's exposition, rendered once per snapshot and format however often
// it is scraped.
class ExpositionCache {
 public:
  std::shared_ptr<const std::string> get(const std::shared_ptr<const Snapshot>& snap, ExpositionFormat f) {
    if (snap != snap_) {
      snap_ = snap;
      text_[0].reset();
      text_[1].reset();
    }
    auto& slot = text_[static_cast<int>(f)];
    if (!slot) slot = std::make_shared<const std::string>(render_exposition(*snap, f));
    return slot;
  }

 private:
  std::shared_ptr<const Snapshot> snap_;
  std::shared_ptr<const std::string> text_[2];
};

Response respond(std::string_view head, const MetricsServer::Source& latest, ExpositionCache& cache) {
  auto parsed = parse_request(head);
  if (auto* r = std::get_if<Response>(&parsed)) return std::move(*r);
  const Request& req = std::get<Request>(parsed);
  const bool is_head = req.method == "HEAD";
  Response r;
  if (req.path != "/metrics") {
    r = error_response(404, "Not Found", "not found: uringscope serves /metrics only");
  } else if (req.method != "GET" && !is_head) {
    r = error_response(405, "Method Not Allowed", "only GET and HEAD");
    r.extra_headers = "Allow: GET, HEAD\r\n";
  } else {
    std::shared_ptr<const Snapshot> snap = latest ? latest() : nullptr;
    if (!snap) {
      // Before the first snapshot there is nothing true to say: no numbers, not zeros.
      r = error_response(503, "Service Unavailable", "uringscope has no snapshot yet");
      r.extra_headers = "Retry-After: 1\r\n";
    } else {
      const ExpositionFormat format = negotiate_format(req.accept);
      r.type = content_type(format);
      r.body = cache.get(snap, format);
    }
  }
  r.head_only = is_head;
  return r;
}

std::string response_head(const Response& r) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n"
      "{}Connection: close\r\n\r\n",
      r.status, r.reason, r.type, r.body ? r.body->size() : 0, r.extra_headers);
}

class Connection {
 public:
  Connection(UniqueFd fd, Clock::time_point now)
      : fd_(std::move(fd)), accepted_(now), deadline_(now + kRequestTimeout) {}

  int fd() const { return fd_.get(); }
  Clock::time_point deadline() const { return deadline_; }
  short events() const { return state_ == State::Writing ? POLLOUT : POLLIN; }

  // Advances as far as the socket allows. Returns false when the connection is done.
  bool step(const MetricsServer::Source& latest, ExpositionCache& cache) {
    switch (state_) {
      case State::Reading: return read_request(latest, cache);
      case State::Writing: return write_response();
      case State::Draining: return drain();
    }
    return false;
  }

 private:
  enum class State { Reading, Writing, Draining };

  bool read_request(const MetricsServer::Source& latest, ExpositionCache& cache) {
    char buf[2048];
    for (;;) {
      const std::size_t room = kMaxRequestBytes - in_.size();
      const ssize_t n = ::recv(fd_.get(), buf, std::min(room, sizeof buf), 0);
      if (n == 0) return false;  // the client gave up; nothing to answer
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      const std::size_t scan_from = in_.size() >= 3 ? in_.size() - 3 : 0;
      in_.append(buf, static_cast<std::size_t>(n));
      if (auto end = head_end(scan_from)) {
        unread_ = in_.size() > *end;  // a body or a pipelined request we will not read
        start_response(respond(std::string_view(in_).substr(0, *end), latest, cache));
        return write_response();
      }
      if (in_.size() >= kMaxRequestBytes) {
        unread_ = true;
        // A request line that alone fills the cap is a long URI; otherwise the fields are.
        start_response(in_.find('\n') == std::string::npos
                           ? error_response(414, "URI Too Long", "request line too long")
                           : error_response(431, "Request Header Fields Too Large", "request head too large"));
        return write_response();
      }
    }
  }

  // Index just past the empty line that ends the head (CRLF CRLF, or bare LFs).
  std::optional<std::size_t> head_end(std::size_t from) const {
    for (std::size_t i = from; i < in_.size(); ++i) {
      if (in_[i] != '\n') continue;
      if (i >= 1 && in_[i - 1] == '\n') return i + 1;
      if (i >= 3 && in_[i - 1] == '\r' && in_[i - 2] == '\n') return i + 1;
    }
    return std::nullopt;
  }

  void start_response(Response r) {
    head_ = response_head(r);
    body_ = r.head_only ? nullptr : std::move(r.body);
    sent_ = 0;
    state_ = State::Writing;
    deadline_ = accepted_ + kConnectionTimeout;
    in_.clear();
    in_.shrink_to_fit();
  }

  bool write_response() {
    const std::size_t body_size = body_ ? body_->size() : 0;
    const std::size_t total = head_.size() + body_size;
    while (sent_ < total) {
      iovec iov[2];
      int count = 0;
      if (sent_ < head_.size()) {
        iov[count++] = {head_.data() + sent_, head_.size() - sent_};
        if (body_size) iov[count++] = {const_cast<char*>(body_->data()), body_size};
      } else {
        const std::size_t off = sent_ - head_.size();
        iov[count++] = {const_cast<char*>(body_->data()) + off, body_size - off};
      }
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<std::size_t>(count);
      // MSG_NOSIGNAL: a client that hung up must not SIGPIPE the tracer.
      const ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      sent_ += static_cast<std::size_t>(n);
    }
    ::shutdown(fd_.get(), SHUT_WR);
    // A client that sent just its request head has nothing left in flight: close now
    // (with an empty receive queue the close is a clean FIN, never a reset). Only one
    // that sent more lingers, so its response is not lost to a reset.
    char probe;
    const ssize_t pending = ::recv(fd_.get(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
    if (!unread_ && pending <= 0) return false;
    state_ = State::Draining;
    deadline_ = std::min(Clock::now() + kLingerTimeout, accepted_ + kConnectionTimeout);
    head_.clear();
    body_.reset();
    return drain();
  }

  bool drain() {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
      if (n == 0) return false;
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      drained_ += static_cast<std::size_t>(n);
      if (drained_ > kMaxLingerBytes) return false;
    }
  }

  UniqueFd fd_;
  Clock::time_point accepted_;
  Clock::time_point deadline_;
  State state_ = State::Reading;
  std::string in_;
  std::string head_;
  std::shared_ptr<const std::string> body_;
  std::size_t sent_ = 0;
  std::size_t drained_ = 0;
  bool unread_ = false;  // the client sent bytes we did not read
};

std::string host_port(const std::string& host, uint16_t port) {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                              : fmt::format("{}:{}", host, port);
}

uint16_t parse_port(std::string_view text, std::string_view spec) {
  if (text.empty() || text.size() > 5 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw UsageError(fmt::format("--metrics {}: the port must be a number from 0 to 65535", spec));
  }
  const unsigned long port = std::stoul(std::string(text));
  if (port > 65535) {
    throw UsageError(fmt::format("--metrics {}: the port must be a number from 0 to 65535", spec));
  }
  return static_cast<uint16_t>(port);
}

}  // namespace

ListenAddress parse_listen_address(std::string_view spec) {
  const auto usage = [&](std::string_view why) {
    return UsageError(fmt::format("--metrics {}: {} (expected [ADDR]:PORT, e.g. 127.0.0.1:9477, "
                                  ":9477 for every interface, [::1]:9477)",
                                  spec.empty() ? "''" : spec, why));
  };
  if (spec.empty()) throw usage("empty address");
  ListenAddress out;
  if (spec.front() == '[') {
    const std::size_t close = spec.find(']');
    if (close == std::string_view::npos || close + 1 >= spec.size() || spec[close + 1] != ':') {
      throw usage("an IPv6 address in brackets must be followed by :PORT");
    }
    const std::string host(spec.substr(1, close - 1));
    in6_addr a6{};
    if (inet_pton(AF_INET6, host.c_str(), &a6) != 1) throw usage("not a numeric IPv6 address");
    char canon[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &a6, canon, sizeof canon);
    out.host = canon;
    out.port = parse_port(spec.substr(close + 2), spec);
    out.all_interfaces = IN6_IS_ADDR_UNSPECIFIED(&a6);
    return out;
  }
  const std::size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    // A bare port is the safe default: loopback only.
    out.host = "127.0.0.1";
    out.port = parse_port(spec, spec);
    return out;
  }
  if (spec.find(':', colon + 1) != std::string_view::npos) {
    throw usage("write an IPv6 address in brackets");
  }
  const std::string host(spec.substr(0, colon));
  out.port = parse_port(spec.substr(colon + 1), spec);
  if (host.empty()) {
    // Only an explicitly empty address means every interface.
    out.host = "0.0.0.0";
    out.all_interfaces = true;
    return out;
  }
  if (host == "localhost") {
    // Numeric only otherwise: name lookup would need NSS, which a static binary lacks.
    out.host = "127.0.0.1";
    return out;
  }
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) != 1) throw usage("not a numeric IPv4 address");
  char canon[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a4, canon, sizeof canon);
  out.host = canon;
  out.all_interfaces = a4.s_addr == htonl(INADDR_ANY);
  return out;
}

MetricsServer::MetricsServer(const ListenAddress& where, Source latest)
    : host_(where.host), latest_(std::move(latest)) {
  const auto fail = [&](std::string_view what, int err) {
    return Error(fmt::format("cannot listen on {}: {}{}", host_port(where.host, where.port), what,
                             err ? std::string(what.empty() ? "" : ": ") + std::strerror(err) : ""));
  };
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
  int family = AF_INET;
  if (where.host.find(':') != std::string::npos) {
    family = AF_INET6;
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(where.port);
    if (inet_pton(AF_INET6, where.host.c_str(), &a6->sin6_addr) != 1) throw fail("not an IPv6 address", 0);
    addr_len = sizeof *a6;
  } else {
    auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
    a4->sin_family = AF_INET;
    a4->sin_port = htons(where.port);
    if (inet_pton(AF_INET, where.host.c_str(), &a4->sin_addr) != 1) throw fail("not an IPv4 address", 0);
    addr_len = sizeof *a4;
  }

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
  if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), addr_len) != 0) throw fail("", errno);
  if (::listen(listener_.get(), kBacklog) != 0) throw fail("", errno);

  sockaddr_storage bound{};
  socklen_t bound_len = sizeof bound;
  if (::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&bound), &bound_len) != 0) throw fail("", errno);
  port_ = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                   : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  stop_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_) throw Error(fmt::format("metrics server: eventfd: {}", std::strerror(errno)));

  // uringscope takes SIGINT/SIGTERM/SIGHUP through a signalfd, which works only while
  // every thread blocks them. The thread inherits this full mask from birth, so no
  // process signal can ever be delivered to it, whenever the signalfd is set up.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    thread_ = std::thread([this] { serve(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
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
  try {
    for (;;) {
      const Clock::time_point now = Clock::now();
      std::optional<Clock::time_point> next;
      for (auto it = conns.begin(); it != conns.end();) {
        if (it->deadline() <= now) {
          it = conns.erase(it);  // too slow: closed without an answer
        } else {
          next = next ? std::min(*next, it->deadline()) : it->deadline();
          ++it;
        }
      }

      fds.clear();
      polled.clear();
      fds.push_back({stop_.get(), POLLIN, 0});
      // At the limit the listener is not polled: new clients wait in the backlog.
      const bool accepting = conns.size() < kMaxConnections && now >= accept_paused_until;
      if (!accepting && conns.size() < kMaxConnections) {
        next = next ? std::min(*next, accept_paused_until) : accept_paused_until;
      }
      fds.push_back({accepting ? listener_.get() : -1, POLLIN, 0});
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

      for (std::size_t i = 0; i < polled.size(); ++i) {
        if (!fds[i + 2].revents) continue;
        bool keep = false;
        try {
          keep = polled[i]->step(latest_, cache);
        } catch (const std::exception&) {
          keep = false;  // e.g. out of memory while rendering: drop this client only
        }
        if (!keep) conns.erase(polled[i]);
      }

      if (accepting && fds[1].revents) {
        while (conns.size() < kMaxConnections) {
          UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
          if (fd) {
            conns.emplace_back(std::move(fd), Clock::now());
            continue;
          }
          if (errno == ECONNABORTED || errno == EINTR) continue;  // that client is gone
          if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            // The pending client stays in the backlog and the listener stays readable:
            // without a pause this would spin. Retry once something may have freed up.
            accept_paused_until = Clock::now() + 100ms;
          }
          break;  // EAGAIN: backlog empty
        }
      }
    }
  } catch (const std::exception& e) {
    // Never take the tracer down: the report still comes; only the endpoint is gone.
    std::cerr << "uringscope: metrics endpoint stopped: " << e.what() << std::endl;
  }
}

}  // namespace uringscope
