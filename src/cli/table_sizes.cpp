// SPDX-License-Identifier: MIT
#include "cli/table_sizes.h"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "util/error.h"

namespace uringscope {
namespace {

struct SizeKnob {
  std::string_view name;
  uint32_t TableSizes::*member;
  uint32_t min;  // row 0 is the catch-all: a table needs it and one more
  uint32_t max;  // in-flight entries store the ring row in 16 bits
};

constexpr SizeKnob kKnobs[] = {
    {"rings", &TableSizes::max_rings, 2, 65535},
    {"opstats", &TableSizes::max_opstats, 2, 1u << 20},
    {"inflight", &TableSizes::inflight_buckets, 1, 1u << 22},
    {"udata", &TableSizes::udata_slots, 2, 1u << 22},
    {"threads", &TableSizes::thread_entries, 1, 1u << 20},
    {"files", &TableSizes::file_rows, 1, 1u << 18},   // ~430 B a row, preallocated
    {"names", &TableSizes::file_names, 1, 1u << 16},  // ~840 B a row
};

[[noreturn]] void bad(std::string_view what) {
  throw Error(fmt::format("URINGSCOPE_TABLE_SIZES: {}", what));
}

}  // namespace

TableSizes table_sizes_from(std::string_view spec) {
  TableSizes sizes;
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    const std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) bad(fmt::format("'{}' is not NAME=ROWS", item));
    const std::string_view name = item.substr(0, eq), value = item.substr(eq + 1);
    const SizeKnob* knob = nullptr;
    for (const SizeKnob& k : kKnobs) knob = k.name == name ? &k : knob;
    if (!knob) bad(fmt::format("unknown table '{}' (rings, opstats, inflight, udata, threads, files, names)", name));
    uint32_t rows = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), rows);
    if (ec != std::errc() || end != value.data() + value.size() || rows < knob->min ||
        rows > knob->max)
      bad(fmt::format("{}={} is not a number from {} to {}", name, value, knob->min, knob->max));
    sizes.*knob->member = rows;
  }
  auto power_of_two = [](uint32_t v) { return v && !(v & (v - 1)); };
  if (!power_of_two(sizes.inflight_buckets) || !power_of_two(sizes.udata_slots))
    bad("inflight and udata must be powers of two");
  return sizes;
}

}  // namespace uringscope
