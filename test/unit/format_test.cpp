// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>

#include "util/format.h"

namespace uringscope {
namespace {

TEST(FormatCount, ThousandsSeparators) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(7), "7");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(91'002), "91,002");
  EXPECT_EQ(format_count(1'204'332), "1,204,332");
  EXPECT_EQ(format_count(UINT64_MAX), "18,446,744,073,709,551,615");
}

TEST(FormatDuration, Nanoseconds) {
  EXPECT_EQ(format_duration(0), "0ns");
  EXPECT_EQ(format_duration(850), "850ns");
  EXPECT_EQ(format_duration(999), "999ns");
}

TEST(FormatDuration, ThreeSignificantDigitsTrailingZerosDropped) {
  EXPECT_EQ(format_duration(1000), "1us");
  EXPECT_EQ(format_duration(1500), "1.5us");
  EXPECT_EQ(format_duration(14'000), "14us");
  EXPECT_EQ(format_duration(12'706), "12.7us");
  EXPECT_EQ(format_duration(410'000), "410us");
  EXPECT_EQ(format_duration(1'200'000), "1.2ms");
  EXPECT_EQ(format_duration(1'234'567), "1.23ms");
  EXPECT_EQ(format_duration(9'100'000), "9.1ms");
  EXPECT_EQ(format_duration(3'400'000'000), "3.4s");
  EXPECT_EQ(format_duration(12'400'000'000), "12.4s");
}

TEST(FormatDuration, RoundsHalfUpExactly) {
  EXPECT_EQ(format_duration(1'004), "1us");       // 1.004 -> 1.00
  EXPECT_EQ(format_duration(1'005), "1.01us");    // 1.005 -> 1.01
  EXPECT_EQ(format_duration(1'235'000), "1.24ms");  // a double would see 1.2349999
  EXPECT_EQ(format_duration(1'986'270), "1.99ms");
}

TEST(FormatDuration, RoundingCarriesIntoTheNextDigitOrUnit) {
  EXPECT_EQ(format_duration(9'994), "9.99us");
  EXPECT_EQ(format_duration(9'995), "10us");      // 9.995 rounds up to 10.0: three digits, shown as 10
  EXPECT_EQ(format_duration(99'950), "100us");
  EXPECT_EQ(format_duration(999'499), "999us");
  EXPECT_EQ(format_duration(999'500), "1ms");     // not "1000us"
  EXPECT_EQ(format_duration(999'999'999), "1s");
}

TEST(FormatDuration, SecondsKeepAllIntegerDigits) {
  EXPECT_EQ(format_duration(1'234'000'000'000), "1234s");
  EXPECT_EQ(format_duration(UINT64_MAX), "18446744074s");  // 18446744073.7s rounded
}

TEST(FormatHex, PrefixedLowercaseUnpadded) {
  EXPECT_EQ(format_hex(0), "0x0");
  EXPECT_EQ(format_hex(42), "0x2a");
  EXPECT_EQ(format_hex(0xdeadbeef00000001), "0xdeadbeef00000001");
  EXPECT_EQ(format_hex(UINT64_MAX), "0xffffffffffffffff");
}

TEST(FormatPercent, OneDecimal) {
  EXPECT_EQ(format_percent(0.0), "0.0%");
  EXPECT_EQ(format_percent(2.0), "2.0%");
  EXPECT_EQ(format_percent(100.0 * 695'512 / 1'102'238), "63.1%");  // 63.09998...
  EXPECT_EQ(format_percent(100.0), "100.0%");
}

TEST(FormatFixed, Decimals) {
  EXPECT_EQ(format_fixed(1'209'544.0 / 1'204'332.0, 1), "1.0");
  EXPECT_EQ(format_fixed(2.25, 2), "2.25");
  EXPECT_EQ(format_fixed(7.0, 0), "7");
}

TEST(WrapWords, Greedy) {
  EXPECT_EQ(wrap_words("aaa bbb ccc", 7), (std::vector<std::string>{"aaa bbb", "ccc"}));
  EXPECT_EQ(wrap_words("aaa bbb ccc", 11), (std::vector<std::string>{"aaa bbb ccc"}));
  EXPECT_EQ(wrap_words("  aaa\n  bbb  ", 80), (std::vector<std::string>{"aaa bbb"}));
  EXPECT_EQ(wrap_words("a verylongword b", 5),
            (std::vector<std::string>{"a", "verylongword", "b"}));
  EXPECT_TRUE(wrap_words("", 10).empty());
  EXPECT_TRUE(wrap_words("   ", 10).empty());
}

TEST(TextTable, AlignsColumnsAndNotes) {
  using A = TextTable::Align;
  TextTable t({A::Left, A::Right}, "  ");
  t.add_row({"op", "reqs"});
  t.add_row({"READ", "1,102,238"}, "<-- !");
  t.add_row({"WRITE", "91,002", ""});
  t.add_row({"NOP", "3"}, "<-- !");
  std::ostringstream out;
  t.write(out);
  // widths: 5 ("WRITE") and 9 ("1,102,238"); table width 2 + 5 + 2 + 9 = 18; notes at +3.
  EXPECT_EQ(out.str(),
            "  op          reqs\n"
            "  READ   1,102,238   <-- !\n"
            "  WRITE     91,002\n"
            "  NOP            3   <-- !\n");
}

TEST(TextTable, TrimsTrailingBlanksOfEmptyLeftCells) {
  using A = TextTable::Align;
  TextTable t({A::Left, A::Left});
  t.add_row({"a", "long text"});
  t.add_row({"bb", ""});
  std::ostringstream out;
  t.write(out);
  EXPECT_EQ(out.str(), "a   long text\nbb\n");
  EXPECT_TRUE(TextTable({}).empty());
}

}  // namespace
}  // namespace uringscope
