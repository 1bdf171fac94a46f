// Number text: shortest round-trip doubles and Python-style reprs for messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tracecompact {

// Shortest text that reads back as the same double, always with a fraction or an
// exponent so that it can never be mistaken for an integer ("1.0", "1e+20").
std::string format_double(double value);

// Python's float repr ("-1.0", "1e+16", "0.0001", "1e-05"), used in messages that
// the reference prints with f-strings.
std::string python_float_repr(double value);

// The double a JSON number token spells, exactly as std::from_chars reads it;
// quick for the usual timestamp spelling (digits below 2^53 in all, no exponent).
double read_number_token(std::string_view token);

// Writes a finite double as text that reads back as the same double (not always
// the shortest); quick for values that are the nearest double to some k / 1000,
// as timestamps in microseconds with nanosecond digits are. Returns the end.
char* write_round_trip(double value, char* first, char* last);

// Writes a double of at least 1 that is not a whole number as the shortest text
// that reads back as it, the very text std::to_chars writes, in a fraction of
// to_chars' time; returns nullptr, leaving it to to_chars, for any other value
// and the rare one whose nearest decimal is a tie. `first` has room for 24
// characters.
char* write_shortest_fraction(double value, char* first);

// Writes a double below 2^43 that is the nearest double to some k / 1000 (k
// not negative, the value not -0.0) as its shortest text, printed as a float
// ("12.5", "12.0"); returns nullptr for any other value, which the caller then
// prints in full. `first` has room for 24 characters.
char* write_float_thousandths(double value, char* first);

// A merge's time shift by a whole number of nanoseconds (spec 11: ts + offset,
// offset = nanoseconds / 1000.0).
struct TimestampShift {
  double offset_us = 0;  // nanoseconds / 1000.0, as the sum is computed
  uint64_t offset_ns = 0;
  bool exact = false;  // offset_ns holds the nanoseconds (below 2^53)
  static TimestampShift from_nanoseconds(uint64_t nanoseconds);
};

// Writes `token` + shift.offset_us for the usual spelling of a timestamp
// (non-negative, at most three decimals), adding whole nanoseconds instead of
// reading and printing a double: the text reads back as the very double that
// the float sum gives (where the sum rounds away from the exact decimal, the
// sum's write_round_trip text). Returns nullptr ("take the general path") for
// any other spelling. `first` has room for 25 characters.
char* write_shifted_timestamp(std::string_view token, const TimestampShift& shift, char* first);

// True where every byte is a digit or '-': the loose check that a token pass 1
// found as an integer is one still (the input has not changed since). A loop:
// find_first_not_of calls memchr once per byte.
inline bool has_only_integer_chars(std::string_view token) {
  for (const char c : token)
    if (!((c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

// An optional '-', then one digit or more.
inline bool is_integer_text(std::string_view token) {
  if (!token.empty() && token[0] == '-') token.remove_prefix(1);
  if (token.empty()) return false;
  for (const char c : token)
    if (c < '0' || c > '9') return false;
  return true;
}

// True for a token in JSON's number grammar with at most 15 digits before and 15
// after the point and no exponent: always a finite double, so a validator may take
// it as it stands. False says only "look closer" (exponents, long or bad tokens).
inline bool is_short_plain_number(std::string_view token) {
  size_t i = 0;
  const size_t n = token.size();
  auto is_digit = [&](size_t at) { return at < n && token[at] >= '0' && token[at] <= '9'; };
  if (i < n && token[i] == '-') ++i;
  if (!is_digit(i)) return false;
  if (token[i] == '0') {
    ++i;
  } else {
    const size_t first = i;
    while (is_digit(i)) ++i;
    if (i - first > 15) return false;
  }
  if (i == n) return true;
  if (token[i] != '.') return false;
  const size_t first_decimal = ++i;
  while (is_digit(i)) ++i;
  return i == n && i > first_decimal && i - first_decimal <= 15;
}

// The integer token at the start of `text` when simdjson refuses it for its size:
// 2^64 or more (up to 2^64 - 1 it reads as unsigned), or below -2^63, followed
// by a delimiter or the end. Valid JSON that the tool cannot hold in the 64 bits
// it reads integers into; a malformed number (a leading zero, a letter after the
// digits) is not one.
std::optional<std::string_view> oversized_integer(std::string_view text);

// True when a JSON number token has neither fraction nor exponent (spec 0).
inline bool is_integer_token(std::string_view token) {
  return token.find_first_of(".eE") == std::string_view::npos;
}

}  // namespace tracecompact
