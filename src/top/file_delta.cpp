// SPDX-License-Identifier: MIT
#include "top/file_delta.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

namespace uringscope::top {
namespace {

uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

// A ring's address can come back for a ring made after another was destroyed; among the
// rings of `before` with this ctx and owner, the newest is the one still counting.
const Ring* same_ring(const Snapshot& before, const Ring& ring) {
  const Ring* found = nullptr;
  for (const Ring& r : before.rings)
    if (r.ctx == ring.ctx && r.pid == ring.pid && (!found || r.id > found->id)) found = &r;
  return found;
}

void subtract(FileStats& now, const FileStats& was) {
  now.requests = minus(now.requests, was.requests);
  now.cqes = minus(now.cqes, was.cqes);
  now.bytes = minus(now.bytes, was.bytes);
  now.errors = minus(now.errors, was.errors);
  now.punted = minus(now.punted, was.punted);
  now.untracked = minus(now.untracked, was.untracked);
  now.direct = minus(now.direct, was.direct);
  now.poll_armed = minus(now.poll_armed, was.poll_armed);
  now.latency -= was.latency;
}

}  // namespace

void subtract_files(Snapshot& delta, const Snapshot& before) {
  for (Ring& ring : delta.rings) {
    const Ring* old = same_ring(before, ring);
    if (!old) continue;  // new since `before`: its rows count from zero
    // Keyed, not searched: a ring can have thousands of file rows, read every second.
    std::map<std::tuple<uint32_t, uint64_t, std::string_view>, const FileStats*> rows;
    for (const FileStats& o : old->files) rows[{o.opcode, o.ino, o.name}] = &o;
    for (FileStats& f : ring.files) {
      const auto was = rows.find({f.opcode, f.ino, f.name});
      if (was != rows.end()) subtract(f, *was->second);
    }
    std::erase_if(ring.files, [](const FileStats& f) {
      return f.requests == 0 && f.cqes == 0 && f.poll_armed == 0;
    });
  }
}

}  // namespace uringscope::top
