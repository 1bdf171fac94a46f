// A 128-bit non-cryptographic hash (multiply-rotate mixing of two 64-bit lanes
// over 16-byte blocks, in the style of MurmurHash3's x64 variant). Canonical
// digests (json/canonical_digest.h), through which annotation identities are
// compared, are built from it: with 128 bits, an accidental collision among
// even billions of distinct values has a probability below 1e-20.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tracecompact {

struct Hash128 {
  uint64_t high;
  uint64_t low;
  auto operator<=>(const Hash128&) const = default;
};

namespace hash_detail {

inline uint64_t rotate_left(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

inline uint64_t finalize(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb53fe63ec3ull;
  k ^= k >> 33;
  return k;
}

constexpr uint64_t kC1 = 0x87c37b91114253d5ull;
constexpr uint64_t kC2 = 0x4cf5ad432745937full;

inline void mix_block(uint64_t& h1, uint64_t& h2, uint64_t k1, uint64_t k2) {
  k1 *= kC1;
  k1 = rotate_left(k1, 31);
  k1 *= kC2;
  h1 ^= k1;
  h1 = rotate_left(h1, 27);
  h1 += h2;
  h1 = h1 * 5 + 0x52dce729;
  k2 *= kC2;
  k2 = rotate_left(k2, 33);
  k2 *= kC1;
  h2 ^= k2;
  h2 = rotate_left(h2, 31);
  h2 += h1;
  h2 = h2 * 5 + 0x38495ab5;
}

// The two lanes mixed into each other and finalized: the digest.
inline Hash128 seal(uint64_t h1, uint64_t h2) {
  h1 += h2;
  h2 += h1;
  h1 = finalize(h1);
  h2 = finalize(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

// Mixes the 16 bytes at `block` (little-endian words, as the machine reads them).
inline void mix_bytes(uint64_t& h1, uint64_t& h2, const void* block) {
  uint64_t k[2];
  std::memcpy(k, block, sizeof k);
  mix_block(h1, h2, k[0], k[1]);
}

}  // namespace hash_detail

inline Hash128 hash128(std::string_view text, uint64_t seed = 0x9e3779b97f4a7c15ull) {
  using namespace hash_detail;
  uint64_t h1 = seed, h2 = ~seed;
  const char* p = text.data();
  size_t left = text.size();
  for (; left >= 16; p += 16, left -= 16) mix_bytes(h1, h2, p);
  // The tail, zero-padded to a block; the length below tells paddings apart.
  unsigned char tail[16] = {};
  std::memcpy(tail, p, left);
  mix_bytes(h1, h2, tail);
  h1 ^= text.size();
  h2 ^= text.size();
  return seal(h1, h2);
}

}  // namespace tracecompact
