// SPDX-License-Identifier: MIT
// Which rings the metrics endpoint gives series of their own. A scrape's size must depend
// on what is running now, not on every ring the box ever made: a PostgreSQL server makes a
// ring for every possible client and uses a few, and a CI runner makes thousands that
// live a second. docs/metrics.md, "Cardinality", says what a user sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "uringscope/snapshot.h"

namespace uringscope {

// The rings with series of their own at once, at most.
inline constexpr std::size_t kMetricsRingSeries = 16;

// Whether a ring did anything the metrics count. A ring without activity has no series.
bool ring_shows_activity(const Ring& ring);

// The choice, kept from reading to reading: a ring gets series of its own at the first
// reading where it shows activity, if fewer than `limit` live rings hold some, and keeps
// them until it is destroyed. Every other ring that did something (one past the bound,
// a destroyed ring, a fold of destroyed rings) is summed into one row, ring="other",
// which therefore only grows: a ring enters it once and never leaves. The state holds
// live rings only, so it does not grow with history either.
//
// A ring's report id is its place in one reading (a fold or the catch-all row before it
// moves it), so it cannot name a series: a ring placed here gets a number of its own,
// counted from 0 in order of placement and never reused, and apply() writes it into the
// ring's id. A ring is known by its row in the kernel tables, its io_ring_ctx and the
// time it was first seen: a row is reused once its ring is reclaimed, the kernel reuses
// the address of a freed ring, and a row that lost its ring's address to a race (ctx 0)
// or the catch-all row has no address at all.
class RingSeriesChoice {
 public:
  explicit RingSeriesChoice(std::size_t limit = kMetricsRingSeries) : limit_(limit) {}

  // The snapshot to render: the chosen rings with their series numbers as ids, every
  // ring to be summed marked as a fold (FoldScope::All), which the renderer adds into the
  // one "other" row.
  Snapshot apply(Snapshot snap);

  std::size_t own() const { return own_.size(); }
  std::size_t summed_live() const { return summed_.size(); }

 private:
  using Identity = std::tuple<uint32_t, uint64_t, uint64_t>;  // bpf_row, ctx, first_ns

  std::size_t limit_;
  uint32_t next_number_ = 0;
  std::map<Identity, uint32_t> own_;  // live rings with series of their own: their number
  std::set<Identity> summed_;         // live rings summed into "other"
};

// A ring as rendered: ops in ascending opcode with at most one row per opcode. The
// builder's catch-all row and the BPF side's out-of-range slot are both "OTHER", and two
// rows with one label set would be one series twice, which a scraper rejects. `sum`
// owns the "other" row when `ring` is that row.
struct RingView {
  const Ring* ring;
  std::vector<OpStats> ops;
  std::shared_ptr<const Ring> sum;
};

// Live rings that did something, in id order, then one "other" row summing every fold
// (FoldScope other than Ring), when there is any.
std::vector<RingView> ring_views(const Snapshot& snap);

// Rings the snapshot stands for: a fold counts the rings it sums.
uint64_t rings_seen(const Snapshot& snap);

}  // namespace uringscope
