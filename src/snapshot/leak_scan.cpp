// SPDX-License-Identifier: MIT
#include "snapshot/leak_scan.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>

#include "snapshot/file_rows.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

// The file noted for a request (req_files), if the note is this request's: an io_kiocb
// is recycled at once, and only the submit time tells two of its requests apart.
class RequestFiles {
 public:
  explicit RequestFiles(const RawTables& raw) : names_(raw.file_names) {
    for (const auto& [req, note] : raw.req_files) notes_[req] = note;
  }
  std::string name_of(const us_inflight& w) const {
    auto note = notes_.find(w.req);
    if (note == notes_.end() || note->second.start_ns != w.start_ns) return {};
    const us_file_id& id = note->second.id;
    auto [it, fresh] = named_.try_emplace(std::make_tuple(id.inode, id.ino, id.gen));
    if (fresh) it->second = file_name_of(names_, id);
    return it->second;
  }

 private:
  const FileNames& names_;
  std::map<uint64_t, us_req_file> notes_;
  mutable std::map<std::tuple<uint64_t, uint64_t, uint32_t>, std::string> named_;
};

RequestWhere where_of(uint8_t state) {
  // A zero-copy send past its result CQE: its where bits are not kept.
  if (state & US_IF_ZC_WAIT) return RequestWhere::Notification;
  switch ((state & US_IF_WHERE_MASK) >> US_IF_WHERE_SHIFT) {
    case US_WHERE_POLL: return RequestWhere::Poll;
    case US_WHERE_IOWQ: return RequestWhere::IoWq;
    case US_WHERE_TASKWORK: return RequestWhere::TaskWork;
    default: return RequestWhere::Issued;
  }
}

std::optional<PendingRequest> pending_of(const us_inflight& w, uint32_t ring_id, uint64_t end_ns,
                                         uint64_t leak_age_ns, const RequestFiles& files) {
  const LeakKind kind = leak_kind(w, end_ns, leak_age_ns);
  if (kind == LeakKind::None) return std::nullopt;
  PendingRequest p;
  p.ring = ring_id;
  p.opcode = w.opcode;
  p.age_ns = age_at(w.start_ns, end_ns);
  p.user_data = w.user_data;
  p.where = where_of(w.state);
  p.file = files.name_of(w);
  p.abandoned = w.state & US_IF_ABANDONED;
  p.waiting = kind == LeakKind::Waiting;
  return p;
}

}  // namespace

LeakKind leak_kind(const us_inflight& w, uint64_t end_ns, uint64_t leak_age_ns) {
  if (!w.req) return LeakKind::None;
  // IOSQE_CQE_SKIP_SUCCESS requests post nothing when they succeed: their entry stays
  // behind by design.
  if ((w.state & US_IF_CQE_SKIP) && !(w.state & US_IF_ABANDONED)) return LeakKind::None;
  if (age_at(w.start_ns, end_ns) < leak_age_ns) return LeakKind::None;
  // A send waiting for its notification waits on the peer's acknowledgement, as a poll
  // waits on its file: not the program's leak.
  const RequestWhere where = where_of(w.state);
  const bool waiting = where == RequestWhere::Poll || where == RequestWhere::Notification ||
                       opcode_waits_for_event(w.opcode);
  return waiting ? LeakKind::Waiting : LeakKind::Suspected;
}

// The in-flight table at the end, and the requests destroyed rings left behind.
void scan_leaks(Snapshot& snap, const RawTables& raw, const std::map<uint32_t, uint32_t>& id_of_row,
                const std::vector<uint32_t>& id_of_retired, const SnapshotContext& context) {
  LeakInfo& leak = snap.leak;
  leak.threshold_ns = context.leak_age_ns;
  const RequestFiles files(raw);
  std::vector<PendingRequest> found;
  for (const us_inflight_bucket& bucket : raw.inflight) {
    for (const us_inflight& w : bucket.way) {
      auto id = id_of_row.find(w.ring);
      if (id == id_of_row.end()) continue;
      if (auto p = pending_of(w, id->second, context.end_ns, context.leak_age_ns, files)) found.push_back(*p);
    }
  }
  for (std::size_t i = 0; i < raw.retired.size(); ++i) {
    for (const us_inflight& w : raw.retired[i].pending) {
      auto p = pending_of(w, id_of_retired[i], raw.retired[i].retired_ns, context.leak_age_ns,
                          files);
      if (p) found.push_back(*p);
    }
  }
  // Suspected requests first, so waiting ones (idle sockets) never crowd them out of the
  // records kept; oldest first within each kind.
  std::sort(found.begin(), found.end(), [](const PendingRequest& a, const PendingRequest& b) {
    return a.waiting != b.waiting ? !a.waiting : a.age_ns > b.age_ns;
  });
  for (const PendingRequest& p : found) {
    Counters& c = snap.rings[p.ring].counters;
    if (p.waiting) {
      ++leak.pending;
      ++c.leaks_pending;
    } else {
      ++leak.suspected;
      ++c.leaks_suspected;
    }
    leak.oldest_ns = std::max(leak.oldest_ns, p.age_ns);
  }
  // Folded rings keep their oldest requests; the rest were counted when they folded.
  for (std::size_t i = 0; i < raw.retired.size(); ++i) {
    const RetiredRing& retired = raw.retired[i];
    Counters& c = snap.rings[id_of_retired[i]].counters;
    c.leaks_pending += retired.unlisted_waiting;
    c.leaks_suspected += retired.unlisted_suspected;
    leak.pending += retired.unlisted_waiting;
    leak.suspected += retired.unlisted_suspected;
  }
  if (found.size() > kMaxLeakRecords) found.resize(kMaxLeakRecords);
  leak.requests = std::move(found);
}

}  // namespace uringscope
