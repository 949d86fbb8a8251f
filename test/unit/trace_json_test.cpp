// SPDX-License-Identifier: MIT
// The trace's text formatting: every integer, hex and microsecond form the writer puts in
// the file, checked against std::to_chars / printf at the edges (digit-count boundaries,
// the type limits), and the JSON string literal's escapes.
#include "trace/trace_json.h"
#include "util/format.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string>

namespace uringscope {
namespace {

std::string text(const TraceBuf& b) { return std::string(b.data(), b.size()); }

template <typename T>
std::string reference_decimal(T v) {
  char s[32];
  auto [end, ec] = std::to_chars(s, s + sizeof s, v);
  return std::string(s, end);
}

template <typename T>
void expect_decimal(T v) {
  TraceBuf b;
  b << v;
  EXPECT_EQ(text(b), reference_decimal(v)) << "value " << +v;
}

TEST(TraceJson, UnsignedDecimalAtEveryDigitCount) {
  uint64_t p = 1;
  for (int digits = 1; digits <= 19; ++digits, p *= 10) {
    expect_decimal(p - 1);
    expect_decimal(p);
    expect_decimal(p + 1);
  }
  expect_decimal(std::numeric_limits<uint64_t>::max());
  expect_decimal(std::numeric_limits<uint32_t>::max());
  expect_decimal(uint8_t{255});  // an opcode-sized value is a number, not a character
}

TEST(TraceJson, SignedDecimalIncludingTheLimits) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{-9}, int64_t{-10}, int64_t{-999999},
                    int64_t{-1000000} + 3, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()})
    expect_decimal(v);
  for (int32_t v : {int32_t{-11}, int32_t{-125}, std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max()})
    expect_decimal(v);
}

// The same text as the report's user_data (util/format.h), which fmt writes.
TEST(TraceJson, HexIsTheReportsUserDataText) {
  for (uint64_t v : {uint64_t{0}, uint64_t{0xf}, uint64_t{0x10}, uint64_t{0xdeadbeef},
                     uint64_t{0xffff888012345678}, std::numeric_limits<uint64_t>::max()}) {
    TraceBuf b;
    b << Hex{v};
    EXPECT_EQ(text(b), format_hex(v));
  }
  TraceBuf zero;
  zero << Hex{0};
  EXPECT_EQ(text(zero), "0x0");
  // Every digit count: the digits are counted from the leading zeros before they are
  // written, so each edge between n and n+1 nibbles is checked.
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t p = uint64_t{1} << bit;
    for (uint64_t v : {p - 1, p, p | (p - 1)}) {
      TraceBuf b;
      b << Hex{v};
      EXPECT_EQ(text(b), format_hex(v)) << "bit " << bit;
    }
  }
}

TEST(TraceJson, MicrosecondsKeepEveryNanosecond) {
  for (uint64_t ns : {uint64_t{0}, uint64_t{1}, uint64_t{9}, uint64_t{10}, uint64_t{99},
                      uint64_t{100}, uint64_t{999}, uint64_t{1000}, uint64_t{1001},
                      uint64_t{12034}, uint64_t{1000000000123},
                      std::numeric_limits<uint64_t>::max()}) {
    TraceBuf b;
    b << Usec{ns};
    char want[40];
    std::snprintf(want, sizeof want, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    EXPECT_EQ(text(b), want);
  }
}

TEST(TraceJson, GrowsPastAnyInitialCapacity) {
  TraceBuf b;
  std::string want;
  for (int i = 0; i < 100000; ++i) {
    b << "ab" << i << ',';
    want += "ab" + std::to_string(i) + ',';
  }
  EXPECT_EQ(text(b), want);
  b.clear();
  EXPECT_TRUE(b.empty());
  b << std::string_view("again");
  EXPECT_EQ(text(b), "again");
}

TEST(TraceJson, StringLiteralEscapes) {
  TraceBuf b;
  constexpr char name[] = "q\"b\\s\x01\x1f\x7f ok \xc3\xbc bad\xff";
  append_json_string(b, std::string_view(name, sizeof name - 1));
  EXPECT_EQ(text(b), R"("q\"b\\s\u0001\u001f\u007f ok )"
                     "\xc3\xbc"
                     R"( bad?")");
}

}  // namespace
}  // namespace uringscope
