// Text of the events the plan adds (spans, PP arrows), appended straight to the
// output stream: their keys and most strings are fixed, so they need neither a
// JSON writer's state nor escaping; numbers are spelled as the writer spells
// them (the same bytes as before).
#pragma once

#include <rapidjson/internal/dtoa.h>
#include <rapidjson/internal/itoa.h>

#include <cmath>
#include <string>
#include <string_view>

#include "json/number_format.h"
#include "tracecompact/error.h"
#include "writer/output_stream.h"

namespace tracecompact {

class EventText {
 public:
  explicit EventText(OutputStream& stream) : stream_(stream) {}

  // JSON text as it stands.
  EventText& raw(std::string_view text) {
    stream_.write(text.data(), text.size());
    return *this;
  }
  EventText& integer(int64_t value) {
    char digits[24];
    const char* end = rapidjson::internal::i64toa(value, digits);
    stream_.write(digits, static_cast<size_t>(end - digits));
    return *this;
  }
  EventText& unsigned_integer(uint64_t value) {
    char digits[24];
    const char* end = rapidjson::internal::u64toa(value, digits);
    stream_.write(digits, static_cast<size_t>(end - digits));
    return *this;
  }
  // A computed time (as write_time: a finite double, shortest spelling; times
  // that are whole nanoseconds without Grisu's digit generation).
  EventText& time(double value) {
    if (!std::isfinite(value)) fail_input("a computed time is not a finite number");
    char digits[32];
    const char* end = write_float_thousandths(value, digits);
    if (!end) end = rapidjson::internal::dtoa(value, digits);
    stream_.write(digits, static_cast<size_t>(end - digits));
    return *this;
  }
  // A string the program itself names (an arrow's category, an operation's
  // name: letters and '_'), quoted without the escaping pass.
  EventText& plain_string(std::string_view text) { return raw("\"").raw(text).raw("\""); }
  EventText& string(std::string_view text) {
    scratch_.clear();
    append_quoted(text, scratch_);
    return raw(scratch_);
  }

  // `text` quoted and escaped as RapidJSON's writer does it (\b \t \n \f \r,
  // other control characters as \u00XX), so that the bytes stay the same.
  static void append_quoted(std::string_view text, std::string& out) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    out += '"';
    for (const char c : text) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && c != '"' && c != '\\') {
        out += c;
        continue;
      }
      out += '\\';
      switch (c) {
        case '"':
        case '\\':
          out += c;
          break;
        case '\b':
          out += 'b';
          break;
        case '\t':
          out += 't';
          break;
        case '\n':
          out += 'n';
          break;
        case '\f':
          out += 'f';
          break;
        case '\r':
          out += 'r';
          break;
        default:
          out += "u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 15];
          break;
      }
    }
    out += '"';
  }

 private:
  OutputStream& stream_;
  std::string scratch_;
};

}  // namespace tracecompact
