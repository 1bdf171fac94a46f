#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <simdjson.h>

#include "json/number_format.h"
#include "plan/pp_arrows.h"

using namespace tracecompact;

TEST_CASE("messages print numbers like Python's float repr", "[format]") {
  CHECK(python_float_repr(-1) == "-1.0");
  CHECK(python_float_repr(0.5) == "0.5");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(123456789012345.0) == "123456789012345.0");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(0.00001) == "1e-05");
  CHECK(python_float_repr(-2.5e-7) == "-2.5e-07");
}

TEST_CASE("computed doubles always carry a fraction or exponent", "[format]") {
  CHECK(format_double(1) == "1.0");
  CHECK(format_double(1.5) == "1.5");
  CHECK(format_double(-0.0) == "-0.0");
  CHECK(format_double(1e20).find_first_of(".e") != std::string::npos);
}

TEST_CASE("PP names take ASCII digits and numeric stage and microbatch", "[pp]") {
  auto n = parse_pp_name("PP:01F00");
  CHECK(n.kind == PPName::Kind::kOperation);
  CHECK(n.stage == 1);
  CHECK(n.op == PPOp::kF);
  CHECK(n.microbatch == 0);
  CHECK(parse_pp_name("PP:3SEND_B12").op == PPOp::kSendB);
  CHECK(parse_pp_name("PP:3SEND_B12").microbatch == 12);
  CHECK(parse_pp_name("PP:2UNSHARD").kind == PPName::Kind::kUnshard);
  CHECK(parse_pp_name("PP:F0").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:0F").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:0F0 ").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:0X0").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:\xd9\xa1"
                      "F0")
            .kind == PPName::Kind::kNone);  // Arabic-Indic one
}

TEST_CASE("number tokens read exactly as a full parse reads them") {
  std::mt19937_64 random(7);
  const std::vector<std::string> fixed = {"0",
                                          "-0",
                                          "-0.0",
                                          "0.5",
                                          "1712195495225.968",
                                          "1.",
                                          "12e3",
                                          "1E-7",
                                          "0.001",
                                          "999999999999999",
                                          "9999999999999999",
                                          "123456789012.3456",
                                          "-42.125",
                                          "1712278563335.347",
                                          "9007199254740992",
                                          "9007199254740993",
                                          "900719925474099.2",
                                          "900719925474099.3",
                                          "9007199254.740993",
                                          "0.9007199254740993",
                                          "0.0000000000000001"};
  std::vector<std::string> tokens = fixed;
  for (int i = 0; i < 40000; ++i) {
    // 16 and 17 digits in all too: on both sides of the quick path's 2^53 limit.
    const uint64_t whole = random() % (i % 2 ? 10000000000000ull : 100000000000000000ull);
    const unsigned decimals = static_cast<unsigned>(random() % 9);
    std::string token = (random() % 4 == 0 ? "-" : "") + std::to_string(whole);
    if (decimals) {
      token += '.';
      for (unsigned d = 0; d < decimals; ++d) token += static_cast<char>('0' + random() % 10);
    }
    tokens.push_back(token);
  }
  for (const std::string& token : tokens) {
    double expected = 0;
    std::from_chars(token.data(), token.data() + token.size(), expected);
    const double got = read_number_token(token);
    INFO(token);
    REQUIRE(std::memcmp(&got, &expected, sizeof got) == 0);  // -0.0 included
  }
}

TEST_CASE("integer token checks take digits and minus signs only") {
  for (const char* yes : {"0", "7", "-0", "-12", "123456789012345678901234567890"})
    CHECK(is_integer_text(yes));
  for (const char* no : {"", "-", "--1", "1-", "1.0", "1e3", " 1", "1 ", "+1", "x", "0x1"})
    CHECK_FALSE(is_integer_text(no));
  // The looser check of a token pass 1 found as an integer: any mix of the two.
  for (const char* yes : {"", "0", "-12", "1-", "--"}) CHECK(has_only_integer_chars(yes));
  for (const char* no : {"1.0", "1e3", " 1", "x", "+1", "8x"})
    CHECK_FALSE(has_only_integer_chars(no));
  for (int c = 0; c < 256; ++c) {
    const char byte = static_cast<char>(c);
    const bool digit = byte >= '0' && byte <= '9';
    CHECK(has_only_integer_chars(std::string_view(&byte, 1)) == (digit || byte == '-'));
    CHECK(is_integer_text(std::string_view(&byte, 1)) == digit);
  }
}

TEST_CASE("a short plain number is one that simdjson takes as a finite double") {
  std::mt19937_64 random(11);
  const std::string alphabet = "0123456789-.eE+x ";
  std::vector<std::string> tokens = {"0",
                                     "-0",
                                     "-0.0",
                                     "01",
                                     "-",
                                     "1.",
                                     ".5",
                                     "1.5.",
                                     "--1",
                                     "1e5",
                                     "0.000000000000001",
                                     "1234567890123456",
                                     "123456789012345.123456789012345",
                                     "-9.0000000000000001"};
  for (int i = 0; i < 100000; ++i) {
    std::string token;
    const size_t length = 1 + random() % 8;
    for (size_t c = 0; c < length; ++c) {
      // Mostly digits, so that many tokens are numbers.
      token += random() % 3 ? static_cast<char>('0' + random() % 10)
                            : alphabet[random() % alphabet.size()];
    }
    tokens.push_back(token);
  }
  simdjson::ondemand::parser parser;
  size_t accepted = 0;
  for (const std::string& token : tokens) {
    const simdjson::padded_string padded("[" + token + "]");
    double value = 0;
    bool parses = false;
    auto document = parser.iterate(padded);
    simdjson::ondemand::array array;
    if (!document.get_array().get(array)) {
      for (auto element : array) {
        parses = !element.get_double().get(value) && std::isfinite(value);
        break;
      }
    }
    INFO(token);
    if (is_short_plain_number(token)) {
      ++accepted;
      REQUIRE(parses);
    }
  }
  CHECK(accepted > 10000);
}

TEST_CASE("doubles are written as text that reads back as the same double") {
  std::mt19937_64 random(11);
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.001,
                                0.1,
                                1e300,
                                -1e-300,
                                5e-324,
                                1712195495225.968,
                                9007199254740.991,
                                9007199254740993.0,
                                123.4565,
                                0.0005};
  for (int i = 0; i < 20000; ++i) {
    const double ts = static_cast<double>(random() % 10000000000000000ull) / 1000.0;
    const double offset = static_cast<double>(static_cast<int64_t>(random() % 2000000) - 1000000) /
                          (random() % 2 ? 1000.0 : 7.0);
    values.push_back(ts + offset);
    uint64_t bits = random();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    if (std::isfinite(any)) values.push_back(any);
  }
  for (const double value : values) {
    char text[64];
    const char* end = write_round_trip(value, text, text + sizeof text);
    double back = 0;
    const auto result = std::from_chars(text, end, back);
    INFO(std::string(static_cast<const char*>(text), end));
    REQUIRE(result.ptr == end);
    REQUIRE(std::memcmp(&back, &value, sizeof back) == 0);
  }
}

TEST_CASE("whole-nanosecond times print as floats that read back as the same double") {
  auto written = [](double value) {
    char text[32];
    const char* end = write_float_thousandths(value, text);
    return end ? std::string(static_cast<const char*>(text), end) : std::string("-");
  };
  CHECK(written(0.0) == "0.0");
  CHECK(written(12.0) == "12.0");  // a float, as the reference prints it
  CHECK(written(12.5) == "12.5");
  CHECK(written(0.001) == "0.001");
  CHECK(written(1712195495225.968) == "1712195495225.968");
  // Not k / 1000, negative, -0.0 or too large: left to the general printer.
  CHECK(written(0.1 + 0.2) == "-");
  CHECK(written(0.0005) == "-");
  CHECK(written(-12.5) == "-");
  CHECK(written(-0.0) == "-");
  CHECK(written(8925179430332.582) == "-");  // beyond 2^43: 0.001 apart may be one double
  CHECK(written(1e300) == "-");
  std::mt19937_64 random(13);
  int left_to_the_general_printer = 0;  // k * 1000 may round off k near 2^53
  for (int i = 0; i < 50000; ++i) {
    const double value = static_cast<double>(random() % 8796093022208000ull) / 1000.0;
    const std::string text = written(value);
    if (text == "-") {
      ++left_to_the_general_printer;
      continue;
    }
    double back = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), back);
    INFO(text);
    REQUIRE(result.ptr == text.data() + text.size());
    REQUIRE(std::memcmp(&back, &value, sizeof back) == 0);
    REQUIRE(text.find('.') != std::string::npos);
  }
  CHECK(left_to_the_general_printer < 500);
}

namespace {

// What the merge must write for ts + offset (spec 11): the float sum.
double float_sum(std::string_view token, const TimestampShift& shift) {
  double value = 0;
  std::from_chars(token.data(), token.data() + token.size(), value);
  return value + shift.offset_us;
}

}  // namespace

TEST_CASE("a shifted timestamp reads back as the float sum") {
  std::mt19937_64 random(5);
  size_t rounded_away = 0;
  for (int i = 0; i < 200000; ++i) {
    // Microsecond timestamps with 0-3 decimals around 2^43..2^53 thousandths,
    // where the float sum starts to round away from the exact decimal.
    const uint64_t k = random() % (uint64_t{1} << (40 + random() % 14));
    const unsigned decimals = static_cast<unsigned>(random() % 4);
    std::string token = std::to_string(k / 1000);
    if (decimals > 0) {
      const std::string fraction = std::to_string(1000 + k % 1000).substr(1, decimals);
      token += "." + fraction;
    }
    const uint64_t offset_ns = random() % 2 ? random() % 5000000000ull : random() % 1000;
    const TimestampShift shift = TimestampShift::from_nanoseconds(offset_ns);
    char text[32];
    const char* end = write_shifted_timestamp(token, shift, text);
    INFO(token << " + " << offset_ns << " ns");
    REQUIRE(end);  // every usual spelling takes the quick path
    double back = 0;
    const auto result = std::from_chars(text, end, back);
    INFO(std::string_view(text, end - text));
    REQUIRE(result.ptr == end);
    const double sum = float_sum(token, shift);
    REQUIRE(back == sum);
    // The exact decimal sum, k thousandths plus the nanoseconds.
    const uint64_t exact =
        std::stoull(token.substr(0, token.find('.'))) * 1000 +
        (decimals ? std::stoull(token.substr(token.find('.') + 1)) * (decimals == 1   ? 100
                                                                      : decimals == 2 ? 10
                                                                                      : 1)
                  : 0) +
        offset_ns;
    if (static_cast<double>(exact) / 1000.0 != sum) {
      ++rounded_away;  // then it is the float sum's shortest text
      char shortest[32];
      const char* shortest_end = std::to_chars(shortest, shortest + sizeof shortest, sum).ptr;
      if (sum < 0x1p43)
        CHECK(std::string_view(text, end - text) ==
              std::string_view(shortest, shortest_end - shortest));
    }
  }
  CHECK(rounded_away > 1000);  // both branches are taken
}

TEST_CASE("the shortest text of a double with a fraction is the one to_chars writes") {
  std::mt19937_64 random(17);
  std::vector<double> values = {1.5,
                                1.25,
                                1712195547172.7112,
                                4503599627370495.5,
                                1.0000000000000002,
                                2.0000000000000004,
                                123.456,
                                0.5e1 + 0.1};
  for (int i = 0; i < 300000; ++i) {
    switch (i % 3) {
      case 0: {  // timestamps plus offsets, as a merge shifts them
        const double ts = static_cast<double>(random() % 9000000000000000ull) / 1000.0;
        values.push_back(ts + static_cast<double>(random() % 5000000000ull) / 1000.0);
        break;
      }
      case 1: {  // any double from 1 to 2^53
        const uint64_t bits = (uint64_t{1023 + random() % 53} << 52) | (random() >> 12);
        double any;
        std::memcpy(&any, &bits, sizeof any);
        values.push_back(any);
        break;
      }
      default:  // few digits: short texts, trailing zeros
        values.push_back(static_cast<double>(random() % 100000000) /
                         static_cast<double>(uint64_t{1} << (random() % 20)));
    }
  }
  size_t written = 0;
  for (const double value : values) {
    char text[32];
    const char* end = write_shortest_fraction(value, text);
    if (!end) continue;
    ++written;
    char expected[32];
    const char* expected_end = std::to_chars(expected, expected + sizeof expected, value).ptr;
    INFO(std::string_view(expected, expected_end - expected));
    REQUIRE(std::string_view(text, end - text) ==
            std::string_view(expected, expected_end - expected));
  }
  CHECK(written > values.size() * 9 / 10);
  // Declined: below 1, whole numbers, powers of two, negatives.
  char text[32];
  for (const double value : {0.5, 0.001, 2.0, 1712195547172.0, 1024.0, -1.5, 0x1p52 + 1})
    CHECK(write_shortest_fraction(value, text) == nullptr);
}

namespace {

// The text write_shifted_timestamp writes for `token` + `ns`, or "general".
std::string shifted(std::string_view token, uint64_t ns) {
  char text[32];
  const char* end = write_shifted_timestamp(token, TimestampShift::from_nanoseconds(ns), text);
  return end ? std::string(static_cast<const char*>(text), end) : std::string("general");
}

}  // namespace

TEST_CASE("a shifted timestamp spells the exact decimal sum") {
  CHECK(shifted("5937498262893.062", 1500) == "5937498262894.562");
  CHECK(shifted("100", 250) == "100.25");
  CHECK(shifted("0.5", 500) == "1");
  CHECK(shifted("7.25", 0) == "7.25");
  // Spellings it leaves to the general path.
  for (const char* token : {"-1.5", "1e3", "1.5e3", "1.2345", "01", "1.", ".5", "", "x",
                            "123456789012345.5", "9007199254740.993"})
    CHECK(shifted(token, 1000) == "general");
  // An offset beyond 2^53 ns is never added as an integer.
  CHECK(shifted("1", uint64_t{1} << 60) == "general");
}

TEST_CASE("Kineto's 13.3-digit timestamps are read and written eight digits at a time") {
  CHECK(shifted("1712195495225.968", 0) == "1712195495225.968");
  CHECK(shifted("1712195495225.900", 0) == "1712195495225.9");
  CHECK(shifted("1712195495225.000", 0) == "1712195495225");
  CHECK(shifted("1712195495225.968", 32) == "1712195495226");
  CHECK(shifted("9999999999999.999", 1) == "general");  // beyond 2^53 thousandths
  for (const char* token : {"17121954952a5.968", "0712195495225.968", "1712195495225,968",
                            "1712195495225.9x8", "171219549522.5968"})
    CHECK(shifted(token, 1000) == "general");
  std::mt19937_64 random(30);
  for (int i = 0; i < 100000; ++i) {
    // 16 digits, the point before the last three, zeros kept.
    const uint64_t k = 1000000000000000 + random() % 8000000000000000;
    char token[18];
    std::snprintf(token, sizeof token, "%013llu.%03llu", static_cast<unsigned long long>(k / 1000),
                  static_cast<unsigned long long>(k % 1000));
    const uint64_t ns = random() % 4 == 0 ? 0 : random() % 100000000000;
    const std::string text_out = shifted(token, ns);
    INFO(token << " + " << ns << " ns -> " << text_out);
    REQUIRE(text_out != "general");
    double back = 0;
    std::from_chars(text_out.data(), text_out.data() + text_out.size(), back);
    const double want = float_sum(token, TimestampShift::from_nanoseconds(ns));
    REQUIRE(std::memcmp(&back, &want, sizeof back) == 0);
    if (ns == 0) {  // the token itself, trailing zeros of the fraction dropped
      std::string trimmed = token;
      while (trimmed.back() == '0') trimmed.pop_back();
      if (trimmed.back() == '.') trimmed.pop_back();
      REQUIRE(text_out == trimmed);
    }
  }
}
