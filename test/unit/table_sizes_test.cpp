// SPDX-License-Identifier: MIT
#include "cli/table_sizes.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace uringscope {
namespace {

TEST(TableSizes, EmptyKeepsTheDefaults) {
  const TableSizes sizes = table_sizes_from("");
  EXPECT_EQ(sizes.max_rings, US_DEFAULT_MAX_RINGS);
  EXPECT_EQ(sizes.max_opstats, US_DEFAULT_OPSTAT_SLOTS);
  EXPECT_EQ(sizes.inflight_buckets, US_DEFAULT_INFLIGHT_BUCKETS);
  EXPECT_EQ(sizes.udata_slots, US_DEFAULT_UDATA_SLOTS);
}

TEST(TableSizes, AnySubsetInAnyOrder) {
  const TableSizes sizes = table_sizes_from("udata=64,rings=8,,inflight=16,threads=4");
  EXPECT_EQ(sizes.thread_entries, 4u);
  EXPECT_EQ(sizes.max_rings, 8u);
  EXPECT_EQ(sizes.max_opstats, US_DEFAULT_OPSTAT_SLOTS);
  EXPECT_EQ(sizes.inflight_buckets, 16u);
  EXPECT_EQ(sizes.udata_slots, 64u);
}

TEST(TableSizes, BadSpecsSayWhatIsWrongInOneLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"rings", "URINGSCOPE_TABLE_SIZES: 'rings' is not NAME=ROWS"},
      {"ringz=8", "URINGSCOPE_TABLE_SIZES: unknown table 'ringz' (rings, opstats, inflight, udata, threads, files, names)"},
      {"rings=1", "URINGSCOPE_TABLE_SIZES: rings=1 is not a number from 2 to 65535"},
      {"rings=70000", "URINGSCOPE_TABLE_SIZES: rings=70000 is not a number from 2 to 65535"},
      {"opstats=8x", "URINGSCOPE_TABLE_SIZES: opstats=8x is not a number from 2 to 1048576"},
      {"rings=-3", "URINGSCOPE_TABLE_SIZES: rings=-3 is not a number from 2 to 65535"},
      {"inflight=48", "URINGSCOPE_TABLE_SIZES: inflight and udata must be powers of two"},
  };
  for (const auto& [spec, message] : cases) {
    try {
      table_sizes_from(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), message) << spec;
    }
  }
}

}  // namespace
}  // namespace uringscope
