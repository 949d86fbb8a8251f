// SPDX-License-Identifier: MIT
// A BPF ring buffer of fixed-size records (--trace, --check), drained on a timer: the
// BPF side submits without waking anyone, so per-request streaming stays affordable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

struct ring_buffer;

namespace uringscope {

class RecordBuffer {
 public:
  // Throws Error when the ring buffer cannot be opened.
  RecordBuffer(int map_fd, std::size_t record_size);
  ~RecordBuffer();
  RecordBuffer(const RecordBuffer&) = delete;
  RecordBuffer& operator=(const RecordBuffer&) = delete;

  // Hands the waiting records to `sink`, oldest first, at most `max_records`: the bound
  // keeps a producer faster than the consumer from holding the run loop forever (the
  // buffer then fills and the BPF side counts its drops). Shorter records are skipped.
  void drain(const std::function<void(const void*)>& sink, uint64_t max_records = UINT64_MAX);

 private:
  static int on_record(void* self, void* data, std::size_t size);

  struct Deleter {
    void operator()(ring_buffer* rb) const;
  };
  std::unique_ptr<ring_buffer, Deleter> rb_;
  std::size_t record_size_;
  const std::function<void(const void*)>* sink_ = nullptr;
  int64_t budget_ = 0;
};

}  // namespace uringscope
