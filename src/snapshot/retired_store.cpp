// SPDX-License-Identifier: MIT
#include "snapshot/retired_store.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace uringscope {
namespace {

// What a rule could read in a ring: such rings stay in detail before busier quiet ones.
bool notable(const RetiredRing& ring) {
  const auto& c = ring.stats.counters;
  if (c[US_RC_CQ_OVERFLOWS] || c[US_RC_INFLIGHT_DROPS] || c[US_RC_SHORT_WRITES]) return true;
  if (!ring.pending.empty()) return true;
  return std::any_of(ring.ops.begin(), ring.ops.end(), [](const us_opstat& op) {
    return op.counters[US_OC_ERRORS] || op.counters[US_OC_FAILED];
  });
}

uint64_t activity(const RetiredRing& ring) {
  uint64_t n = ring.stats.counters[US_RC_ENTER_CALLS];
  for (const us_opstat& op : ring.ops) n += op.counters[US_OC_SUBMITTED] + op.counters[US_OC_COMPLETED];
  return n;
}

// The fold that was added to longest ago: an exited process's, or a name no longer run.
template <typename Map>
typename Map::iterator stalest(Map& folds) {
  return std::min_element(folds.begin(), folds.end(), [](const auto& a, const auto& b) {
    return a.second.retired_ns < b.second.retired_ns;
  });
}

std::string comm_of(const RetiredRing& ring) {
  return {ring.info.comm, strnlen(ring.info.comm, sizeof ring.info.comm)};
}

}  // namespace

RetiredStore::RetiredStore(FoldLimits limits) : limits_(limits) {}

void RetiredStore::add(RetiredRing ring) {
  ++seen_;
  detail_.push_back(std::move(ring));
  if (limits_.rings == FoldLimits::kUnbounded) return;
  // In batches of an eighth of the bound, so that choosing costs little per ring.
  const std::size_t slack = std::max<std::size_t>(1, limits_.rings / 8);
  if (detail_.size() >= limits_.rings + slack) fold_least_notable();
}

// Keeps the `rings` most notable, then busiest, in the order they ended; folds the rest.
void RetiredStore::fold_least_notable() {
  std::vector<std::size_t> order(detail_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(notable(detail_[a]), activity(detail_[a])) >
           std::make_tuple(notable(detail_[b]), activity(detail_[b]));
  });
  std::vector<bool> keep(detail_.size(), false);
  for (std::size_t i = 0; i < limits_.rings && i < order.size(); ++i) keep[order[i]] = true;
  std::vector<RetiredRing> kept;
  kept.reserve(limits_.rings);
  for (std::size_t i = 0; i < detail_.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(detail_[i]));
    else fold_into_process(detail_[i]);
  }
  detail_ = std::move(kept);
}

void RetiredStore::fold_into_process(const RetiredRing& ring) {
  folded_ += ring.rings;
  auto it = processes_.find(ring.info.tgid);
  if (it == processes_.end()) {
    if (limits_.processes == 0) return fold_into_command(ring);
    if (processes_.size() >= limits_.processes) {
      auto old = stalest(processes_);
      fold_into_command(old->second);
      processes_.erase(old);
    }
    it = processes_.try_emplace(ring.info.tgid).first;
  }
  fold_into(it->second, ring, FoldScope::Process, limits_.leak_age_ns);
}

void RetiredStore::fold_into_command(const RetiredRing& ring) {
  const std::string comm = comm_of(ring);
  auto it = commands_.find(comm);
  if (it == commands_.end()) {
    if (limits_.commands == 0) return fold_into_all(ring);
    if (commands_.size() >= limits_.commands) {
      auto old = stalest(commands_);
      fold_into_all(old->second);
      commands_.erase(old);
    }
    it = commands_.try_emplace(comm).first;
  }
  fold_into(it->second, ring, FoldScope::Command, limits_.leak_age_ns);
}

void RetiredStore::fold_into_all(const RetiredRing& ring) {
  if (!all_) all_.emplace();
  fold_into(*all_, ring, FoldScope::All, limits_.leak_age_ns);
}

std::vector<RetiredRing> RetiredStore::records() const {
  std::vector<RetiredRing> out;
  out.reserve(size());
  out.insert(out.end(), detail_.begin(), detail_.end());
  for (const auto& [tgid, fold] : processes_) out.push_back(fold);
  for (const auto& [comm, fold] : commands_) out.push_back(fold);
  if (all_) out.push_back(*all_);
  return out;
}

std::size_t RetiredStore::size() const {
  return detail_.size() + processes_.size() + commands_.size() + (all_ ? 1 : 0);
}

}  // namespace uringscope
