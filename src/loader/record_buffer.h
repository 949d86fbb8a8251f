// SPDX-License-Identifier: MIT
// A BPF ring buffer of records (--trace's batches, --check's records), drained on a
// timer: the BPF side submits without waking anyone, so per-request streaming stays
// affordable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "os/libbpf_handles.h"


namespace uringscope {

class RecordBuffer {
 public:
  // Takes one ring-buffer record, returns how many of the caller's records it held (what
  // the drain's budget counts).
  using Sink = std::function<uint64_t(const void* data, std::size_t size)>;

  // Throws Error when the ring buffer cannot be opened.
  explicit RecordBuffer(int map_fd);
  ~RecordBuffer();
  RecordBuffer(const RecordBuffer&) = delete;
  RecordBuffer& operator=(const RecordBuffer&) = delete;

  // Hands the waiting records to `sink`, oldest first, until it has counted `max_records`:
  // the bound keeps a producer faster than the consumer from holding the run loop forever
  // (the buffer then fills and the BPF side counts its drops). True when the buffer was
  // emptied before the bound was reached.
  bool drain(const Sink& sink, uint64_t max_records = UINT64_MAX);

 private:
  static int on_record(void* self, void* data, std::size_t size);

  RingBufferPtr rb_;
  const Sink* sink_ = nullptr;
  int64_t budget_ = 0;
};

}  // namespace uringscope
