// SPDX-License-Identifier: MIT
// The layout (tracks, ids, markers, counters) is documented for users in docs/trace.md;
// the comments here say why it is built the way it is.
#include "trace/trace_document.h"

#include <cerrno>
#include <cstring>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "util/error.h"
#include "uringscope/opcodes.h"

namespace uringscope {
namespace {

// Flow arrows must bind to a slice. Every point an arrow touches gets a short complete
// ("X") slice: 1 us is wide enough to click at the zoom where arrows are legible.
constexpr uint64_t kMarkerNs = 1000;

constexpr std::size_t kFlushBytes = 256 * 1024;

// Category of every async slice and flow: Perfetto and catapult match a slice's begin,
// instants and end, and a flow's steps, by (cat, id).
constexpr char kCat[] = "io_uring";

void append_dur(TraceBuf& b, uint64_t ns) { b << R"(,"dur":)" << Usec{ns}; }

}  // namespace

TraceDocument::TraceDocument(const std::string& path) : path_(path) {
  file_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file_.is_open())
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  for (std::size_t op = 0; op < op_names_.size(); ++op)
    op_names_[op] = opcode_name(static_cast<uint32_t>(op));
  buf_.reserve(kFlushBytes + 4096);
  buf_ << "{\"traceEvents\":[\n";
}

TraceBuf& TraceDocument::begin_event() {
  if (nevents_++) buf_ << ",\n";
  buf_ << '{';
  return buf_;
}

void TraceDocument::end_event() {
  buf_ << '}';
  if (buf_.size() >= kFlushBytes) flush();
}

void TraceDocument::flush() {
  if (!write_failed_ && !buf_.empty()) {
    file_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    if (!file_) {
      write_failed_ = true;
      write_errno_ = errno;
    }
  }
  buf_.clear();
}

void TraceDocument::append_ts(TraceBuf& b, uint64_t ts) const {
  b << R"(,"ts":)" << Usec{ts - base_};
}

// Markers on one track must nest, never partly overlap (Perfetto would misnest them):
// one that starts inside the previous marker gets zero length, a child of it.
TraceBuf& TraceDocument::begin_marker(uint64_t& busy_until, uint32_t pid, uint32_t tid,
                                      uint64_t ts, std::string_view verb, uint8_t opcode) {
  uint64_t dur = 0;
  if (ts >= busy_until) {
    dur = kMarkerNs;
    busy_until = ts + kMarkerNs;
  }
  TraceBuf& b = begin_event();
  b << R"("ph":"X","name":")" << verb << ' ' << op(opcode) << R"(","pid":)" << pid
    << R"(,"tid":)" << tid;
  append_ts(b, ts);
  append_dur(b, dur);
  b << R"(,"args":{)";
  return b;
}

void TraceDocument::counter(uint32_t pid, uint32_t row, std::string_view what,
                            std::string_view unit, int64_t value, uint64_t ts) {
  TraceBuf& b = begin_event();
  b << R"("ph":"C","name":"ring[)" << row << "] " << what << R"(","pid":)" << pid;
  append_ts(b, ts);
  b << R"(,"args":{")" << unit << R"(":)" << value << '}';
  end_event();
}

TraceBuf& TraceDocument::async_event(char ph, std::string_view name, const TraceRequest& r,
                                     uint64_t ts) {
  TraceBuf& b = begin_event();
  b << R"("ph":")" << ph << R"(","cat":")" << kCat << R"(","id":)" << r.id << R"(,"name":")"
    << name << R"(","pid":)" << r.pid << R"(,"tid":)" << r.tid;
  append_ts(b, ts);
  return b;
}

void TraceDocument::flow_event(char ph, const TraceRequest& r, uint64_t ts, uint32_t pid,
                               uint32_t tid) {
  TraceBuf& b = begin_event();
  b << R"("ph":")" << ph << R"(","cat":")" << kCat << R"(","id":)" << r.id
    << R"(,"name":"request","pid":)" << pid << R"(,"tid":)" << tid;
  append_ts(b, ts);
  if (ph == 'f') b << R"(,"bp":"e")";
  end_event();
}

void TraceDocument::metadata(std::string_view what, uint32_t pid, const uint32_t* tid,
                             std::string_view name) {
  TraceBuf& b = begin_event();
  b << R"("ph":"M","name":")" << what << R"(","pid":)" << pid;
  if (tid) b << R"(,"tid":)" << *tid;
  b << R"(,"args":{"name":)";
  append_json_string(b, name);
  b << '}';
  end_event();
}

// A global instant: args is the whole ,"args":{...} member, written as given.
void TraceDocument::global_instant(std::string_view name, uint64_t ts, std::string_view args) {
  TraceBuf& b = begin_event();
  b << R"("ph":"i","s":"g","name":")" << name << '"';
  append_ts(b, ts);
  b << args;
  end_event();
}

void TraceDocument::close(bool finished, const TraceStats& s) {
  buf_ << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
  buf_ << fmt::format(FMT_COMPILE(R"("tool":"uringscope","version":"{}","clock":"CLOCK_MONOTONIC",)"
                                  R"("ts_base_ns":{},"finished":{},"records":{},"requests":{},)"
                                  R"("unmatched":{},"still_open":{},"superseded":{},"late":{},)"
                                  R"("dropped_records":{}}})"),
                      URINGSCOPE_VERSION, base_, finished ? "true" : "false", s.events,
                      s.requests, s.unmatched, s.still_open, s.superseded, s.late, s.dropped);
  buf_ << "}\n";
  flush();
  file_.close();
  if (!write_failed_ && file_.fail()) {
    write_failed_ = true;
    write_errno_ = errno;
  }
  if (write_failed_)
    throw Error(fmt::format("cannot write {}: {}", path_,
                            write_errno_ ? std::strerror(write_errno_) : "write error"));
}

}  // namespace uringscope
