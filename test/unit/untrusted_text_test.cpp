// SPDX-License-Identifier: MIT
// The rule for untrusted text (util/untrusted_text.h, util/json_text.h), case by case as
// the documentation states it: each expected output is written out by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/untrusted_text.h"
#include "util/utf8.h"

namespace uringscope {
namespace {

struct VisibleCase {
  std::string raw;
  std::string visible;
  const char* what;
};

TEST(VisibleText, EscapesWhatATerminalOrAReaderCouldActOn) {
  const std::vector<VisibleCase> cases = {
      {"postgres", "postgres", "plain ASCII"},
      {"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", "valid UTF-8 kept"},
      {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "4-byte character kept"},
      {"a\\b", R"(a\\b)", "backslash doubled"},
      {"a\nb\rc\td", R"(a\nb\rc\td)", "line feed, return, tab"},
      {"\x1b[2J\x07", R"(\x1b[2J\x07)", "ESC and BEL"},
      {std::string("a\0b", 3), R"(a\x00b)", "NUL"},
      {"\x7f", R"(\x7f)", "DEL"},
      {"\x01\x1f", R"(\x01\x1f)", "C0 bounds"},
      {"\xff\xfe", R"(\xff\xfe)", "bytes that are never UTF-8"},
      {"\xc3", R"(\xc3)", "a sequence cut short"},
      {"\xc0\xaf", R"(\xc0\xaf)", "overlong form, byte by byte"},
      {"\xed\xa0\x80", R"(\xed\xa0\x80)", "surrogate"},
      {"\xc2\x80\xc2\x9b\xc2\x9f", R"(\u0080\u009b\u009f)", "C1 controls"},
      {"\xc2\xa0", "\xc2\xa0", "U+00A0 is no control"},
      {"\xe2\x80\xa8\xe2\x80\xa9", R"(\u2028\u2029)", "line and paragraph separators"},
      {"\xe2\x80\xae" "abc", R"(\u202eabc)", "right-to-left override"},
      {"\xe2\x81\xa6\xe2\x81\xa9", R"(\u2066\u2069)", "bidi isolates"},
      {"\xe2\x80\x8e\xe2\x80\x8f", R"(\u200e\u200f)", "direction marks"},
      {"\"quoted\" ;", "\"quoted\" ;", "quote and semicolon are printable"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(visible_text(c.raw), c.visible) << c.what;
    EXPECT_EQ(is_visible_as_is(c.raw), c.raw == c.visible) << c.what;
  }
}

// Two different names never look alike: the escape of a byte and a name that spells the
// escape out differ, because the backslash is escaped too.
TEST(VisibleText, IsOneToOne) {
  EXPECT_NE(visible_text("\x1b"), visible_text("\\x1b"));
  EXPECT_NE(visible_text("\n"), visible_text("\\n"));
  EXPECT_EQ(visible_text("\\x1b"), R"(\\x1b)");
}

TEST(VisibleText, EveryByteValueGivesOneLineOfPrintableText) {
  for (int b = 0; b < 256; ++b) {
    const std::string out = visible_text(std::string(1, static_cast<char>(b)));
    for (char c : out) {
      const auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << "byte " << b << " gave " << out;
    }
  }
}

TEST(JsonText, ReplacesInvalidUtf8InValuesAndKeysAndCountsTheStrings) {
  nlohmann::ordered_json doc = {{"ok", "plain"},
                                {"comm", "ev\xff"},
                                {"list", {"a\xfe", "b", 1}},
                                {"nested", {{"k\xff", "v"}, {"z", "y"}}}};
  EXPECT_EQ(replace_invalid_utf8(doc), 3u);
  EXPECT_EQ(doc["comm"], "ev\xef\xbf\xbd");
  EXPECT_EQ(doc["list"][0], "a\xef\xbf\xbd");
  ASSERT_TRUE(doc["nested"].contains("k\xef\xbf\xbd"));
  EXPECT_EQ(doc["nested"].begin().key(), "k\xef\xbf\xbd") << "the order of keys is kept";
  EXPECT_EQ(replace_invalid_utf8(doc), 0u) << "nothing left to replace";
}

TEST(JsonText, WritesControlsAsEscapesSoThePrintedDocumentIsInert) {
  const nlohmann::ordered_json doc = {{"n", "\x1b[2J\x07\n\x7f\xc2\x9b\xe2\x80\xae\xc3\xa9"}};
  const std::string text = json_document(doc, -1);
  EXPECT_EQ(text, R"({"n":"\u001b[2J\u0007\n\u007f\u009b\u202e)" "\xc3\xa9\"}");
  EXPECT_EQ(nlohmann::ordered_json::parse(text), doc) << "the same string to any reader";
}

TEST(JsonText, NeverThrowsOnBytesThatAreNotUtf8) {
  const nlohmann::ordered_json doc = {{"bad", "x\xff\xfey"}};
  std::string text;
  ASSERT_NO_THROW(text = json_document(doc, 2));
  EXPECT_EQ(nlohmann::ordered_json::parse(text)["bad"], "x\xef\xbf\xbd\xef\xbf\xbdy");
}

TEST(Utf8Cut, NeverSplitsACharacter) {
  const std::string s = "a\xc3\xa9\xe6\x97\xa5z";  // a, é (2 bytes), 日 (3 bytes), z
  EXPECT_EQ(utf8_cut_before(s, 2), 1u);
  EXPECT_EQ(utf8_cut_before(s, 3), 3u);
  EXPECT_EQ(utf8_cut_before(s, 5), 3u);
  EXPECT_EQ(utf8_cut_before(s, 99), s.size());
  EXPECT_EQ(utf8_cut_after(s, 2), 3u);
  EXPECT_EQ(utf8_cut_after(s, 4), 6u);
  EXPECT_EQ(utf8_cut_after(s, 6), 6u);
}

}  // namespace
}  // namespace uringscope
