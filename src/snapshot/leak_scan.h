// SPDX-License-Identifier: MIT
// The in-flight table at the end of the window as LeakInfo: which requests were still in
// flight past the leak age, waiting on an event or not, and the file each was on when
// the kernel had given it one (bpf/files.bpf.h's req_files, with --files).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "snapshot/snapshot_builder.h"
#include "uringscope/raw_tables.h"
#include "uringscope/snapshot.h"

namespace uringscope {

// A kernel timestamp that marks something still going on at the end becomes its age.
inline uint64_t age_at(uint64_t since_ns, uint64_t end_ns) {
  return since_ns && end_ns > since_ns ? end_ns - since_ns : 0;
}

// What a request still in flight at `end_ns` (the end of the window, or of its ring when
// the ring was destroyed first) is: young, or past the leak age and waiting on an event
// (armed poll, an op that waits by design: pending), or not (stuck in io-wq, never
// progressing, abandoned by an exiting owner: suspected).
enum class LeakKind { None, Waiting, Suspected };
LeakKind leak_kind(const us_inflight& w, uint64_t end_ns, uint64_t leak_age_ns);

// Fills snap.leak and each ring's leak counters. `id_of_row`: ring row -> report id of
// the live rings; `id_of_retired`: the report id of each of raw.retired.
void scan_leaks(Snapshot& snap, const RawTables& raw, const std::map<uint32_t, uint32_t>& id_of_row,
                const std::vector<uint32_t>& id_of_retired, const SnapshotContext& context);

}  // namespace uringscope
