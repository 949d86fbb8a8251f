// SPDX-License-Identifier: MIT
// The requests between their SUBMIT and their final CQE, and how a record finds its
// request. The only trace state that grows with the traffic: bounded by the requests in
// flight, however long the run.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "uringscope/abi.h"

namespace uringscope {

// Worker hops kept per request for its flow arrow; a request re-queued more often keeps
// the first hops and the last one.
inline constexpr std::size_t kMaxTraceSteps = 4;

// A point a flow arrow passes through: an X marker already written on (pid, tid) at ts.
struct TraceStep {
  uint64_t ts;
  uint32_t pid;
  uint32_t tid;
};

// One request between its SUBMIT and its final CQE.
struct TraceRequest {
  uint64_t id;  // async slice and flow id: a serial number, unique in the file
  uint64_t user_data;
  uint64_t submit_ts;  // ns, as written
  uint32_t ring;
  uint32_t pid;  // submitter's tgid: the process the slice belongs to
  uint32_t tid;  // submitter's tid
  uint32_t cqes = 0;
  uint8_t opcode;
  uint8_t nsteps = 0;
  bool punted = false;
  bool failed = false;
  bool more = false;  // has posted a CQE with IORING_CQE_F_MORE: multishot or zero-copy
  uint32_t punt_reason = 0;
  std::array<TraceStep, kMaxTraceSteps> steps{};

  void add_step(const TraceStep& s);
};

class RequestIndex {
 public:
  struct Match {
    TraceRequest* r = nullptr;
    uint64_t req = 0;       // io_kiocb address it is open under
    bool detached = false;  // held by (ring, user_data) only
  };

  // The open request a record belongs to. By io_kiocb address first: it names one
  // request from SUBMIT to final CQE. CQEs without one (multishot CQEs on 6.13+, CQ
  // overflow flushes) or from another io_kiocb (a zero-copy send's notification) are
  // matched by (ring, user_data) when by_user_data.
  Match find(const us_trace_event& e, bool by_user_data);
  void erase(const Match& m);

  void open(uint64_t req, const TraceRequest& r);
  // Removes and returns the request open under io_kiocb `req`, if any.
  std::optional<TraceRequest> take(uint64_t req);
  // Keeps a zero-copy send whose io_kiocb the kernel recycled, reachable by (ring,
  // user_data) only, until its notification CQE. Returns the request it displaces (one
  // with that key, or the oldest slot when full): it ended unseen.
  std::optional<TraceRequest> detach(TraceRequest&& r);
  // Removes every request, open or detached, and returns them oldest first.
  std::vector<TraceRequest> take_all();

  std::size_t size() const { return open_.size() + detached_.size(); }

 private:
  struct UdKey {
    uint32_t ring;
    uint64_t user_data;
    bool operator==(const UdKey&) const = default;
  };
  struct UdKeyHash {
    std::size_t operator()(const UdKey& k) const {
      return std::hash<uint64_t>{}(k.user_data * 0x9e3779b97f4a7c15ull ^ k.ring);
    }
  };

  void index(const TraceRequest& r, uint64_t req);
  void unindex(const TraceRequest& r, uint64_t req);
  Match find_by_user_data(const us_trace_event& e);

  std::unordered_map<uint64_t, TraceRequest> open_;  // by io_kiocb address
  std::unordered_map<UdKey, uint64_t, UdKeyHash> by_ud_;
  std::unordered_map<UdKey, TraceRequest, UdKeyHash> detached_;
  bool ud_shared_ = false;
};

}  // namespace uringscope
