// SPDX-License-Identifier: MIT
// The checked JSON accessors: each one's success, and the exact one-line message of each
// way it fails ("<source>: <problem> <path> ..."), as a user reading a bad baseline sees it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/json_reader.h"

namespace uringscope {
namespace {

using Json = nlohmann::json;

// The message of the uringscope::Error that `f` throws ("" when it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class JsonReaderTest : public ::testing::Test {
 protected:
  std::string source_ = "b.json";
  JsonReader r_{source_};
};

TEST(JsonReaderPaths, MemberAndElementPaths) {
  EXPECT_EQ(json_member_path("", "ops"), "ops") << "a top-level member has no leading dot";
  EXPECT_EQ(json_member_path("ops[0]", "p99_ns"), "ops[0].p99_ns");
  EXPECT_EQ(json_member_path("a.b", "c"), "a.b.c");
  EXPECT_EQ(json_element_path("ops", 0), "ops[0]");
  EXPECT_EQ(json_element_path("ops", 12), "ops[12]");
  EXPECT_EQ(json_element_path("", 3), "[3]") << "the document itself is an array";
  EXPECT_EQ(json_element_path(json_member_path(json_element_path("rings", 1), "fds"), 2),
            "rings[1].fds[2]");
}

struct DescribeCase {
  Json value;
  const char* description;
};

TEST(JsonReaderDescribe, NamesEveryKindOfValue) {
  const std::vector<DescribeCase> cases = {
      {Json(nullptr), "null"},
      {Json(true), "a boolean"},
      {Json("x"), "a string"},
      {Json::array(), "an array"},
      {Json::object(), "an object"},
      {Json::parse("0"), "an unsigned integer"},
      {Json::parse("18446744073709551615"), "an unsigned integer"},
      {Json::parse("-1"), "a negative integer"},
      {Json::parse("-9223372036854775808"), "a negative integer"},
      {Json::parse("1.5"), "a floating-point number"},
      {Json::parse("1e3"), "a floating-point number"},
      {Json::binary({1, 2}), "binary data"},
      {Json(Json::value_t::discarded), "no value"},
  };
  for (const auto& c : cases) EXPECT_EQ(json_describe(c.value), c.description) << c.value.dump();
}

// A document built in code can hold a non-negative *signed* integer (JsonReader::uint
// accepts one for that reason); parsed documents never do.
TEST(JsonReaderDescribe, CodeBuiltNonNegativeSignedIsNotCalledNegative) {
  const std::string description = json_describe(Json(int64_t{5}));
  EXPECT_EQ(description.find("negative"), std::string::npos) << description;
}

struct QuoteCase {
  Json value;
  std::string quoted;
};

TEST(JsonReaderQuote, QuotesTheJsonText) {
  const std::vector<QuoteCase> cases = {
      {Json("abc"), "\"abc\""},
      {Json("a\"b\n"), "\"a\\\"b\\n\""},
      {Json::parse("42"), "42"},
      {Json::parse("-3"), "-3"},
      {Json::parse("1.5"), "1.5"},
      {Json(nullptr), "null"},
      {Json(false), "false"},
      {Json::parse(R"({ "a" : [1, 2] })"), R"({"a":[1,2]})"},
      // Kept as UTF-8, not \u-escaped; a byte that is not UTF-8 becomes U+FFFD.
      {Json("caf\xc3\xa9"), "\"caf\xc3\xa9\""},
      {Json("a\xff" "b"), "\"a\xef\xbf\xbd" "b\""},
  };
  for (const auto& c : cases) EXPECT_EQ(json_quote(c.value), c.quoted);
}

TEST(JsonReaderQuote, CutsAfterFortyBytes) {
  // 38 characters + 2 quotes = 40 bytes: kept whole.
  EXPECT_EQ(json_quote(Json(std::string(38, 'x'))), "\"" + std::string(38, 'x') + "\"");
  // 39 characters + 2 quotes = 41 bytes: the first 40, then "...".
  EXPECT_EQ(json_quote(Json(std::string(39, 'x'))), "\"" + std::string(39, 'x') + "...");
  EXPECT_EQ(json_quote(Json(std::vector<int>(30, 7))).size(), 43u);
}

// The cut counts bytes, so it could fall inside a multi-byte character: a 38-byte string
// then U+00E9 dumps as '"' + 38 x + C3 A9 + '"' (42 bytes); a cut after 40 bytes would
// leave a lone lead byte (invalid UTF-8) in a message bound for the terminal.
TEST(JsonReaderQuote, CutNeverSplitsACharacter) {
  const std::string quoted = json_quote(Json(std::string(38, 'x') + "\xc3\xa9"));
  ASSERT_GE(quoted.size(), 3u);
  const std::string before_dots = quoted.substr(0, quoted.size() - 3);
  EXPECT_NE(static_cast<unsigned char>(before_dots.back()), 0xc3u) << quoted;
  EXPECT_EQ(quoted, "\"" + std::string(38, 'x') + "...");
}

struct DepthCase {
  std::string text;
  int limit;
  bool deeper;
  const char* what;
};

TEST(JsonReaderDepth, CountsBracketsOutsideStrings) {
  const std::vector<DepthCase> cases = {
      {"", 0, false, "empty"},
      {"42", 0, false, "a scalar has depth 0"},
      {"[]", 0, true, "depth 1 over 0"},
      {"[]", 1, false, "depth 1 at 1"},
      {"[[[]]]", 2, true, "depth 3 over 2"},
      {"[[[]]]", 3, false, "depth 3 at 3"},
      {R"({"a":[{"b":{}}]})", 3, true, "objects and arrays count alike"},
      {R"({"a":[{"b":{}}]})", 4, false, "depth 4 at 4"},
      {"[[],[],[],[]]", 2, false, "siblings do not add up"},
      {R"(["[[[[{{{{"])", 1, false, "brackets inside a string"},
      {R"(["\"[[[["])", 1, false, "an escaped quote does not end the string"},
      {R"(["\\",[[]]])", 2, true, "an escaped backslash does not escape the quote"},
      {R"(["\\",[[]]])", 3, false, "same, at the limit"},
      {"]]]][[", 1, true, "stray closers do not hide later depth"},
      {std::string(10000, '['), 9999, true, "deep, one over"},
      {std::string(10000, '['), 10000, false, "deep, at the limit"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(json_nests_deeper_than(c.text, c.limit), c.deeper) << c.what;
}

TEST(JsonReaderErrorText, DropsTheExceptionPrefix) {
  EXPECT_EQ(json_error_text("[json.exception.type_error.302] type must be string, but is number"),
            "type must be string, but is number");
  EXPECT_EQ(json_error_text("[json.exception.out_of_range.406] number overflow parsing '1e400'"),
            "number overflow parsing '1e400'");
  EXPECT_EQ(json_error_text("no prefix] here"), "no prefix] here") << "only nlohmann's prefix";
  EXPECT_EQ(json_error_text("[json.exception.half"), "[json.exception.half");
  EXPECT_EQ(json_error_text(""), "");
}

TEST(JsonReaderErrorText, CutsAfterEightyBytes) {
  const std::string prefix = "[json.exception.other_error.501] ";
  EXPECT_EQ(json_error_text((prefix + std::string(80, 'e')).c_str()), std::string(80, 'e'));
  EXPECT_EQ(json_error_text((prefix + std::string(81, 'e')).c_str()),
            std::string(80, 'e') + "...");
  EXPECT_EQ(json_error_text(std::string(81, 'e').c_str()), std::string(80, 'e') + "...");
}

TEST_F(JsonReaderTest, FailPrefixesTheSource) {
  EXPECT_EQ(error_of([&] { r_.fail("schema 9, this uringscope reads schema 1"); }),
            "b.json: schema 9, this uringscope reads schema 1");
  EXPECT_EQ(error_of([&] { r_.wrong_type(Json("x"), "ops[0].count", "an unsigned integer"); }),
            "b.json: wrong-typed field ops[0].count (a string, expected an unsigned integer)");
  EXPECT_EQ(error_of([&] { r_.out_of_range(Json(-1), "fd", "at least 0"); }),
            "b.json: field fd out of range (-1, expected at least 0)");
}

TEST_F(JsonReaderTest, ParsesJson) {
  const Json doc = r_.parse(R"({"ops": [{"p99_ns": 12}]})");
  EXPECT_EQ(doc["ops"][0]["p99_ns"].get<uint64_t>(), 12u);
}

struct ParseErrorCase {
  std::string text;
  std::string message;
  const char* what;
};

TEST_F(JsonReaderTest, ParseErrorsGiveLineAndColumn) {
  // nlohmann counts the offending character as read (the end of input as one more), and
  // a newline starts column 0, so the first character of a line is column 1.
  const std::vector<ParseErrorCase> cases = {
      {"[1,]", "b.json: not JSON (line 1, column 4)", "']' is the 4th character"},
      {"{\n  \"a\": }", "b.json: not JSON (line 2, column 8)", "'}' is the 8th on line 2"},
      {"[1,\n]", "b.json: not JSON (line 2, column 1)", "']' opens line 2"},
      {"", "b.json: not JSON (line 1, column 1)", "the end of input is read at 1"},
      {"[1,2", "b.json: not JSON (line 1, column 5)", "the end of input after 4 characters"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(error_of([&] { r_.parse(c.text); }), c.message) << c.what;
}

TEST_F(JsonReaderTest, ParseRefusesANumberItCannotHold) {
  EXPECT_EQ(error_of([&] { r_.parse("[1e400]"); }),
            "b.json: unreadable JSON (number overflow parsing '1e400')");
}

TEST_F(JsonReaderTest, FindAndMember) {
  const Json doc = Json::parse(R"({"a": 1, "b": null})");
  ASSERT_NE(r_.find(doc, "a"), nullptr);
  EXPECT_EQ(r_.find(doc, "a"), &doc.at("a")) << "a pointer into the document, not a copy";
  ASSERT_NE(r_.find(doc, "b"), nullptr) << "a null member is present";
  EXPECT_EQ(r_.find(doc, "c"), nullptr);
  EXPECT_EQ(&r_.member(doc, "a", "x.a"), &doc.at("a"));
  EXPECT_EQ(error_of([&] { r_.member(doc, "c", "ops[0].c"); }), "b.json: missing field ops[0].c");
}

TEST_F(JsonReaderTest, ObjectAndArray) {
  const Json object = Json::parse(R"({"k": []})");
  const Json array = Json::parse("[{}]");
  EXPECT_EQ(&r_.object(object, "top"), &object);
  EXPECT_EQ(&r_.array(array, "ops"), &array);
  EXPECT_EQ(error_of([&] { r_.object(array, "ops[0]"); }),
            "b.json: wrong-typed field ops[0] (an array, expected an object)");
  EXPECT_EQ(error_of([&] { r_.array(object, "ops"); }),
            "b.json: wrong-typed field ops (an object, expected an array)");
  EXPECT_EQ(error_of([&] { r_.array(Json(nullptr), "rings"); }),
            "b.json: wrong-typed field rings (null, expected an array)");
}

TEST_F(JsonReaderTest, String) {
  EXPECT_EQ(r_.string(Json("io_uring"), "tool"), "io_uring");
  EXPECT_EQ(r_.string(Json(""), "tool"), "");
  EXPECT_EQ(error_of([&] { r_.string(Json::parse("7"), "tool"); }),
            "b.json: wrong-typed field tool (an unsigned integer, expected a string)");
  EXPECT_EQ(error_of([&] { r_.string(Json(true), "tool"); }),
            "b.json: wrong-typed field tool (a boolean, expected a string)");
}

TEST_F(JsonReaderTest, Uint) {
  EXPECT_EQ(r_.uint(Json::parse("0"), "n"), 0u);
  EXPECT_EQ(r_.uint(Json::parse("18446744073709551615"), "n"), UINT64_MAX);
  EXPECT_EQ(r_.uint(Json(int64_t{7}), "n"), 7u) << "a non-negative signed value built in code";
  const std::string expected = "expected an unsigned integer)";
  EXPECT_EQ(error_of([&] { r_.uint(Json::parse("-1"), "n"); }),
            "b.json: wrong-typed field n (a negative integer, " + expected);
  EXPECT_EQ(error_of([&] { r_.uint(Json::parse("1.0"), "n"); }),
            "b.json: wrong-typed field n (a floating-point number, " + expected);
  // 2^64 does not fit an integer, so the parser holds it as a double.
  EXPECT_EQ(error_of([&] { r_.uint(Json::parse("18446744073709551616"), "n"); }),
            "b.json: wrong-typed field n (a floating-point number, " + expected);
  EXPECT_EQ(error_of([&] { r_.uint(Json("5"), "n"); }),
            "b.json: wrong-typed field n (a string, " + expected);
}

TEST_F(JsonReaderTest, Uint32) {
  EXPECT_EQ(r_.uint32(Json::parse("0"), "n"), 0u);
  EXPECT_EQ(r_.uint32(Json::parse("4294967295"), "n"), UINT32_MAX);
  EXPECT_EQ(error_of([&] { r_.uint32(Json::parse("4294967296"), "n"); }),
            "b.json: field n out of range (4294967296, expected at most 4294967295)");
  EXPECT_EQ(error_of([&] { r_.uint32(Json::parse("-1"), "n"); }),
            "b.json: wrong-typed field n (a negative integer, expected an unsigned integer)");
}

TEST_F(JsonReaderTest, NonNegative) {
  EXPECT_EQ(r_.non_negative(Json::parse("0"), "x"), 0.0);
  EXPECT_EQ(r_.non_negative(Json::parse("1.5"), "x"), 1.5);
  EXPECT_EQ(r_.non_negative(Json::parse("7"), "x"), 7.0) << "an integer is a number";
  EXPECT_EQ(r_.non_negative(Json::parse("1e308"), "x"), 1e308);
  const std::string range = "expected a finite number >= 0)";
  EXPECT_EQ(error_of([&] { r_.non_negative(Json::parse("-1"), "x"); }),
            "b.json: field x out of range (-1, " + range);
  EXPECT_EQ(error_of([&] { r_.non_negative(Json::parse("-0.5"), "x"); }),
            "b.json: field x out of range (-0.5, " + range);
  // Only a document built in code can hold these; nlohmann writes both as null.
  EXPECT_EQ(error_of([&] { r_.non_negative(Json(std::nan("")), "x"); }),
            "b.json: field x out of range (null, " + range);
  EXPECT_EQ(error_of([&] { r_.non_negative(Json(std::numeric_limits<double>::infinity()), "x"); }),
            "b.json: field x out of range (null, " + range);
  EXPECT_EQ(error_of([&] { r_.non_negative(Json("1"), "x"); }),
            "b.json: wrong-typed field x (a string, expected a number)");
}

TEST_F(JsonReaderTest, NamedMembersCarryTheirPath) {
  const Json op = Json::parse(R"({"p99_ns": 5000000000, "n": 3, "name": "read", "bad": "x"})");
  EXPECT_EQ(r_.uint_at(op, "p99_ns", "ops[0]"), 5000000000u);
  EXPECT_EQ(r_.uint32_at(op, "n", "ops[0]"), 3u);
  EXPECT_EQ(r_.string_at(op, "name", "ops[0]"), "read");
  EXPECT_EQ(r_.string_at(op, "name", ""), "read");
  EXPECT_EQ(error_of([&] { r_.uint_at(op, "p50_ns", "ops[0]"); }),
            "b.json: missing field ops[0].p50_ns");
  EXPECT_EQ(error_of([&] { r_.uint32_at(op, "count", ""); }), "b.json: missing field count");
  EXPECT_EQ(error_of([&] { r_.string_at(op, "nom", "ops[1]"); }),
            "b.json: missing field ops[1].nom");
  EXPECT_EQ(error_of([&] { r_.uint_at(op, "bad", "ops[0]"); }),
            "b.json: wrong-typed field ops[0].bad (a string, expected an unsigned integer)");
  EXPECT_EQ(error_of([&] { r_.uint32_at(op, "p99_ns", "ops[0]"); }),
            "b.json: field ops[0].p99_ns out of range (5000000000, expected at most 4294967295)");
  EXPECT_EQ(error_of([&] { r_.string_at(op, "n", "ops[0]"); }),
            "b.json: wrong-typed field ops[0].n (an unsigned integer, expected a string)");
}

}  // namespace
}  // namespace uringscope
