#include "json/number_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "json/whitespace.h"

namespace tracecompact {
namespace {

constexpr double kPowersOfTen[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7, 1e8,
                                   1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
constexpr uint64_t kExactIntegers = uint64_t{1} << 53;  // every integer below is a double

// k / 1000 as "<k / 1000>[.<up to three digits, trailing zeros dropped>]".
char* write_thousandths(uint64_t k, char* out) {
  out = std::to_chars(out, out + 20, k / 1000).ptr;
  const unsigned thousandths = static_cast<unsigned>(k % 1000);
  if (thousandths != 0) {
    *out++ = '.';
    const char digits[3] = {static_cast<char>('0' + thousandths / 100),
                            static_cast<char>('0' + thousandths / 10 % 10),
                            static_cast<char>('0' + thousandths % 10)};
    size_t kept = 3;
    while (digits[kept - 1] == '0') --kept;
    for (size_t d = 0; d < kept; ++d) *out++ = digits[d];
  }
  return out;
}

// The thousandths a token "digits[.d[d[d]]]" spells (no sign, no leading zero,
// no exponent), if below 2^53; else nullopt.
std::optional<uint64_t> read_thousandths(std::string_view token) {
  constexpr uint64_t kScale[] = {1000, 100, 10, 1};
  const size_t n = token.size();
  size_t i = 0;
  uint64_t whole = 0;
  while (i < n && i < 14 && token[i] >= '0' && token[i] <= '9')
    whole = whole * 10 + static_cast<uint64_t>(token[i++] - '0');
  if (i == 0 || (token[0] == '0' && i > 1)) return std::nullopt;
  uint64_t fraction = 0;
  size_t decimals = 0;
  if (i < n) {
    if (token[i++] != '.') return std::nullopt;
    for (; i < n && decimals < 3 && token[i] >= '0' && token[i] <= '9'; ++i, ++decimals)
      fraction = fraction * 10 + static_cast<uint64_t>(token[i] - '0');
    if (i != n || decimals == 0) return std::nullopt;
  }
  const uint64_t k = whole * 1000 + fraction * kScale[decimals];
  if (k >= kExactIntegers) return std::nullopt;
  return k;
}

}  // namespace

double read_number_token(std::string_view token) {
  // [-]digits[.digits]: when the digits as an integer k stay below 2^53, k and
  // 10^f are exact doubles, so the correctly rounded k / 10^f is the double
  // nearest the decimal, which is what a full parse returns. (Microsecond
  // timestamps with nanosecond digits have 16 digits.)
  const bool negative = !token.empty() && token[0] == '-';
  size_t i = negative ? 1 : 0;
  uint64_t digits = 0;
  size_t count = 0, fraction = 0;
  bool in_fraction = false;
  for (; i < token.size(); ++i) {
    const char c = token[i];
    if (c >= '0' && c <= '9') {
      digits = digits * 10 + static_cast<uint64_t>(c - '0');
      ++count;
      fraction += in_fraction;
    } else if (c == '.' && !in_fraction) {
      in_fraction = true;
    } else {
      break;
    }
  }
  if (i == token.size() && count > 0 && count <= 16 && digits <= kExactIntegers) {
    const double magnitude = static_cast<double>(digits) / kPowersOfTen[fraction];
    return negative ? -magnitude : magnitude;
  }
  double value = 0;
  std::from_chars(token.data(), token.data() + token.size(), value);
  return value;
}

namespace {

// The k (|k| below 2^53) whose k / 1000 rounds to `value`, if there is one
// (not for -0.0). Then the decimal k/1000 reads back as `value`: parsing and
// division both round the same exact quotient.
std::optional<int64_t> exact_thousandths(double value) {
  const double scaled = value * 1000.0;
  if (!(std::fabs(scaled) < static_cast<double>(kExactIntegers)) ||
      (value == 0 && std::signbit(value)))
    return std::nullopt;
  const int64_t k = std::llround(scaled);
  if (static_cast<double>(k) / 1000.0 != value) return std::nullopt;
  return k;
}

}  // namespace

char* write_round_trip(double value, char* first, char* last) {
  if (const auto k = exact_thousandths(value); k && last - first >= 24) {
    char* out = first;
    if (*k < 0) *out++ = '-';
    return write_thousandths(static_cast<uint64_t>(*k < 0 ? -*k : *k), out);
  }
  return std::to_chars(first, last, value).ptr;
}

char* write_float_thousandths(double value, char* first) {
  // Below 2^43 doubles are closer than 0.001, so no other decimal of three
  // places or fewer reads back as `value`: k/1000 is the shortest text.
  if (!(value < 0x1p43) || std::signbit(value)) return nullptr;
  const auto k = exact_thousandths(value);
  if (!k) return nullptr;
  char* out = write_thousandths(static_cast<uint64_t>(*k), first);
  if (*k % 1000 == 0) {  // a float, not an integer
    *out++ = '.';
    *out++ = '0';
  }
  return out;
}

TimestampShift TimestampShift::from_nanoseconds(uint64_t nanoseconds) {
  TimestampShift shift;
  shift.offset_us = static_cast<double>(nanoseconds) / 1000.0;
  shift.exact = nanoseconds < kExactIntegers;
  shift.offset_ns = shift.exact ? nanoseconds : 0;
  return shift;
}

char* write_shifted_timestamp(std::string_view token, const TimestampShift& shift, char* first) {
  if (!shift.exact) return nullptr;
  const auto k = read_thousandths(token);
  if (!k || *k + shift.offset_ns >= kExactIntegers) return nullptr;
  // k and k + offset_ns are exact doubles, and each quotient by 1000.0 is the
  // double nearest its decimal: the first is what reading the token gives,
  // the second what reading the printed sum gives. They must meet the float sum.
  const double sum = static_cast<double>(*k) / 1000.0 + shift.offset_us;
  const uint64_t shifted = *k + shift.offset_ns;
  if (static_cast<double>(shifted) / 1000.0 != sum) return nullptr;
  return write_thousandths(shifted, first);
}

std::string format_double(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";  // 'n': nan/inf never reach here
  return text;
}

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // Shortest digits in scientific form, then laid out the way Python does:
  // fixed notation for exponents in [-4, 16), scientific otherwise.
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string_view sci(buffer, static_cast<size_t>(result.ptr - buffer));
  const size_t e_pos = sci.find('e');
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + (sci[e_pos + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                  exponent);
  std::string digits;
  for (char c : sci.substr(0, e_pos))
    if (c >= '0' && c <= '9') digits.push_back(c);
  std::string out;
  if (value < 0 || std::signbit(value)) out.push_back('-');
  if (exponent >= 16 || exponent < -4) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    char exp_text[16];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    out.append(exp_text);
    return out;
  }
  if (exponent < 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out.append(digits);
    return out;
  }
  const size_t int_len = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_len) {
    out.append(digits);
    out.append(int_len - digits.size(), '0');
    out.append(".0");
    return out;
  }
  out.append(digits, 0, int_len);
  out.push_back('.');
  out.append(digits, int_len, std::string::npos);
  return out;
}

std::optional<std::string_view> oversized_integer(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  size_t end = negative ? 1 : 0;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  const std::string_view digits = text.substr(negative ? 1 : 0, end - (negative ? 1 : 0));
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  if (end < text.size() && !ends_json_scalar(text[end])) return std::nullopt;
  const std::string_view limit = negative ? "9223372036854775809" : "18446744073709551616";
  const bool too_large =
      digits.size() != limit.size() ? digits.size() > limit.size() : digits >= limit;
  if (!too_large) return std::nullopt;
  return text.substr(0, end);
}

}  // namespace tracecompact
