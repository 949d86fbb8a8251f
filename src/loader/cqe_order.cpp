// SPDX-License-Identifier: MIT
#include "loader/cqe_order.h"

#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

#include "util/unique_fd.h"

namespace uringscope {
namespace {

// One shared mapping of the ring, unmapped when it goes.
class RingMapping {
 public:
  RingMapping(int fd, std::size_t length, off_t offset)
      : length_(length),
        base_(mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset)) {}
  ~RingMapping() {
    if (ok()) munmap(base_, length_);
  }
  RingMapping(const RingMapping&) = delete;
  RingMapping& operator=(const RingMapping&) = delete;

  bool ok() const { return base_ != MAP_FAILED; }
  template <typename T>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<char*>(base_) + offset);
  }

 private:
  std::size_t length_;
  void* base_;
};

}  // namespace

bool post_cqe_order_nop() {
  io_uring_params params{};
  UniqueFd ring(static_cast<int>(syscall(__NR_io_uring_setup, 1, &params)));
  if (!ring) return false;
  RingMapping sq(ring.get(), params.sq_off.array + params.sq_entries * sizeof(uint32_t),
                 IORING_OFF_SQ_RING);
  RingMapping sqes(ring.get(), params.sq_entries * sizeof(io_uring_sqe), IORING_OFF_SQES);
  if (!sq.ok() || !sqes.ok()) return false;

  io_uring_sqe* sqe = sqes.at<io_uring_sqe>(0);
  *sqe = io_uring_sqe{};
  sqe->opcode = IORING_OP_NOP;
  sqe->user_data = kCqeOrderUserData;
  const uint32_t mask = *sq.at<uint32_t>(params.sq_off.ring_mask);
  std::atomic_ref<uint32_t> tail(*sq.at<uint32_t>(params.sq_off.tail));
  const uint32_t at = tail.load(std::memory_order_relaxed);
  sq.at<uint32_t>(params.sq_off.array)[at & mask] = 0;
  tail.store(at + 1, std::memory_order_release);
  const long submitted =
      syscall(__NR_io_uring_enter, ring.get(), 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0);
  return submitted == 1;
}

}  // namespace uringscope
