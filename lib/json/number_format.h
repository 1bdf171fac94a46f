// Number text: shortest round-trip doubles and Python-style reprs for messages.
#pragma once

#include <cstdint>
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
// quick for the usual timestamp spelling (up to 15 digits, at most 3 decimals).
double read_number_token(std::string_view token);

// Writes a finite double as text that reads back as the same double (not always
// the shortest); quick for values that are the nearest double to some k / 1000,
// as timestamps in microseconds with nanosecond digits are. Returns the end.
char* write_round_trip(double value, char* first, char* last);

// True when a JSON number token has neither fraction nor exponent (spec 0).
inline bool is_integer_token(std::string_view token) {
  return token.find_first_of(".eE") == std::string_view::npos;
}

}  // namespace tracecompact
