// SPDX-License-Identifier: MIT
// The validator against RFC 3629 itself: the boundary code points of each length, the
// forms section 3 forbids (overlong, surrogates, past U+10FFFF, lone continuation bytes,
// cut-off sequences), and an exhaustive comparison with a decoder written here from the
// bit patterns rather than from the lead-byte ranges the code uses.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/utf8.h"

namespace uringscope {
namespace {

struct LengthCase {
  std::string bytes;
  std::size_t length;  // expected utf8_sequence_length(bytes, 0)
  const char* what;
};

// Lets a case hold NUL and any other byte.
std::string bytes(std::initializer_list<unsigned> values) {
  std::string s;
  for (unsigned v : values) s.push_back(static_cast<char>(v));
  return s;
}

TEST(Utf8SequenceLength, ValidBoundariesOfEachLength) {
  const std::vector<LengthCase> cases = {
      {bytes({0x00}), 1, "U+0000"},
      {bytes({0x41}), 1, "U+0041 'A'"},
      {bytes({0x7f}), 1, "U+007F, last 1-byte"},
      {bytes({0xc2, 0x80}), 2, "U+0080, first 2-byte"},
      {bytes({0xc3, 0xa9}), 2, "U+00E9"},
      {bytes({0xdf, 0xbf}), 2, "U+07FF, last 2-byte"},
      {bytes({0xe0, 0xa0, 0x80}), 3, "U+0800, first 3-byte"},
      {bytes({0xe1, 0x80, 0x80}), 3, "U+1000"},
      {bytes({0xec, 0xbf, 0xbf}), 3, "U+CFFF"},
      {bytes({0xed, 0x80, 0x80}), 3, "U+D000"},
      {bytes({0xed, 0x9f, 0xbf}), 3, "U+D7FF, last before the surrogates"},
      {bytes({0xee, 0x80, 0x80}), 3, "U+E000, first after the surrogates"},
      {bytes({0xef, 0xbf, 0xbd}), 3, "U+FFFD"},
      {bytes({0xef, 0xbf, 0xbf}), 3, "U+FFFF, last 3-byte"},
      {bytes({0xf0, 0x90, 0x80, 0x80}), 4, "U+10000, first 4-byte"},
      {bytes({0xf0, 0x9f, 0x98, 0x80}), 4, "U+1F600"},
      {bytes({0xf1, 0x80, 0x80, 0x80}), 4, "U+40000"},
      {bytes({0xf3, 0xbf, 0xbf, 0xbf}), 4, "U+FFFFF"},
      {bytes({0xf4, 0x80, 0x80, 0x80}), 4, "U+100000"},
      {bytes({0xf4, 0x8f, 0xbf, 0xbf}), 4, "U+10FFFF, last code point"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(utf8_sequence_length(c.bytes, 0), c.length) << c.what;
}

TEST(Utf8SequenceLength, RejectsWhatRfc3629Forbids) {
  const std::vector<LengthCase> cases = {
      // Continuation bytes cannot start a sequence.
      {bytes({0x80}), 0, "lone 80"},
      {bytes({0xbf}), 0, "lone BF"},
      {bytes({0x80, 0x80}), 0, "80 80"},
      // Overlong forms: a code point in more bytes than it needs.
      {bytes({0xc0, 0x80}), 0, "overlong U+0000 (C0 80)"},
      {bytes({0xc0, 0xaf}), 0, "overlong '/' (C0 AF)"},
      {bytes({0xc1, 0xbf}), 0, "overlong U+007F (C1 BF)"},
      {bytes({0xe0, 0x80, 0x80}), 0, "overlong U+0000 in 3 bytes"},
      {bytes({0xe0, 0x9f, 0xbf}), 0, "overlong U+07FF in 3 bytes"},
      {bytes({0xf0, 0x80, 0x80, 0x80}), 0, "overlong U+0000 in 4 bytes"},
      {bytes({0xf0, 0x8f, 0xbf, 0xbf}), 0, "overlong U+FFFF in 4 bytes"},
      // UTF-16 surrogates are not characters.
      {bytes({0xed, 0xa0, 0x80}), 0, "U+D800, first surrogate"},
      {bytes({0xed, 0xad, 0xbf}), 0, "U+DB7F"},
      {bytes({0xed, 0xb0, 0x80}), 0, "U+DC00"},
      {bytes({0xed, 0xbf, 0xbf}), 0, "U+DFFF, last surrogate"},
      {bytes({0xed, 0xa0, 0xbd, 0xed, 0xb2, 0xa9}), 0, "CESU-8 pair for U+1F4A9"},
      // Past U+10FFFF, and the lead bytes only such code points (or 5/6-byte forms) use.
      {bytes({0xf4, 0x90, 0x80, 0x80}), 0, "U+110000"},
      {bytes({0xf4, 0xbf, 0xbf, 0xbf}), 0, "U+13FFFF"},
      {bytes({0xf5, 0x80, 0x80, 0x80}), 0, "F5 lead"},
      {bytes({0xf7, 0xbf, 0xbf, 0xbf}), 0, "U+1FFFFF (F7 lead)"},
      {bytes({0xf8, 0x88, 0x80, 0x80, 0x80}), 0, "5-byte form"},
      {bytes({0xfc, 0x84, 0x80, 0x80, 0x80, 0x80}), 0, "6-byte form"},
      {bytes({0xfe}), 0, "FE"},
      {bytes({0xff}), 0, "FF"},
      // Cut off: the input ends before the sequence does.
      {bytes({0xc2}), 0, "2-byte lead alone"},
      {bytes({0xe0, 0xa0}), 0, "3-byte sequence missing 1"},
      {bytes({0xe1}), 0, "3-byte lead alone"},
      {bytes({0xf0, 0x90, 0x80}), 0, "4-byte sequence missing 1"},
      {bytes({0xf4, 0x8f}), 0, "4-byte sequence missing 2"},
      {bytes({0xf1}), 0, "4-byte lead alone"},
      // A byte that should continue the sequence does not.
      {bytes({0xc2, 0x41}), 0, "C2 then ASCII"},
      {bytes({0xc2, 0xc0}), 0, "C2 then a lead byte"},
      {bytes({0xc3, 0xc3, 0xa9}), 0, "C3 then a new sequence"},
      {bytes({0xe1, 0x41, 0x80}), 0, "3-byte, second byte ASCII"},
      {bytes({0xe1, 0x80, 0x41}), 0, "3-byte, third byte ASCII"},
      {bytes({0xe1, 0x80, 0xc0}), 0, "3-byte, third byte C0"},
      {bytes({0xf1, 0x80, 0x80, 0x7f}), 0, "4-byte, fourth byte 7F"},
      {bytes({0xf1, 0x80, 0xff, 0x80}), 0, "4-byte, third byte FF"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(utf8_sequence_length(c.bytes, 0), c.length) << c.what;
}

TEST(Utf8SequenceLength, MeasuresFromTheGivenIndex) {
  const std::string s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";  // a, U+00E9, U+20AC, U+1F600
  EXPECT_EQ(utf8_sequence_length(s, 0), 1u);
  EXPECT_EQ(utf8_sequence_length(s, 1), 2u);
  EXPECT_EQ(utf8_sequence_length(s, 2), 0u) << "inside U+00E9";
  EXPECT_EQ(utf8_sequence_length(s, 3), 3u);
  EXPECT_EQ(utf8_sequence_length(s, 4), 0u) << "inside U+20AC";
  EXPECT_EQ(utf8_sequence_length(s, 6), 4u);
  EXPECT_EQ(utf8_sequence_length(s, 9), 0u) << "last byte of U+1F600";
}

TEST(Utf8SequenceLength, StopsAtTheEndOfTheViewNotOfTheBuffer) {
  // The bytes after the view are a valid continuation; they must not be read.
  const std::string whole = "\xc3\xa9\xe2\x82\xac";
  EXPECT_EQ(utf8_sequence_length(std::string_view(whole).substr(0, 1), 0), 0u);
  EXPECT_EQ(utf8_sequence_length(std::string_view(whole).substr(2, 2), 0), 0u);
  EXPECT_EQ(utf8_sequence_length(std::string_view(whole).substr(2, 3), 0), 3u);
}

// RFC 3629 section 3, written from the bit patterns: the number of leading 1 bits gives
// the length, every later byte is 10xxxxxx, and the decoded value must need exactly that
// many bytes, lie below U+110000 and not be a surrogate.
std::optional<std::size_t> reference_length(std::string_view s) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  std::size_t n;
  uint32_t cp;
  if ((b0 & 0x80) == 0) return 1;
  if ((b0 & 0xe0) == 0xc0) {
    n = 2, cp = b0 & 0x1f;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3, cp = b0 & 0x0f;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4, cp = b0 & 0x07;
  } else {
    return std::nullopt;
  }
  if (s.size() < n) return std::nullopt;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[k]);
    if ((b & 0xc0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3f);
  }
  const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return std::nullopt;
  return n;
}

TEST(Utf8SequenceLength, AgreesWithABitPatternDecoderOnEveryThreeByteInput) {
  std::string s(3, '\0');
  std::size_t mismatches = 0;
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned c = 0; c < 256; ++c) {
        s[0] = static_cast<char>(a), s[1] = static_cast<char>(b), s[2] = static_cast<char>(c);
        const std::size_t want = reference_length(s).value_or(0);
        if (utf8_sequence_length(s, 0) != want && ++mismatches <= 5)
          ADD_FAILURE() << std::hex << "bytes " << a << ' ' << b << ' ' << c << ": want " << want;
      }
  EXPECT_EQ(mismatches, 0u);
}

TEST(Utf8SequenceLength, AgreesWithABitPatternDecoderOnFourByteLeads) {
  // Every lead from F0 up and every second byte; later bytes at the edges of the
  // continuation range and just outside it.
  const unsigned edges[] = {0x00, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
  std::string s(4, '\0');
  std::size_t mismatches = 0;
  for (unsigned a = 0xf0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned c : edges)
        for (unsigned d : edges) {
          s = bytes({a, b, c, d});
          const std::size_t want = reference_length(s).value_or(0);
          if (utf8_sequence_length(s, 0) != want && ++mismatches <= 5)
            ADD_FAILURE() << std::hex << "bytes " << a << ' ' << b << ' ' << c << ' ' << d
                          << ": want " << want;
        }
  EXPECT_EQ(mismatches, 0u);
}

TEST(Utf8Replacement, IsUFFFDEncoded) {
  // U+FFFD = 1111 111111 111101 -> 1110'1111 10'111111 10'111101.
  EXPECT_EQ(kUtf8Replacement, bytes({0xef, 0xbf, 0xbd}));
  EXPECT_EQ(utf8_sequence_length(kUtf8Replacement, 0), 3u);
}

struct SanitizeCase {
  std::string in;
  std::string out;  // with "?" as the replacement
  const char* what;
};

TEST(Utf8Sanitize, ReplacesEachByteThatStartsNoSequence) {
  const std::vector<SanitizeCase> cases = {
      {"", "", "empty"},
      {"plain ascii", "plain ascii", "ASCII unchanged"},
      {std::string("a\0b", 3), std::string("a\0b", 3), "NUL is valid UTF-8"},
      {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
       "valid multibyte unchanged"},
      {"a\xffz", "a?z", "one invalid byte"},
      {"\x80\x80", "??", "two lone continuations"},
      {"\xc0\x80", "??", "overlong: both bytes replaced"},
      {"\xed\xa0\x80", "???", "surrogate: each byte replaced"},
      {"\xf4\x90\x80\x80", "????", "U+110000: each byte replaced"},
      // A comm is cut at 15 bytes, possibly inside a character.
      {"name\xe2\x82", "name??", "cut 3-byte sequence at the end"},
      {"x\xf0\x9f\x98", "x???", "cut 4-byte sequence at the end"},
      // The scan resumes at the very next byte, which may start a valid sequence.
      {"\xc3\xc3\xa9", "?\xc3\xa9", "bad lead then a good sequence"},
      {"\xe2\x82\xc3\xa9", "??\xc3\xa9", "cut sequence then a good one"},
      {"\xc2" "A", "?A", "ASCII after a lead is kept"},
  };
  for (const auto& c : cases) {
    std::string out;
    append_utf8_sanitized(out, c.in, "?");
    EXPECT_EQ(out, c.out) << c.what;
  }
}

TEST(Utf8Sanitize, AppendsToWhatIsThere) {
  std::string out = "prefix:";
  append_utf8_sanitized(out, "\xff" "ok", kUtf8Replacement);
  EXPECT_EQ(out, "prefix:\xef\xbf\xbdok");
  append_utf8_sanitized(out, "", kUtf8Replacement);
  EXPECT_EQ(out, "prefix:\xef\xbf\xbdok");
}

TEST(Utf8Sanitize, ReplacementMayBeLongerOrEmpty) {
  std::string escaped;
  append_utf8_sanitized(escaped, "a\xfe\xff", "\\x??");
  EXPECT_EQ(escaped, "a\\x??\\x??");
  std::string dropped;
  append_utf8_sanitized(dropped, "\x80" "a\xc0\xaf" "b\xed\xbf\xbf", "");
  EXPECT_EQ(dropped, "ab");
}

TEST(Utf8Sanitize, OutputIsAlwaysValidUtf8) {
  // Every two-byte input, sanitized with U+FFFD, decodes from start to end.
  std::string in(2, '\0');
  std::size_t bad = 0;
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b) {
      in[0] = static_cast<char>(a), in[1] = static_cast<char>(b);
      std::string out;
      append_utf8_sanitized(out, in, kUtf8Replacement);
      for (std::size_t i = 0; i < out.size();) {
        const std::size_t n = reference_length(std::string_view(out).substr(i)).value_or(0);
        if (n == 0) {
          ++bad;
          break;
        }
        i += n;
      }
    }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace uringscope
