// SPDX-License-Identifier: MIT
// The filter stack of `uringscope top`: Enter on a row pushes what the row stands for (a
// process, a ring, an op, a file), Esc pops the newest; the frames combine with AND and
// every tab shows what they leave of the snapshot.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "uringscope/snapshot.h"

namespace uringscope::top {

enum class FilterKind { Comm, Pid, Ring, Op, File };

struct FilterFrame {
  FilterKind kind = FilterKind::Comm;
  std::string text;     // Comm: the comm; File: the name; Pid, Ring: the label shown
  uint64_t number = 0;  // Pid: the pid; Ring: its ctx (ids change between readings); Op: the opcode

  bool operator==(const FilterFrame&) const = default;
};

FilterFrame comm_filter(const std::string& comm);
FilterFrame pid_filter(uint32_t pid, const std::string& comm);
FilterFrame ring_filter(const Ring& ring);
FilterFrame op_filter(uint32_t opcode);
FilterFrame file_filter(const std::string& name);

// "comm=fio", "pid=123(fio)", "ring=#0", "op=READ", "file=/tmp/a".
std::string filter_label(const FilterFrame& frame);

// What the frames leave of `snap`, aggregate() applied; ring ids are kept, so findings
// and rows still name the rings the final report names. Comm, pid and ring frames keep
// whole rings. An op frame keeps that op's rows; a file frame keeps that file's rows and
// rebuilds each ring's op rows from them (requests, bytes, errors, punts, latency), since
// op rows are not per file. With either, a ring's request counters count only what is
// kept; batch, CQ depth, overflows and SQPOLL stay the ring's own.
Snapshot apply_filters(const Snapshot& snap, std::span<const FilterFrame> frames);

}  // namespace uringscope::top
