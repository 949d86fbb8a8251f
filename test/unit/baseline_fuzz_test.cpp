// SPDX-License-Identifier: MIT
// parse_baseline over thousands of broken variants of a valid report, generated
// deterministically: it must either accept a variant or throw uringscope::Error with a
// one-line message, never anything else, and whatever it accepts must go through diff()
// and both renderers without throwing. A crash fails the whole binary, which is the point.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "diff/baseline.h"
#include "util/error.h"
#include "report/report.h"
#include "support/fixtures.h"

namespace uringscope::baseline_test {


namespace {

using Json = nlohmann::ordered_json;

// Values put in place of every value of the report: each JSON type, and the numbers at
// and past the edges of what the fields hold (2^64 - 1 is accepted and stresses the
// diff's arithmetic; 2^64 parses as a float; 1e400 does not parse at all).
const std::vector<std::string> kLiterals{
    "null", "true", "\"x\"", "-1", "0.5", "[]", "{}", "4294967296", "18446744073709551615",
    "18446744073709551616", "1e400"};

// Tokens inserted at random offsets.
const std::vector<std::string> kTokens{
    "{", "}", "[", "]", "\"", ",", ":", "\\", "null", "-", "1e400", "18446744073709551616",
    "\\u0000", "\\ud800", "\xff", "\xc3", std::string(1, '\0'), "\n", "{\"a\":1}", "[[[["};

class BaselineFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    Snapshot snap = baseline_fixture();
    std::vector<Finding> findings = baseline_findings();
    current_ = baseline_of(snap, findings);
    doc_ = render_json(snap, findings);
    text_ = doc_.dump();
    original_ = parse_baseline(text_, "fuzz.json");
    collect_paths(doc_, Json::json_pointer());
  }

  // One variant through parse, diff and render. `what` names it in failures.
  void check(const std::string& variant, const std::string& what) {
    Baseline b;
    try {
      b = parse_baseline(variant, "fuzz.json");
    } catch (const Error& e) {
      ++rejected_;
      std::string message = e.what();
      EXPECT_EQ(message.rfind("fuzz.json: ", 0), 0u) << what << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << what << ": " << message;
      // parse_baseline's last-resort net for a check it forgot: never needed, or a field
      // is read unchecked.
      EXPECT_EQ(message.find("unreadable report"), std::string::npos) << what << ": " << message;
      return;
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": threw " << typeid(e).name() << ": " << e.what();
      return;
    } catch (...) {
      ADD_FAILURE() << what << ": threw something that is not a std::exception";
      return;
    }
    ++accepted_;
    // Most accepted variants changed a field the parser does not read; their diff was
    // already exercised by the first one.
    if (b == original_) return;
    try {
      // Both directions: the baseline's odd values on either side of every subtraction.
      for (const Diff& d : {diff(b, current_), diff(current_, b)}) {
        std::ostringstream out;
        render_diff_text(out, d);
        (void)diff_json(d).dump();
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": an accepted baseline failed to diff: " << e.what();
    }
  }

  // Every value's pointer. Long arrays of numbers (log2_hist) contribute their first and
  // last element only: the parser never reads them, and their elements are alike.
  void collect_paths(const Json& value, const Json::json_pointer& at) {
    paths_.push_back(at);
    if (value.is_object()) {
      for (const auto& [key, child] : value.items()) collect_paths(child, at / key);
    } else if (value.is_array()) {
      bool scalars = !value.empty() && value.front().is_primitive();
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (scalars && value.size() > 3 && i != 0 && i + 1 != value.size()) continue;
        collect_paths(value[i], at / i);
      }
    }
  }

  // The report with the value at `at` replaced by raw JSON text (which may be text no
  // Json value can hold, such as 1e400). Mutates doc_ in place and puts the value back:
  // copying the whole document for each of thousands of variants would dominate the time.
  std::string with_literal(const Json::json_pointer& at, const std::string& literal) {
    static const std::string kMark = "\"@@fuzz@@\"";
    Json saved = std::move(doc_[at]);
    doc_[at] = "@@fuzz@@";
    std::string out = doc_.dump();
    doc_[at] = std::move(saved);
    out.replace(out.find(kMark), kMark.size(), literal);
    return out;
  }

  std::string without(const Json::json_pointer& at) const {
    Json copy = doc_;
    Json& parent = copy[at.parent_pointer()];
    if (parent.is_object()) {
      parent.erase(at.back());
    } else {
      parent.erase(static_cast<std::size_t>(std::stoul(at.back())));
    }
    return copy.dump();
  }

  Baseline current_;
  Baseline original_;  // what the unmutated report parses to
  Json doc_;
  std::string text_;
  std::vector<Json::json_pointer> paths_;
  std::size_t accepted_ = 0;
  std::size_t rejected_ = 0;
};

TEST_F(BaselineFuzz, EveryPrefix) {
  // A report cut off anywhere: only the whole text is a report.
  for (std::size_t n = 0; n <= text_.size(); ++n)
    check(text_.substr(0, n), "prefix " + std::to_string(n));
  EXPECT_EQ(accepted_, 1u);
  EXPECT_EQ(rejected_, text_.size());
}

TEST_F(BaselineFuzz, RandomBytes) {
  std::mt19937 rng(0x5eed);
  auto offset = [&](std::size_t size) {
    return std::uniform_int_distribution<std::size_t>(0, size - 1)(rng);
  };
  for (int i = 0; i < 600; ++i) {
    std::string v = text_;
    std::size_t at = offset(v.size());
    v[at] = static_cast<char>(v[at] ^ (1 << (rng() % 8)));
    check(v, "bit flip at " + std::to_string(at));
  }
  for (int i = 0; i < 400; ++i) {
    std::string v = text_;
    std::size_t at = offset(v.size());
    v[at] = static_cast<char>(rng() % 256);
    check(v, "byte set at " + std::to_string(at));
  }
  for (int i = 0; i < 400; ++i) {
    std::string v = text_;
    std::size_t at = offset(v.size());
    std::size_t len = 1 + rng() % 16;
    v.erase(at, len);
    check(v, "deletion at " + std::to_string(at));
  }
  for (int i = 0; i < 400; ++i) {
    std::string v = text_;
    std::size_t at = offset(v.size());
    const std::string& token = kTokens[rng() % kTokens.size()];
    v.insert(at, token);
    check(v, "insertion at " + std::to_string(at));
  }
  // Both paths really ran: flips inside strings and names keep a report valid.
  EXPECT_GT(accepted_, 0u);
  EXPECT_GT(rejected_, 0u);
}

TEST_F(BaselineFuzz, EveryValueReplacedByEveryKind) {
  ASSERT_GT(paths_.size(), 100u);
  for (const Json::json_pointer& at : paths_) {
    for (const std::string& literal : kLiterals)
      check(with_literal(at, literal), at.to_string() + " = " + literal);
    if (!at.empty()) check(without(at), "without " + at.to_string());
  }
  EXPECT_GT(accepted_, 0u);
  EXPECT_GT(rejected_, 0u);
}

TEST_F(BaselineFuzz, SeveralValuesAtOnce) {
  // Combinations the one-at-a-time test cannot reach, such as two odd values meeting in
  // one subtraction of the diff.
  const std::vector<Json> values{nullptr, -1, 0, 0.5, "x", Json::array(), Json::object(),
                                 UINT64_MAX, uint64_t{1} << 32, 1e300};
  std::mt19937 rng(0xd1ff);
  for (int i = 0; i < 400; ++i) {
    Json copy = doc_;
    std::string what = "mutations";
    int count = 2 + static_cast<int>(rng() % 4);
    try {
      for (int m = 0; m < count; ++m) {
        const Json::json_pointer& at = paths_[rng() % paths_.size()];
        const Json& value = values[rng() % values.size()];
        if (!copy.contains(at)) continue;  // an earlier mutation replaced its parent
        copy[at] = value;
        what += " " + at.to_string() + "=" + value.dump();
      }
    } catch (const Json::exception&) {
      continue;  // the mutation, not the parser, hit a path that no longer exists
    }
    check(copy.dump(), what);
  }
  EXPECT_GT(accepted_, 0u);
  EXPECT_GT(rejected_, 0u);
}

}  // namespace
}  // namespace uringscope::baseline_test
