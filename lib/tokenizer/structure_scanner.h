// Finds where a JSON object or array ends, 64 bytes at a time: quote,
// backslash and bracket masks per block, escapes resolved with carries and
// string interiors by a prefix XOR (the method of simdjson's stage 1), so the
// cost does not grow with the number of strings in an event.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace tracecompact {

// Scanner state at a byte position, carried across blocks and refills.
struct ScanState {
  bool in_string = false;
  bool escaped = false;  // the next byte is escaped by a backslash
  int64_t depth = 0;     // open brackets
};

namespace scan_detail {

struct BlockMasks {
  uint64_t quote, backslash, open, close;
};

inline BlockMasks block_masks(const char* p) {
  BlockMasks m{};
#ifdef __AVX2__
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i open = _mm256_set1_epi8('{');   // '[' | 0x20 == '{'
  const __m256i close = _mm256_set1_epi8('}');  // ']' | 0x20 == '}'
  const __m256i case_bit = _mm256_set1_epi8(0x20);
  for (int half = 0; half < 2; ++half) {
    const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * half));
    const __m256i folded = _mm256_or_si256(block, case_bit);
    const int shift = 32 * half;
    auto bits = [](__m256i hits) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hits)));
    };
    m.quote |= bits(_mm256_cmpeq_epi8(block, quote)) << shift;
    m.backslash |= bits(_mm256_cmpeq_epi8(block, backslash)) << shift;
    m.open |= bits(_mm256_cmpeq_epi8(folded, open)) << shift;
    m.close |= bits(_mm256_cmpeq_epi8(folded, close)) << shift;
  }
#else
  for (int k = 0; k < 64; ++k) {
    const char c = p[k];
    const uint64_t bit = uint64_t{1} << k;
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if ((c | 0x20) == '{') m.open |= bit;
    if ((c | 0x20) == '}') m.close |= bit;
  }
#endif
  return m;
}

// Bit k set when an odd number of bits are set at positions <= k.
inline uint64_t prefix_xor(uint64_t bits) {
  bits ^= bits << 1;
  bits ^= bits << 2;
  bits ^= bits << 4;
  bits ^= bits << 8;
  bits ^= bits << 16;
  bits ^= bits << 32;
  return bits;
}

// Characters escaped by a backslash (simdjson's branchless escape finder).
inline uint64_t escaped_bits(uint64_t backslash, bool& next_is_escaped) {
  const uint64_t carry = next_is_escaped ? 1 : 0;
  if (backslash == 0) {
    next_is_escaped = false;
    return carry;
  }
  constexpr uint64_t kOddBits = 0xAAAAAAAAAAAAAAAAull;
  const uint64_t potential_escape = backslash & ~carry;
  const uint64_t maybe_escaped = potential_escape << 1;
  const uint64_t even_series = (maybe_escaped | kOddBits) - potential_escape;
  const uint64_t escape_and_terminal = even_series ^ kOddBits;
  const uint64_t escaped = escape_and_terminal ^ (backslash | carry);
  next_is_escaped = ((escape_and_terminal & backslash) >> 63) != 0;
  return escaped;
}

}  // namespace scan_detail

// Scans data[i, end) from `state`. Returns the index just past the bracket
// that closes the value (depth back to 0), or `end` with `state` describing
// the position `end`. Reads up to 63 bytes past `end` (the caller's slack).
inline size_t scan_to_value_end(const char* data, size_t i, size_t end, ScanState& state) {
  using namespace scan_detail;
  for (; i + 64 <= end; i += 64) {
    const BlockMasks m = block_masks(data + i);
    if (state.in_string && m.quote == 0 && m.backslash == 0 && !state.escaped) continue;
    const uint64_t quotes = m.quote & ~escaped_bits(m.backslash, state.escaped);
    const uint64_t inside = prefix_xor(quotes) ^ (state.in_string ? ~uint64_t{0} : 0);
    state.in_string = (inside >> 63) != 0;
    uint64_t brackets = (m.open | m.close) & ~inside;
    while (brackets) {
      const int bit = __builtin_ctzll(brackets);
      if ((m.open >> bit) & 1) {
        ++state.depth;
      } else if (--state.depth == 0) {
        return i + static_cast<size_t>(bit) + 1;
      }
      brackets &= brackets - 1;
    }
  }
  for (; i < end; ++i) {
    const char c = data[i];
    if (state.escaped) {
      state.escaped = false;
    } else if (c == '\\') {
      state.escaped = true;
    } else if (c == '"') {
      state.in_string = !state.in_string;
    } else if (!state.in_string) {
      if (c == '{' || c == '[') {
        ++state.depth;
      } else if ((c == '}' || c == ']') && --state.depth == 0) {
        return i + 1;
      }
    }
  }
  return end;
}

}  // namespace tracecompact
