#include <catch2/catch.hpp>

#include <charconv>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>

#include "json/decimal_digits.h"

using namespace tracecompact;

namespace {

std::string to_chars_text(uint64_t value) {
  char text[24];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

std::string written(uint64_t value) {
  char text[32];
  return std::string(text, write_decimal(value, text));
}

}  // namespace

TEST_CASE("eight digits are read at once, and anything else is refused", "[digits]") {
  uint64_t value = 0;
  REQUIRE(read_eight_digits("12345678", value));
  CHECK(value == 12345678);
  REQUIRE(read_eight_digits("00000000", value));
  CHECK(value == 0);
  REQUIRE(read_eight_digits("99999999", value));
  CHECK(value == 99999999);
  // Each position in turn holds a byte just outside '0'..'9', or a point.
  for (size_t at = 0; at < 8; ++at)
    for (const char bad : {'/', ':', '.', '-', 'e', ' ', '\0', '\x80', '\xB0'}) {
      std::string text = "12345678";
      text[at] = bad;
      INFO(at << " " << static_cast<int>(static_cast<unsigned char>(bad)));
      CHECK_FALSE(read_eight_digits(text.data(), value));
    }
  std::mt19937_64 random(3);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t expected = random() % 100000000;
    char text[9];
    std::snprintf(text, sizeof text, "%08llu", static_cast<unsigned long long>(expected));
    REQUIRE(read_eight_digits(text, value));
    REQUIRE(value == expected);
  }
}

TEST_CASE("eight digits are written at once, leading zeros included", "[digits]") {
  auto word_text = [](uint32_t value) {
    const uint64_t word = eight_digits_word(value);
    return std::string(reinterpret_cast<const char*>(&word), 8);
  };
  CHECK(word_text(0) == "00000000");
  CHECK(word_text(7) == "00000007");
  CHECK(word_text(12345678) == "12345678");
  CHECK(word_text(99999999) == "99999999");
  // Every value below 10^8 in a stride that meets every digit in every place.
  for (uint32_t value = 0; value < 100000000; value += 9973) {
    char expected[9];
    std::snprintf(expected, sizeof expected, "%08u", value);
    REQUIRE(word_text(value) == expected);
  }
}

TEST_CASE("numbers are written in decimal as to_chars writes them", "[digits]") {
  std::vector<uint64_t> values = {0,
                                  1,
                                  9,
                                  10,
                                  99,
                                  100,
                                  99999999,
                                  100000000,
                                  100000001,
                                  1712195547172ull,
                                  9999999999999999ull,
                                  10000000000000000ull,
                                  UINT64_MAX};
  for (uint64_t power = 1; power < 10000000000000000000ull; power *= 10) {
    values.push_back(power - 1);
    values.push_back(power);
  }
  std::mt19937_64 random(5);
  for (int i = 0; i < 200000; ++i) values.push_back(random() >> (random() % 64));
  for (const uint64_t value : values) {
    INFO(value);
    REQUIRE(written(value) == to_chars_text(value));
  }
}
