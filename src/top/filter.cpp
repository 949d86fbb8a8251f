// SPDX-License-Identifier: MIT
#include "top/filter.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "uringscope/opcodes.h"

namespace uringscope::top {
namespace {

bool keeps_ring(const Ring& ring, const FilterFrame& f) {
  switch (f.kind) {
    case FilterKind::Comm: return ring.comm == f.text;
    case FilterKind::Pid: return ring.pid == f.number;
    case FilterKind::Ring: return ring.ctx == f.number;
    default: return true;
  }
}

// The op row a file row contributes to when a file frame replaces the ring's op rows.
OpStats op_of_file(const FileStats& file) {
  OpStats op;
  op.opcode = file.opcode;
  op.submitted = file.requests;
  op.completed = file.cqes;
  op.untracked = file.untracked;
  op.punted = file.punted;
  op.errors = file.errors;
  op.poll_armed = file.poll_armed;
  op.bytes = file.bytes;
  op.latency = file.latency;
  return op;
}

void keep_file(Ring& ring, const std::string& name) {
  std::erase_if(ring.files, [&](const FileStats& f) { return f.name != name; });
  std::map<uint32_t, OpStats> ops;
  for (const FileStats& f : ring.files) {
    OpStats& op = ops[f.opcode];
    const OpStats add = op_of_file(f);
    op.opcode = f.opcode;
    op += add;
  }
  ring.ops.clear();
  for (auto& [opcode, op] : ops) ring.ops.push_back(std::move(op));
}

// A ring narrowed to some of its ops counts requests of those ops only.
void recount(Ring& ring) {
  Counters& c = ring.counters;
  c.submissions = c.completions = c.punted = c.errors = c.multishot_cqes = 0;
  c.untracked_completions = c.failed_requests = c.poll_armed = c.poll_armed_regular = 0;
  for (const OpStats& op : ring.ops) {
    c.submissions += op.submitted;
    c.completions += op.completed;
    c.punted += op.punted;
    c.errors += op.errors;
    c.multishot_cqes += op.multishot_cqes;
    c.untracked_completions += op.untracked;
    c.failed_requests += op.failed;
    c.poll_armed += op.poll_armed;
    c.poll_armed_regular += op.poll_armed_regular;
  }
}

// Applies the op and file frames to one ring; false when nothing of it is left.
bool narrow(Ring& ring, std::span<const FilterFrame> frames) {
  bool narrowed = false;
  for (const FilterFrame& f : frames) {
    if (f.kind == FilterKind::Op) {
      std::erase_if(ring.ops, [&](const OpStats& op) { return op.opcode != f.number; });
      std::erase_if(ring.files, [&](const FileStats& fs) { return fs.opcode != f.number; });
      narrowed = true;
    } else if (f.kind == FilterKind::File) {
      keep_file(ring, f.text);
      narrowed = true;
    }
  }
  if (!narrowed) return true;
  recount(ring);
  return !ring.ops.empty();
}

}  // namespace

FilterFrame comm_filter(const std::string& comm) { return {FilterKind::Comm, comm, 0}; }

FilterFrame pid_filter(uint32_t pid, const std::string& comm) {
  return {FilterKind::Pid, comm, pid};
}

FilterFrame ring_filter(const Ring& ring) {
  const std::string label = ring.source == RingSource::CatchAll ? std::string("other")
                                                                 : fmt::format("#{}", ring.id);
  return {FilterKind::Ring, label, ring.ctx};
}

FilterFrame op_filter(uint32_t opcode) { return {FilterKind::Op, opcode_name(opcode), opcode}; }

FilterFrame file_filter(const std::string& name) { return {FilterKind::File, name, 0}; }

std::string filter_label(const FilterFrame& f) {
  switch (f.kind) {
    case FilterKind::Comm: return "comm=" + f.text;
    case FilterKind::Pid: return fmt::format("pid={}({})", f.number, f.text);
    case FilterKind::Ring: return "ring=" + f.text;
    case FilterKind::Op: return "op=" + opcode_name(static_cast<uint32_t>(f.number));
    case FilterKind::File: return "file=" + f.text;
  }
  return "";
}

Snapshot apply_filters(const Snapshot& snap, std::span<const FilterFrame> frames) {
  Snapshot out = snap;
  if (frames.empty()) return out;
  std::erase_if(out.rings, [&](Ring& ring) {
    const bool kept = std::all_of(frames.begin(), frames.end(),
                                  [&](const FilterFrame& f) { return keeps_ring(ring, f); });
    return !kept || !narrow(ring, frames);
  });
  std::erase_if(out.workers, [&](const ProcessWorkers& w) {
    return std::none_of(out.rings.begin(), out.rings.end(),
                        [&](const Ring& r) { return r.pid == w.pid; });
  });
  aggregate(out);
  return out;
}

}  // namespace uringscope::top
