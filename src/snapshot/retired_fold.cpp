// SPDX-License-Identifier: MIT
// How two records of destroyed rings add up: a rule per kernel counter, so that a
// counter added to the ABI without one fails to compile (-Wswitch).
#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "snapshot/leak_scan.h"
#include "snapshot/retired_store.h"

namespace uringscope {
namespace {

enum class Merge { Sum, Max, Clear };

// Timestamps of something going on (a switch-out, queued task work) meant something only
// while the ring lived: a destroyed ring's were turned into time before folding.
Merge merge_of(us_ring_counter counter) {
  switch (counter) {
    case US_RC_LOCAL_TW_LAG_MAX_NS:
    case US_RC_REAP_LAG_MAX_NS:
    case US_RC_REAP_GAP_MAX_NS:
    case US_RC_REAP_LO_MAX_NS:
    case US_RC_REAP_NEVER_MAX_NS:
    case US_RC_SQ_WAIT_MAX_NS:
    case US_RC_SQ_RES_MAX_NS:
    case US_RC_LU_SUBMIT_MAX:
    case US_RC_LU_REAP_MAX_NS:
    case US_RC_CQ_DEPTH_MAX: return Merge::Max;
    case US_RC_LOCAL_TW_PENDING_NS:
    case US_RC_SQPOLL_OUT_NS: return Merge::Clear;
    case US_RC_ENTER_CALLS:
    case US_RC_ENTER_SUBMIT_CALLS:
    case US_RC_TO_SUBMIT_SUM:
    case US_RC_SQ_WAKEUPS:
    case US_RC_UNTRACKED_CQES:
    case US_RC_INFLIGHT_DROPS:
    case US_RC_CQ_OVERFLOWS:
    case US_RC_SHORT_WRITES:
    case US_RC_TASK_ADDS:
    case US_RC_TW_RUNS:
    case US_RC_TW_ITEMS:
    case US_RC_LOCAL_TW_RUNS:
    case US_RC_LOCAL_TW_ITEMS:
    case US_RC_SQPOLL_OFFCPU_NS:
    case US_RC_SQPOLL_SLEEPS:
    case US_RC_SQPOLL_PREEMPTS:
    case US_RC_REAPS:
    case US_RC_REAP_LAG_SUM_NS:
    case US_RC_REAP_GAP_SUM_NS:
    case US_RC_REAP_TICKS:
    case US_RC_REAP_UNTIMED:
    case US_RC_REAP_NEVER:
    case US_RC_AUX_BY_REQ:
    case US_RC_SQ_WAITS:
    case US_RC_SQ_WAIT_SUM_NS:
    case US_RC_SQ_RES_SUM_NS:
    case US_RC_SQ_TICKS:
    case US_RC_SQ_TAKEN_UNSEEN:
    case US_RC_LU_SUBMIT_CALLS:
    case US_RC_LU_SUBMIT_SQES:
    case US_RC_LU_CQES_HANDED:
    case US_RC_LU_REAPS:
    case US_RC_LU_REAP_SUM_NS:
    case US_RC_CQ_DEPTH_SAMPLES:
    case US_RC_CQ_DEPTH_SUM:
    case US_RC__COUNT: return Merge::Sum;
  }
  return Merge::Sum;
}

template <typename T, std::size_t N>
void add_hist(T (&into)[N], const T (&from)[N]) {
  for (std::size_t i = 0; i < N; ++i) into[i] += from[i];
}

// A destroyed ring's SQPOLL thread asleep at the end was off-CPU until then.
us_ring_stats settled(const us_ring_stats& stats, uint64_t retired_ns) {
  us_ring_stats out = stats;
  out.counters[US_RC_SQPOLL_OFFCPU_NS] += age_at(stats.counters[US_RC_SQPOLL_OUT_NS], retired_ns);
  for (int c = 0; c < US_RC__COUNT; ++c) {
    if (merge_of(static_cast<us_ring_counter>(c)) == Merge::Clear) out.counters[c] = 0;
  }
  return out;
}

void add_stats(us_ring_stats& into, const us_ring_stats& from) {
  for (int c = 0; c < US_RC__COUNT; ++c) {
    switch (merge_of(static_cast<us_ring_counter>(c))) {
      case Merge::Sum: into.counters[c] += from.counters[c]; break;
      case Merge::Max: into.counters[c] = std::max(into.counters[c], from.counters[c]); break;
      case Merge::Clear: into.counters[c] = 0; break;
    }
  }
  add_hist(into.reap_hist, from.reap_hist);
  add_hist(into.sq_wait_hist, from.sq_wait_hist);
  add_hist(into.lu_reap_hist, from.lu_reap_hist);
  add_hist(into.reap_lo_hist, from.reap_lo_hist);
}

void add_op(us_opstat& into, const us_opstat& from) {
  for (int c = 0; c < US_OC__COUNT; ++c) {
    if (c == US_OC_LAT_MAX_NS) into.counters[c] = std::max(into.counters[c], from.counters[c]);
    else into.counters[c] += from.counters[c];
  }
  add_hist(into.hist, from.hist);
}

void add_file(us_filestat& into, const us_filestat& from) {
  for (int c = 0; c < US_FC__COUNT; ++c) {
    if (c == US_FC_LAT_MAX_NS) into.counters[c] = std::max(into.counters[c], from.counters[c]);
    else into.counters[c] += from.counters[c];
  }
  add_hist(into.hist, from.hist);
}

// What the rings of a fold share, from its first ring: the rest is cleared or narrowed as
// rings join.
RetiredRing start_fold(const RetiredRing& first, FoldScope scope) {
  RetiredRing fold;
  fold.row = kFoldRow;
  fold.scope = scope;
  fold.rings = 0;
  fold.retired_ns = first.retired_ns;
  fold.info = first.info;
  fold.info.ctx = 0;
  fold.info.fd = -1;
  fold.info.sq_tid = 0;
  if (scope == FoldScope::Command || scope == FoldScope::All) fold.info.tgid = 0;
  if (scope == FoldScope::All) std::memset(fold.info.comm, 0, sizeof fold.info.comm);
  return fold;
}

// A fold's requests keep their age at their own ring's end: when the fold's end moves
// later, their start moves with it.
void move_end(RetiredRing& fold, uint64_t retired_ns) {
  if (retired_ns <= fold.retired_ns) return;
  const uint64_t by = retired_ns - fold.retired_ns;
  for (us_inflight& w : fold.pending) {
    if (w.start_ns) w.start_ns += by;
  }
  fold.retired_ns = retired_ns;
}

void add_pending(RetiredRing& into, const RetiredRing& from, uint64_t leak_age_ns) {
  const uint64_t shift = into.retired_ns - from.retired_ns;  // into ends no earlier
  for (us_inflight w : from.pending) {
    if (w.start_ns) w.start_ns += shift;
    into.pending.push_back(w);
  }
  into.unlisted_waiting += from.unlisted_waiting;
  into.unlisted_suspected += from.unlisted_suspected;
  if (into.pending.size() <= kLeakRecordsPerFold) return;
  // Oldest first, as the report lists them; the rest only counted, as the scan would.
  std::stable_sort(into.pending.begin(), into.pending.end(),
                   [](const us_inflight& a, const us_inflight& b) { return a.start_ns < b.start_ns; });
  for (std::size_t i = kLeakRecordsPerFold; i < into.pending.size(); ++i) {
    switch (leak_kind(into.pending[i], into.retired_ns, leak_age_ns)) {
      case LeakKind::Waiting: ++into.unlisted_waiting; break;
      case LeakKind::Suspected: ++into.unlisted_suspected; break;
      case LeakKind::None: break;
    }
  }
  into.pending.resize(kLeakRecordsPerFold);
}

void add_files(RetiredRing& into, const RetiredRing& from) {
  using Key = std::tuple<uint64_t, uint64_t, uint32_t, uint32_t>;  // inode, ino, gen, op
  std::map<Key, std::size_t> at;
  for (std::size_t i = 0; i < into.files.size(); ++i) {
    const us_file_key& k = into.files[i].first;
    at[{k.id.inode, k.id.ino, k.id.gen, k.opcode}] = i;
  }
  for (auto [key, stat] : from.files) {
    key.ring = into.row;
    auto it = at.find({key.id.inode, key.id.ino, key.id.gen, key.opcode});
    if (it != at.end()) {
      add_file(into.files[it->second].second, stat);
    } else {
      at[{key.id.inode, key.id.ino, key.id.gen, key.opcode}] = into.files.size();
      into.files.emplace_back(key, stat);
    }
  }
  if (into.files.size() <= kFilesPerFold) return;
  std::stable_sort(into.files.begin(), into.files.end(), [](const auto& a, const auto& b) {
    return a.second.counters[US_FC_REQUESTS] > b.second.counters[US_FC_REQUESTS];
  });
  into.files.resize(kFilesPerFold);
}

}  // namespace

void fold_into(RetiredRing& into, const RetiredRing& from, FoldScope scope, uint64_t leak_age_ns) {
  if (into.scope == FoldScope::Ring) into = start_fold(from, scope);
  move_end(into, from.retired_ns);
  const bool first = into.rings == 0;
  into.rings += from.rings;
  into.created += from.scope == FoldScope::Ring ? (from.info.source == US_RING_FROM_CREATE)
                                                : from.created;

  us_ring_info& info = into.info;
  const us_ring_info& other = from.info;
  if (first) {
    info.setup_flags = other.setup_flags;
  } else {
    info.first_ns = std::min(info.first_ns, other.first_ns);
    info.setup_flags &= other.setup_flags;
    if (info.sq_entries != other.sq_entries) info.sq_entries = 0;
    if (info.cq_entries != other.cq_entries) info.cq_entries = 0;
    // Created before attach only if every one was.
    if (info.source != other.source) info.source = US_RING_FROM_CREATE;
  }
  add_stats(into.stats, settled(from.stats, from.retired_ns));

  for (us_opstat op : from.ops) {
    op.ring = into.row;
    auto it = std::find_if(into.ops.begin(), into.ops.end(),
                           [&](const us_opstat& o) { return o.opcode == op.opcode; });
    if (it == into.ops.end()) into.ops.push_back(op);
    else add_op(*it, op);
  }
  for (auto [key, count] : from.errnos) {
    key.ring = into.row;
    auto it = std::find_if(into.errnos.begin(), into.errnos.end(), [&](const auto& e) {
      return e.first.opcode == key.opcode && e.first.err == key.err;
    });
    if (it == into.errnos.end()) into.errnos.emplace_back(key, count);
    else it->second += count;
  }
  add_files(into, from);
  add_pending(into, from, leak_age_ns);
}

}  // namespace uringscope
