// SPDX-License-Identifier: MIT
#include "loader/record_buffer.h"

#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.h"

namespace uringscope {


RecordBuffer::RecordBuffer(int map_fd) {
  rb_.reset(ring_buffer__new(map_fd, &RecordBuffer::on_record, this, nullptr));
  if (!rb_) throw Error(fmt::format("cannot read a BPF record buffer: {}", std::strerror(errno)));
}

RecordBuffer::~RecordBuffer() = default;

int RecordBuffer::on_record(void* self, void* data, std::size_t size) {
  auto* buffer = static_cast<RecordBuffer*>(self);
  if (buffer->sink_) buffer->budget_ -= static_cast<int64_t>((*buffer->sink_)(data, size));
  // A negative return stops ring_buffer__consume() after this record (already
  // consumed): the drain's budget is spent, the rest waits for the next one.
  return buffer->budget_ > 0 ? 0 : -1;
}

bool RecordBuffer::drain(const Sink& sink, uint64_t max_records) {
  sink_ = &sink;
  budget_ = static_cast<int64_t>(std::min<uint64_t>(max_records, INT64_MAX));
  ring_buffer__consume(rb_.get());
  sink_ = nullptr;
  return budget_ > 0;
}

}  // namespace uringscope
