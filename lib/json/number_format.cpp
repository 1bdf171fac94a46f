#include "json/number_format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "json/decimal_digits.h"
#include "json/whitespace.h"

namespace tracecompact {
namespace {

constexpr double kPowersOfTen[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7, 1e8,
                                   1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
constexpr uint64_t kExactIntegers = uint64_t{1} << 53;  // every integer below is a double

// The characters of ".ddd" that k / 1000's fraction keeps, trailing zeros
// dropped: 0 for a whole number, else 2 to 4.
size_t fraction_chars(unsigned thousandths) {
  return thousandths == 0 ? 0 : thousandths % 100 == 0 ? 2 : thousandths % 10 == 0 ? 3 : 4;
}

// k / 1000 as "<k / 1000>[.<up to three digits, trailing zeros dropped>]";
// `out` has room for 24 characters.
char* write_thousandths(uint64_t k, char* out) {
  const unsigned thousandths = static_cast<unsigned>(k % 1000);
  // Kineto's timestamps: 13 whole digits and 3 decimals, written as two words
  // of eight digits, the second split by the point.
  constexpr uint64_t kSixteenDigits = 1000000000000000;
  if (k >= kSixteenDigits && k < 10 * kSixteenDigits) {
    const uint64_t high = eight_digits_word(static_cast<uint32_t>(k / 100000000));
    const uint64_t low = eight_digits_word(static_cast<uint32_t>(k % 100000000));
    const uint64_t fraction_word = low >> 40;  // the last three digits
    std::memcpy(out, &high, sizeof high);
    std::memcpy(out + 8, &low, sizeof low);
    out[13] = '.';
    std::memcpy(out + 14, &fraction_word, sizeof fraction_word);
    return out + 13 + fraction_chars(thousandths);
  }
  out = write_decimal(k / 1000, out);
  out[0] = '.';
  out[1] = static_cast<char>('0' + thousandths / 100);
  out[2] = static_cast<char>('0' + thousandths / 10 % 10);
  out[3] = static_cast<char>('0' + thousandths % 10);
  return out + fraction_chars(thousandths);
}

// The value of `count` ASCII digits at `p`, if all are digits.
bool read_digits(const char* p, size_t count, uint64_t& value) {
  uint64_t sum = 0;
  for (; count >= 8; p += 8, count -= 8) {
    uint64_t eight = 0;
    if (!read_eight_digits(p, eight)) return false;
    sum = sum * 100000000 + eight;
  }
  for (; count > 0; ++p, --count) {
    const unsigned digit = static_cast<unsigned>(*p - '0');
    if (digit > 9) return false;
    sum = sum * 10 + digit;
  }
  value = sum;
  return true;
}

// The thousandths a token "digits[.d[d[d]]]" spells (no sign, no leading zero,
// no exponent), if below 2^53; else nullopt.
std::optional<uint64_t> read_thousandths(std::string_view token) {
  constexpr uint64_t kScale[] = {1000, 100, 10, 1};
  const size_t n = token.size();
  // Kineto's spelling, three decimals: 13 whole digits read as two words of
  // eight digits, the second put together around the point (the token is
  // 17 bytes); fewer digits laid out as 16, zeros in front (2^53 thousandths
  // have 13 whole digits).
  if (n == 17 && token[13] == '.' && token[0] != '0') {
    uint64_t around_point, tail;
    std::memcpy(&around_point, token.data() + 8, sizeof around_point);  // 5 digits, '.', 2
    std::memcpy(&tail, token.data() + 9, sizeof tail);                  // its last 3 digits at 5-7
    const uint64_t low_digits = (around_point & 0x000000FFFFFFFFFF) | (tail & 0xFFFFFF0000000000);
    uint64_t high = 0, low = 0;
    if (!read_eight_digits(token.data(), high) ||
        !read_eight_digits(reinterpret_cast<const char*>(&low_digits), low))
      return std::nullopt;
    const uint64_t k = high * 100000000 + low;
    if (k >= kExactIntegers) return std::nullopt;
    return k;
  }
  if (n >= 5 && n <= 17 && token[n - 4] == '.') {
    const size_t whole_digits = n - 4;
    if (token[0] == '0' && whole_digits > 1) return std::nullopt;
    char digits[16];
    std::memset(digits, '0', sizeof digits);
    std::memcpy(digits + 13 - whole_digits, token.data(), whole_digits);
    std::memcpy(digits + 13, token.data() + n - 3, 3);
    uint64_t high = 0, low = 0;
    if (!read_eight_digits(digits, high) || !read_eight_digits(digits + 8, low))
      return std::nullopt;
    const uint64_t k = high * 100000000 + low;
    if (k >= kExactIntegers) return std::nullopt;
    return k;
  }
  size_t point = token.find('.');
  if (point == std::string_view::npos) point = n;
  const size_t decimals = point < n ? n - point - 1 : 0;
  if (point == 0 || point > 14 || (point < n && (decimals == 0 || decimals > 3)) ||
      (token[0] == '0' && point > 1))
    return std::nullopt;
  uint64_t whole = 0, fraction = 0;
  if (!read_digits(token.data(), point, whole) ||
      !read_digits(token.data() + point + 1, decimals, fraction))
    return std::nullopt;
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

// By integer arithmetic: value = M / 2^q exactly, and with d the fewest decimals
// for which 10^d > 2^q, decimals d apart are closer than the doubles, so the
// nearest decimal of d places reads back as the value. One of d - 1 places is at
// most one candidate (they are at least as far apart as the doubles): the
// nearest, if it reads back; trailing zeros dropped, it is the shortest text.
// nullptr where this does not hold or the nearest is a tie: to_chars decides.
char* write_shortest_fraction(double value, char* first) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const int biased_exponent = static_cast<int>(bits >> 52);  // the sign bit makes it >= 2048
  const uint64_t stored = bits & ((uint64_t{1} << 52) - 1);
  // A power of two has a nearer double below than above: not the rule here.
  if (biased_exponent == 0 || biased_exponent >= 0x7FF || stored == 0) return nullptr;
  const uint64_t mantissa = stored | uint64_t{1} << 52;
  const int q = 1075 - biased_exponent;  // value = mantissa / 2^q
  // From 1 up (to_chars writes smaller ones in scientific form where shorter).
  if (q < 1 || q > 52) return nullptr;
  static constexpr auto kTen = [] {
    std::array<uint64_t, 17> powers{};
    powers[0] = 1;
    for (size_t i = 1; i < powers.size(); ++i) powers[i] = powers[i - 1] * 10;
    return powers;
  }();
  int d = q * 3 / 10;  // at most q * log10(2)
  while (kTen[d] <= uint64_t{1} << q) ++d;
  for (int places = d - 1; places <= d; ++places) {
    if (places < 1) continue;
    const unsigned __int128 scaled = static_cast<unsigned __int128>(mantissa) * kTen[places];
    unsigned __int128 nearest = scaled >> q;
    const unsigned __int128 below = scaled - (nearest << q);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (q - 1);
    if (below == half) return nullptr;  // equally near two decimals
    if (below > half) ++nearest;
    const unsigned __int128 at = nearest << q;
    const unsigned __int128 off = at > scaled ? at - scaled : scaled - at;
    if (2 * off >= kTen[places]) continue;  // does not read back as the value
    const uint64_t digits = static_cast<uint64_t>(nearest);
    const uint64_t unit = kTen[places];
    uint64_t fraction = digits % unit;
    if (fraction == 0) return nullptr;  // a whole number
    int kept = places;
    while (fraction % 10 == 0) {
      fraction /= 10;
      --kept;
    }
    char* out = write_decimal(digits / unit, first);
    *out++ = '.';
    for (int i = kept - 1; i >= 0; --i, fraction /= 10)
      out[i] = static_cast<char>('0' + fraction % 10);
    return out + kept;
  }
  return nullptr;
}

char* write_round_trip(double value, char* first, char* last) {
  if (const auto k = exact_thousandths(value); k && last - first >= 24) {
    char* out = first;
    if (*k < 0) *out++ = '-';
    return write_thousandths(static_cast<uint64_t>(*k < 0 ? -*k : *k), out);
  }
  if (last - first >= 25) {
    char* out = first;
    if (value < 0) *out++ = '-';
    if (char* end = write_shortest_fraction(std::fabs(value), out)) return end;
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
  if (static_cast<double>(shifted) / 1000.0 == sum) return write_thousandths(shifted, first);
  // The sum rounds away from the exact decimal: its own text, as the general
  // path prints it.
  return write_round_trip(sum, first, first + 25);
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
