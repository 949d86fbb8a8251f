// SPDX-License-Identifier: MIT
#include "metrics/file_metrics.h"

#include <algorithm>

#include "uringscope/opcodes.h"

namespace uringscope {

using exposition::Labels;
using exposition::Type;

namespace {

Labels file_labels(const Labels& ring, const FileStats& f) {
  Labels l = ring;
  l.emplace_back("op", opcode_name(f.opcode));
  l.emplace_back("file", f.name);
  return l;
}

// The counter families, in the order they are written.
struct FileFamily {
  const char* name;
  const char* unit;
  const char* help;
  uint64_t FileStats::*member;
};

constexpr FileFamily kFileFamilies[] = {
    {"uringscope_file_requests", "", "Requests that ended on the file (their final CQE).",
     &FileStats::requests},
    {"uringscope_file_bytes", "bytes", "Bytes moved by the op's requests on the file.",
     &FileStats::bytes},
    {"uringscope_file_punted", "", "Requests on the file that went to io-wq.", &FileStats::punted},
    {"uringscope_file_errors", "", "Error CQEs on the file (-EAGAIN excluded).",
     &FileStats::errors},
};

}  // namespace

void render_file_metrics(exposition::Writer& w, const std::vector<FileSeriesRing>& rings) {
  const bool any = std::any_of(rings.begin(), rings.end(),
                               [](const FileSeriesRing& r) { return !r.files->empty(); });
  if (!any) return;
  for (const FileFamily& family : kFileFamilies) {
    w.begin({family.name, Type::Counter, family.unit, family.help});
    for (const FileSeriesRing& r : rings)
      for (const FileStats& f : *r.files) w.value(file_labels(r.labels, f), f.*family.member);
  }
  w.begin({"uringscope_file_latency_seconds", Type::Histogram, "seconds",
           "Time from submission to the final CQE of the file's tracked requests. Buckets "
           "are log2 nanoseconds: le is 2^(i+1) ns, 256 ns to 68.7 s."});
  for (const FileSeriesRing& r : rings)
    for (const FileStats& f : *r.files) w.histogram(file_labels(r.labels, f), f.latency);
}

Snapshot with_file_series(Snapshot snap, std::size_t per_ring) {
  for (Ring& ring : snap.rings)
    if (ring.files.size() > per_ring) ring.files.resize(per_ring);
  return snap;
}

}  // namespace uringscope
