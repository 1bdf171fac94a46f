// JSON's insignificant whitespace (RFC 8259: space, tab, line feed, carriage
// return), for the scanners that step over it by hand.
#pragma once

namespace tracecompact {

inline bool is_json_whitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// What may follow a number or literal inside an object or array: whitespace,
// ',', '}' or ']'.
inline bool ends_json_scalar(char c) {
  return is_json_whitespace(c) || c == ',' || c == '}' || c == ']';
}

}  // namespace tracecompact
