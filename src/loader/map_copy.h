// SPDX-License-Identifier: MIT
// Userspace views of BPF maps: array rows through mmap (copied out, or mapped for the
// run), hash maps entry by entry.
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "util/error.h"

namespace uringscope {

// Copies rows [0, rows) of an array map. The big tables are BPF_F_MMAPABLE: one mmap
// instead of a syscall per row.
template <typename Row>
std::vector<Row> copy_rows(const bpf_map* map, uint32_t rows) {
  rows = std::min(rows, bpf_map__max_entries(map));
  std::vector<Row> out(rows);
  if (rows == 0) return out;
  const std::size_t stride = (bpf_map__value_size(map) + 7) & ~std::size_t{7};
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t length = (stride * rows + page - 1) / page * page;
  void* base = mmap(nullptr, length, PROT_READ, MAP_SHARED, bpf_map__fd(map), 0);
  if (base == MAP_FAILED) {
    throw Error(fmt::format("cannot map BPF table {}: {}", bpf_map__name(map), strerror(errno)));
  }
  for (uint32_t i = 0; i < rows; ++i) {
    std::memcpy(&out[i], static_cast<const char*>(base) + i * stride, sizeof(Row));
  }
  munmap(base, length);
  return out;
}

// Every (key, value) of a hash map. Entries inserted while we walk may be missed; we
// read after detaching, so nothing is.
template <typename Key, typename Value>
std::vector<std::pair<Key, Value>> copy_hash(const bpf_map* map) {
  std::vector<std::pair<Key, Value>> out;
  const int fd = bpf_map__fd(map);
  Key key{};
  Key next{};
  const Key* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    Value value{};
    if (bpf_map_lookup_elem(fd, &next, &value) == 0) out.emplace_back(next, value);
    key = next;
    prev = &key;
  }
  return out;
}

// A BPF_F_MMAPABLE array map mapped read-write for as long as this object lives: for
// the few places userspace writes rows back (clearing a destroyed ring's rows).
template <typename Row>
class MappedArray {
 public:
  explicit MappedArray(const bpf_map* map)
      : stride_((bpf_map__value_size(map) + 7) & ~std::size_t{7}),
        rows_(bpf_map__max_entries(map)) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    length_ = (stride_ * rows_ + page - 1) / page * page;
    base_ = mmap(nullptr, length_, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
    if (base_ == MAP_FAILED) {
      throw Error(fmt::format("cannot map BPF table {}: {}", bpf_map__name(map), strerror(errno)));
    }
  }
  ~MappedArray() { munmap(base_, length_); }
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;

  uint32_t size() const { return rows_; }
  Row& operator[](uint32_t i) { return *reinterpret_cast<Row*>(static_cast<char*>(base_) + i * stride_); }

 private:
  std::size_t stride_;
  uint32_t rows_;
  std::size_t length_ = 0;
  void* base_ = nullptr;
};

}  // namespace uringscope
