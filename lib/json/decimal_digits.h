// Eight decimal digits at a time, read or written with a few multiplications
// on one 64-bit word instead of a loop per digit: a merge reads and prints a
// 16-digit timestamp for nearly every event. Little-endian only (the first
// digit in the lowest byte), as are the machines the tool is built for.
#pragma once

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace tracecompact {

static_assert(std::endian::native == std::endian::little, "digit words are little-endian");

// The value of the eight ASCII digits at `p`, if all are digits (the checks
// and the folding of digit pairs are simdjson's for long mantissas).
inline bool read_eight_digits(const char* p, uint64_t& value) {
  uint64_t bytes;
  std::memcpy(&bytes, p, sizeof bytes);
  if (((bytes & 0xF0F0F0F0F0F0F0F0) | (((bytes + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) !=
      0x3333333333333333)
    return false;
  bytes -= 0x3030303030303030;
  bytes = bytes * 10 + (bytes >> 8);  // each even byte: two digits
  value = ((bytes & 0x000000FF000000FF) * (100 + (uint64_t{1000000} << 32)) +
           ((bytes >> 16) & 0x000000FF000000FF) * (1 + (uint64_t{10000} << 32))) >>
          32;
  return true;
}

// The eight ASCII digits of `value` (below 10^8, leading zeros included) as
// one word, the first digit in the lowest byte: the value split in halves of
// four digits, each half in pairs, each pair in digits, every lane at once.
inline uint64_t eight_digits_word(uint32_t value) {
  const uint64_t halves = value / 10000 | uint64_t{value % 10000} << 32;
  const uint64_t pairs_high = ((halves * 10486) >> 20) & (uint64_t{0x7F} << 32 | 0x7F);  // / 100
  const uint64_t pairs_low = halves - 100 * pairs_high;
  const uint64_t pairs = (pairs_low << 16) + pairs_high;
  uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000F;  // / 10 in each 16-bit lane
  tens += (pairs - 10 * tens) << 8;
  return tens + 0x3030303030303030;
}

// Writes `value` in decimal (the digits std::to_chars writes); `out` has room
// for 24 characters, some written past the returned end.
inline char* write_decimal(uint64_t value, char* out) {
  constexpr uint64_t kEightDigits = 100000000;
  auto write_up_to_eight = [](uint32_t v, char* at) {
    const int count = 1 + (v >= 10) + (v >= 100) + (v >= 1000) + (v >= 10000) + (v >= 100000) +
                      (v >= 1000000) + (v >= 10000000);
    const uint64_t word = eight_digits_word(v) >> (8 * (8 - count));  // no leading zeros
    std::memcpy(at, &word, sizeof word);
    return at + count;
  };
  if (value < kEightDigits) return write_up_to_eight(static_cast<uint32_t>(value), out);
  if (value >= kEightDigits * kEightDigits) return std::to_chars(out, out + 24, value).ptr;
  out = write_up_to_eight(static_cast<uint32_t>(value / kEightDigits), out);
  const uint64_t low = eight_digits_word(static_cast<uint32_t>(value % kEightDigits));
  std::memcpy(out, &low, sizeof low);
  return out + 8;
}

}  // namespace tracecompact
