// SPDX-License-Identifier: MIT
#include "trace/request_index.h"

#include <algorithm>

namespace uringscope {
namespace {

// Zero-copy sends waiting for their notification CQE. Bounded in case notifications
// are lost.
constexpr std::size_t kMaxDetached = 4096;

}  // namespace

void TraceRequest::add_step(const TraceStep& s) {
  std::size_t slot = std::min<std::size_t>(nsteps, kMaxTraceSteps - 1);
  steps[slot] = s;
  nsteps = static_cast<uint8_t>(slot + 1);
}

void RequestIndex::index(const TraceRequest& r, uint64_t req) {
  auto [it, fresh] = by_ud_.try_emplace(UdKey{r.ring, r.user_data}, req);
  if (!fresh) {
    // Two open requests share (ring, user_data): the index keeps the newest, and lookups
    // that miss must scan from now on.
    if (open_.count(it->second)) ud_shared_ = true;
    it->second = req;
  }
}

void RequestIndex::unindex(const TraceRequest& r, uint64_t req) {
  auto it = by_ud_.find(UdKey{r.ring, r.user_data});
  if (it != by_ud_.end() && it->second == req) by_ud_.erase(it);
}

RequestIndex::Match RequestIndex::find(const us_trace_event& e, bool by_user_data) {
  if (e.req) {
    auto it = open_.find(e.req);
    if (it != open_.end()) return {&it->second, e.req, false};
  }
  if (!by_user_data) return {};
  return find_by_user_data(e);
}

RequestIndex::Match RequestIndex::find_by_user_data(const us_trace_event& e) {
  UdKey key{e.ring, e.user_data};
  if (auto d = detached_.find(key); d != detached_.end()) return {&d->second, 0, true};
  // A CQE carrying another request's address only belongs to a request that is known
  // to post several CQEs.
  auto fits = [&](const TraceRequest& r) { return e.req == 0 || r.more; };
  if (auto x = by_ud_.find(key); x != by_ud_.end()) {
    auto it = open_.find(x->second);
    if (it != open_.end() && fits(it->second)) return {&it->second, it->first, false};
  }
  if (!ud_shared_) return {};
  Match best;
  for (auto& [req, r] : open_)
    if (r.ring == e.ring && r.user_data == e.user_data && fits(r) && (!best.r || r.id < best.r->id))
      best = {&r, req, false};
  return best;
}

void RequestIndex::erase(const Match& m) {
  if (m.detached) {
    detached_.erase(UdKey{m.r->ring, m.r->user_data});
  } else {
    unindex(*m.r, m.req);
    open_.erase(m.req);
  }
}

void RequestIndex::open(uint64_t req, const TraceRequest& r) {
  index(r, req);
  open_.emplace(req, r);
}

std::optional<TraceRequest> RequestIndex::take(uint64_t req) {
  auto it = open_.find(req);
  if (it == open_.end()) return std::nullopt;
  TraceRequest r = std::move(it->second);
  unindex(r, it->first);
  open_.erase(it);
  return r;
}

std::optional<TraceRequest> RequestIndex::detach(TraceRequest&& r) {
  UdKey key{r.ring, r.user_data};
  std::optional<TraceRequest> displaced;
  if (auto it = detached_.find(key); it != detached_.end()) {
    displaced = std::move(it->second);
    detached_.erase(it);
  } else if (detached_.size() >= kMaxDetached) {
    displaced = std::move(detached_.begin()->second);
    detached_.erase(detached_.begin());
  }
  detached_.emplace(key, std::move(r));
  return displaced;
}

std::vector<TraceRequest> RequestIndex::take_all() {
  std::vector<TraceRequest> all;
  all.reserve(size());
  for (auto& [req, r] : open_) all.push_back(std::move(r));
  for (auto& [key, r] : detached_) all.push_back(std::move(r));
  std::sort(all.begin(), all.end(),
            [](const TraceRequest& a, const TraceRequest& b) { return a.id < b.id; });
  open_.clear();
  detached_.clear();
  by_ud_.clear();
  return all;
}

}  // namespace uringscope
