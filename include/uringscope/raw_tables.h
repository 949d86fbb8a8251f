// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <utility>
#include <cstdint>
#include <vector>

#include "uringscope/abi.h"
#include "uringscope/liburing_uprobes.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// A ring destroyed during the run whose row was given back (bpf/retire.bpf.c): its
// numbers as they were when its teardown ended; or the sum of several such rings.
struct RetiredRing {
  uint32_t row = 0;         // the row it held (a fold: the row its own keys carry)
  uint64_t retired_ns = 0;  // bpf_ktime_get_ns() at the end of its teardown (the latest)
  FoldScope scope = FoldScope::Ring;
  uint64_t rings = 1;       // destroyed rings summed here
  uint64_t created = 0;     // ... of which were set up inside the window (a fold's)
  // Requests past the leak age that a fold counted but did not keep (it keeps the
  // oldest kLeakRecordsPerFold), by kind as the leak scan sorts them.
  uint64_t unlisted_waiting = 0;
  uint64_t unlisted_suspected = 0;
  us_ring_info info{};
  us_ring_stats stats{};
  std::vector<us_opstat> ops;  // its (ring, op) rows, `ring` still the row it held
  std::vector<std::pair<us_errno_key, uint64_t>> errnos;
  std::vector<std::pair<us_file_key, us_filestat>> files;  // its per-file rows
  // Requests still in the in-flight table when the ring ended: their end was never seen
  // (abandoned by an exiting owner, or lost). The leak scan reads them with the rest.
  std::vector<us_inflight> pending;
};

// The kernel tables as copied out of the BPF maps: row 0 of each is the catch-all row,
// rows 1..N were handed out in order of first sight. No libbpf types, so the step that
// turns these rows into a Snapshot is testable without a kernel.
struct RawTables {
  std::vector<us_ring_info> ring_info;
  std::vector<us_ring_stats> ring_stats;  // same length as ring_info
  std::vector<us_opstat> opstats;
  std::array<uint64_t, US_TOOL__COUNT> tool{};
  std::vector<us_inflight_bucket> inflight;  // the whole table, for the leak scan
  std::vector<std::pair<us_errno_key, uint64_t>> errnos;
  std::vector<std::pair<uint32_t, us_thread>> threads;  // tid -> thread, while it lives
  std::vector<std::pair<uint32_t, uint64_t>> worker_counts;  // tgid -> io-wq workers seen
  std::vector<std::pair<us_file_key, us_filestat>> files;    // per (ring, op, file), live rings
  std::vector<std::pair<us_file_id, us_file_name>> file_names;  // one per inode, every ring's
  std::vector<std::pair<uint64_t, us_req_file>> req_files;  // io_kiocb -> its file (leak scan)
  std::vector<RetiredRing> retired;  // in the order their teardowns ended
  bool cqe_order_known = false;      // the boundary is measured (loader/cqe_order.h)
  LiburingUprobes liburing;          // its exact source (loader/liburing_probes.h)
};

}  // namespace uringscope
