// SPDX-License-Identifier: MIT
// Destroyed rings, bounded by what is alive rather than by history: the first rings to
// end are kept one by one; past the bound, the least notable are folded into one record
// per process, those past their own bound into one per command name, and those into
// one record for every process. A fold sums what its rings counted, so nothing seen is
// lost from the totals; what it loses is the detail (which ring, its fd and sizes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "uringscope/raw_tables.h"

namespace uringscope {

// Every bound of the store, with why it is what it is.
struct FoldLimits {
  // Destroyed rings kept one by one (--rings): the text report draws a dozen rings in
  // full; 256 leave room for every ring a finding could name, at about 2.5 KiB each.
  std::size_t rings = 256;
  // Per-process folds: a server's workers come and go by the hundred (PostgreSQL's
  // backends); past that, processes of one name are summed.
  std::size_t processes = 128;
  // Per-command folds: distinct program names of a CI runner or a test suite.
  std::size_t commands = 64;
  // The leak scan's age (--leak-age), to count the requests a fold does not keep.
  uint64_t leak_age_ns = 0;

  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();
};

// A fold keeps the requests left in flight that the report can list (oldest first) and
// counts the rest; and the busiest files, the rest being in its per-op totals.
inline constexpr std::size_t kLeakRecordsPerFold = kMaxLeakRecords;
inline constexpr std::size_t kFilesPerFold = 32;
// The row a fold's own keys (ops, errnos, files) carry: no BPF row has it.
inline constexpr uint32_t kFoldRow = 0xfffffffeu;

// Adds `from` (a ring or a fold) into `into`, a fold of `scope`, or a default record,
// which then starts one from `from`. Counts sum; maxima take the larger; what differs between the rings (fd,
// sizes, ctx) is cleared, and the setup flags keep those all of them had.
void fold_into(RetiredRing& into, const RetiredRing& from, FoldScope scope, uint64_t leak_age_ns);

class RetiredStore {
 public:
  explicit RetiredStore(FoldLimits limits = {});

  void add(RetiredRing ring);
  // The rings kept one by one in the order they ended, then the folds (per process, per
  // command, the one for all), each of which sums rings of a scope.
  std::vector<RetiredRing> records() const;
  uint64_t rings_seen() const { return seen_; }
  uint64_t rings_folded() const { return folded_; }
  std::size_t size() const;

 private:
  void fold_least_notable();
  void fold_into_process(const RetiredRing& ring);
  void fold_into_command(const RetiredRing& ring);
  void fold_into_all(const RetiredRing& ring);

  FoldLimits limits_;
  std::vector<RetiredRing> detail_;
  std::map<uint32_t, RetiredRing> processes_;
  std::map<std::string, RetiredRing> commands_;
  std::optional<RetiredRing> all_;
  uint64_t seen_ = 0;
  uint64_t folded_ = 0;
};

}  // namespace uringscope
