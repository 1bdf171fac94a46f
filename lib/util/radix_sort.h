// An in-place sort of records by a double key: the plan's largest sort (the
// lane packing order of every compute slice, as 4-byte indexes whose keys are
// looked up) as an MSD radix sort, which takes a few passes over the records
// where a comparison sort takes log2(n) rounds of comparisons. In place
// (American flag sort), because the plan's memory is near its peak here: a
// second buffer, as an LSD radix sort needs, would raise it by the records'
// size.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace tracecompact {
namespace radix_detail {

// The key's bits as an unsigned integer in the key's order. -0.0 is 0.0 (they
// compare equal, so their order is the tie-break's); keys are never NaN.
inline uint64_t ordered_bits(double key) {
  if (key == 0) key = 0.0;
  uint64_t bits;
  std::memcpy(&bits, &key, sizeof bits);
  return bits >> 63 ? ~bits : bits | uint64_t{1} << 63;
}

// Below this many records a comparison sort is faster than another pass.
constexpr size_t kSmallRange = 64;
constexpr int kDigitBits = 8;
constexpr unsigned kDigits = 1u << kDigitBits;

// Sorts records whose ordered bits agree above bit `top` (exclusive) by the
// digits from there down; `top` is the highest bit in which they may differ.
template <typename Record, typename KeyOf, typename Less>
void sort_below_bit(Record* records, size_t n, int top, KeyOf& key_of, Less& less) {
  if (n <= kSmallRange || top < 0) {  // few records, or only equal keys left
    std::sort(records, records + n, less);
    return;
  }
  // The digit: the kDigitBits bits from `top` down (fewer at the bottom).
  const int shift = std::max(top + 1 - kDigitBits, 0);
  const uint64_t mask = (uint64_t{1} << (top + 1 - shift)) - 1;
  auto digit = [&](const Record& r) {
    return static_cast<unsigned>((ordered_bits(key_of(r)) >> shift) & mask);
  };
  size_t count[kDigits] = {};
  for (size_t i = 0; i < n; ++i) ++count[digit(records[i])];
  size_t end[kDigits], next[kDigits];
  size_t sum = 0;
  for (unsigned d = 0; d < kDigits; ++d) {
    next[d] = sum;
    sum += count[d];
    end[d] = sum;
  }
  // Each record swapped straight to the next free place of its digit.
  for (unsigned d = 0; d < kDigits; ++d) {
    while (next[d] < end[d]) {
      Record moving = std::move(records[next[d]]);
      for (unsigned to = digit(moving); to != d; to = digit(moving))
        std::swap(moving, records[next[to]++]);
      records[next[d]++] = std::move(moving);
    }
  }
  size_t begin = 0;
  for (unsigned d = 0; d < kDigits; begin = end[d], ++d)
    if (count[d] > 1) sort_below_bit(records + begin, count[d], shift - 1, key_of, less);
}

}  // namespace radix_detail

// Sorts [first, last) by key_of(record), a double (never NaN), records with
// equal keys by tie_less: the order std::sort gives with the combined
// comparison. Not stable (nor is std::sort): tie_less must order every tie.
template <typename Record, typename KeyOf, typename TieLess>
void radix_sort_by_double(Record* first, Record* last, KeyOf key_of, TieLess tie_less) {
  auto less = [&](const Record& a, const Record& b) {
    const double ka = key_of(a), kb = key_of(b);
    if (ka != kb) return ka < kb;
    return tie_less(a, b);
  };
  if (first == last) return;
  // The bits all keys share (a profiler's times share their high ones) are
  // skipped: the first digit is the highest bit in which two keys differ.
  uint64_t all_and = ~uint64_t{0}, all_or = 0;
  for (const Record* r = first; r != last; ++r) {
    const uint64_t bits = radix_detail::ordered_bits(key_of(*r));
    all_and &= bits;
    all_or |= bits;
  }
  const uint64_t differing = all_and ^ all_or;
  const int top = differing == 0 ? -1 : 63 - __builtin_clzll(differing);
  radix_detail::sort_below_bit(first, static_cast<size_t>(last - first), top, key_of, less);
}

}  // namespace tracecompact
