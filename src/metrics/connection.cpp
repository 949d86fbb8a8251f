// SPDX-License-Identifier: MIT
#include "metrics/connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <variant>

#include "metrics/accept.h"

namespace uringscope {
namespace {

using namespace std::chrono_literals;
using http::error_response;
using http::Response;

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

bool would_block() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

Response respond(std::string_view head, const MetricsServer::Source& latest, ExpositionCache& cache) {
  auto parsed = http::parse_request(head);
  if (auto* r = std::get_if<Response>(&parsed)) return std::move(*r);
  const http::Request& req = std::get<http::Request>(parsed);
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

// Only a request for the exposition needs a snapshot, so only it waits for a fresh one;
// every other answer (404, 405, 400, ...) goes out at once.
bool wants_snapshot(std::string_view head) {
  auto parsed = http::parse_request(head);
  const auto* req = std::get_if<http::Request>(&parsed);
  return req && req->path == "/metrics" && (req->method == "GET" || req->method == "HEAD");
}

}  // namespace

std::shared_ptr<const std::string> ExpositionCache::get(const std::shared_ptr<const Snapshot>& snap,
                                                        ExpositionFormat f) {
  if (snap != snap_) {
    snap_ = snap;
    text_[0].reset();
    text_[1].reset();
  }
  auto& slot = text_[static_cast<int>(f)];
  if (!slot) slot = std::make_shared<const std::string>(render_exposition(*snap, f));
  return slot;
}

Connection::Connection(UniqueFd fd, Clock::time_point now)
    : fd_(std::move(fd)), accepted_(now), deadline_(now + kRequestTimeout) {}

short Connection::events() const {
  switch (state_) {
    case State::Waiting: return 0;  // only a hangup or an error is reported
    case State::Writing: return POLLOUT;
    default: return POLLIN;
  }
}

bool Connection::step(const MetricsServer::Source& latest, ExpositionCache& cache, ScrapeDemand* demand) {
  switch (state_) {
    case State::Reading: return read_request(latest, cache, demand);
    case State::Waiting: return false;  // polled for nothing: the client hung up or failed
    case State::Writing: return write_response();
    case State::Draining: return drain();
  }
  return false;
}

bool Connection::answer(const MetricsServer::Source& latest, ExpositionCache& cache) {
  start_response(respond(in_, latest, cache));
  return write_response();
}

bool Connection::read_request(const MetricsServer::Source& latest, ExpositionCache& cache,
                              ScrapeDemand* demand) {
  char buf[2048];
  for (;;) {
    const std::size_t room = kMaxRequestBytes - in_.size();
    const ssize_t n = ::recv(fd_.get(), buf, std::min(room, sizeof buf), 0);
    if (n == 0) return false;  // the client gave up; nothing to answer
    if (n < 0) return would_block();
    const std::size_t scan_from = in_.size() >= 3 ? in_.size() - 3 : 0;
    in_.append(buf, static_cast<std::size_t>(n));
    if (auto end = head_end(scan_from)) {
      unread_ = in_.size() > *end;  // a body or a pipelined request we will not read
      in_.resize(*end);
      if (demand && wants_snapshot(in_)) {
        ticket_ = demand->ask();
        answer_by_ = Clock::now() + demand->max_wait();
        state_ = State::Waiting;
        deadline_ = accepted_ + kConnectionTimeout;
        return true;
      }
      return answer(latest, cache);
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

std::optional<std::size_t> Connection::head_end(std::size_t from) const {
  for (std::size_t i = from; i < in_.size(); ++i) {
    if (in_[i] != '\n') continue;
    if (i >= 1 && in_[i - 1] == '\n') return i + 1;
    if (i >= 3 && in_[i - 1] == '\r' && in_[i - 2] == '\n') return i + 1;
  }
  return std::nullopt;
}

void Connection::start_response(Response r) {
  head_ = http::response_head(r);
  body_ = r.head_only ? nullptr : std::move(r.body);
  sent_ = 0;
  state_ = State::Writing;
  deadline_ = accepted_ + kConnectionTimeout;
  in_.clear();
  in_.shrink_to_fit();
}

bool Connection::write_response() {
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
    if (n < 0) return would_block();
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

bool Connection::drain() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n == 0) return false;
    if (n < 0) return would_block();
    drained_ += static_cast<std::size_t>(n);
    if (drained_ > kMaxLingerBytes) return false;
  }
}

}  // namespace uringscope
