// SPDX-License-Identifier: MIT
// One client of the --metrics endpoint, as a state machine the server's poll() loop
// steps: read the request head, write the response, then drain what the client still
// sends for a moment. Every client is treated as hostile: the head is capped in size and
// time, and a client that reads slowly only ever delays itself.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "metrics/exposition.h"
#include "metrics/http.h"
#include "metrics/scrape_demand.h"
#include "metrics/server.h"
#include "util/unique_fd.h"

namespace uringscope {

// The newest snapshot's exposition, rendered once per snapshot and format however often
// it is scraped.
class ExpositionCache {
 public:
  std::shared_ptr<const std::string> get(const std::shared_ptr<const Snapshot>& snap, ExpositionFormat f);

 private:
  std::shared_ptr<const Snapshot> snap_;
  std::shared_ptr<const std::string> text_[2];
};

class Connection {
 public:
  using Clock = std::chrono::steady_clock;

  Connection(UniqueFd fd, Clock::time_point now);

  int fd() const { return fd_.get(); }
  Clock::time_point deadline() const { return deadline_; }
  short events() const;

  // Advances as far as the socket allows. Returns false when the connection is done.
  // With `demand`, a request for the exposition does not take the newest snapshot: it
  // asks for a fresh one and waits (waiting()), without blocking the server.
  bool step(const MetricsServer::Source& latest, ExpositionCache& cache, ScrapeDemand* demand);
  bool waiting() const { return state_ == State::Waiting; }
  uint64_t ticket() const { return ticket_; }
  Clock::time_point answer_by() const { return answer_by_; }
  // A waiting connection's answer, from `latest` (its fresh snapshot, or the newest one
  // once answer_by() has passed). Returns false when the connection is done.
  bool answer(const MetricsServer::Source& latest, ExpositionCache& cache);

 private:
  enum class State { Reading, Waiting, Writing, Draining };

  bool read_request(const MetricsServer::Source& latest, ExpositionCache& cache, ScrapeDemand* demand);
  // Index just past the empty line that ends the head (CRLF CRLF, or bare LFs).
  std::optional<std::size_t> head_end(std::size_t from) const;
  void start_response(http::Response r);
  bool write_response();
  bool drain();

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
  uint64_t ticket_ = 0;  // Waiting: the fresh snapshot it waits for
  Clock::time_point answer_by_{};
};

}  // namespace uringscope
