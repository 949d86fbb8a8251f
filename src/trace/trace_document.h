// SPDX-License-Identifier: MIT
// The trace file as a Chrome trace-event JSON document: the event shapes the writer uses
// (markers, counters, async slices, flows, metadata), their timestamps relative to the
// file's time zero, buffered output, and the closing otherData. Write errors are kept
// for close(), so that tracing never stops the run.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

#include "trace/request_index.h"
#include "trace/trace_json.h"
#include "trace/trace_writer.h"

namespace uringscope {

class TraceDocument {
 public:
  // Opens path (throws uringscope::Error "cannot write FILE: ...") and starts the document.
  explicit TraceDocument(const std::string& path);

  void set_base(uint64_t ts) { base_ = ts; }
  uint64_t base() const { return base_; }
  std::string_view op(uint8_t opcode) const { return op_names_[opcode]; }

  // One event: begin_event() opens it and returns the buffer, end_event() closes it.
  TraceBuf& begin_event();
  void end_event();
  // ,"ts":... in microseconds since base(), exact to the nanosecond.
  void append_ts(TraceBuf& b, uint64_t ts) const;

  // Opens an X marker "<verb> <op>" on a thread track at ts and leaves "args":{ open.
  TraceBuf& begin_marker(uint64_t& busy_until, uint32_t pid, uint32_t tid, uint64_t ts,
                         std::string_view verb, uint8_t opcode);
  void counter(uint32_t pid, uint32_t row, std::string_view what, std::string_view unit,
               int64_t value, uint64_t ts);
  // Async ("b"/"n"/"e") event of a request, up to its args.
  TraceBuf& async_event(char ph, std::string_view name, const TraceRequest& r, uint64_t ts);
  void flow_event(char ph, const TraceRequest& r, uint64_t ts, uint32_t pid, uint32_t tid);
  void metadata(std::string_view what, uint32_t pid, const uint32_t* tid, std::string_view name);
  void global_instant(std::string_view name, uint64_t ts, std::string_view args);

  // Writes otherData, closes the file; throws uringscope::Error "cannot write FILE: ..."
  // when any write failed.
  void close(bool finished, const TraceStats& stats);

 private:
  void flush();

  std::string path_;
  std::ofstream file_;
  TraceBuf buf_;
  uint64_t nevents_ = 0;
  bool write_failed_ = false;
  int write_errno_ = 0;
  uint64_t base_ = 0;  // ts of the first record written: the file's time zero
  std::array<std::string, 256> op_names_;
};

}  // namespace uringscope
