// The 64-byte block scanner must agree with a byte-by-byte reading of the
// same text, for every split point and random strings full of escapes.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "tokenizer/structure_scanner.h"

using namespace tracecompact;

namespace {

size_t scalar_value_end(const std::string& text) {
  bool in_string = false, escaped = false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (escaped) {
      escaped = false;
    } else if (in_string) {
      if (c == '\\') escaped = true;
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return text.size();
}

std::string random_value(std::mt19937_64& random, int depth = 0) {
  static const char* pieces[] = {"\\\\", "\\\"", "}",        "]",       "{",
                                 "[",    "a",    "\\\\\\\"", "\\u0041", " "};
  std::string out = random() % 2 ? "{" : "[";
  const bool object = out == "{";
  const int members = static_cast<int>(random() % 4);
  for (int m = 0; m < members; ++m) {
    if (m) out += ",";
    if (object) out += "\"k\":";
    if (depth < 3 && random() % 3 == 0) {
      out += random_value(random, depth + 1);
    } else {
      out += "\"";
      const int length = static_cast<int>(random() % 90);
      for (int k = 0; k < length; ++k) out += pieces[random() % 10];
      out += "\"";
    }
  }
  return out + (object ? "}" : "]");
}

}  // namespace

TEST_CASE("block scanner finds the same value end as a byte scanner", "[tokenizer]") {
  std::mt19937_64 random(7);
  for (int round = 0; round < 2000; ++round) {
    const std::string value = random_value(random);
    const std::string text = value + std::string(",{\"next\":1}") + std::string(128, ' ');
    const size_t want = scalar_value_end(text);
    REQUIRE(want == value.size());
    // Feed the scanner in two pieces split anywhere, as refills do.
    const size_t split = random() % (value.size() + 1);
    ScanState state;
    size_t got = scan_to_value_end(text.data(), 0, split, state);
    if (state.depth != 0 || got != split || split == 0) {
      if (!(state.depth == 0 && got <= split && split > 0))
        got = scan_to_value_end(text.data(), got, text.size() - 128, state);
    }
    INFO(value << " split " << split);
    CHECK(got == want);
  }
}
