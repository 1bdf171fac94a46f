// The identity hash: stable, and sensitive to every byte, to the length (the
// tail is zero-padded) and to the block boundaries.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "util/hash128.h"

namespace tracecompact {

TEST_CASE("hash128 is deterministic and tells close texts apart") {
  CHECK(hash128("{\"name\":\"PP:0F0\"}") == hash128("{\"name\":\"PP:0F0\"}"));
  std::set<Hash128> seen;
  std::string text;
  for (int length = 0; length < 80; ++length) {
    CHECK(seen.insert(hash128(text)).second);                         // every prefix differs
    CHECK(seen.insert(hash128(text + std::string(1, '\0'))).second);  // zero padding is not free
    text += static_cast<char>('a' + length % 26);
  }
  std::string flipped = text;
  for (size_t i = 0; i < text.size(); ++i) {
    flipped[i] ^= 1;
    CHECK(hash128(flipped) != hash128(text));
    flipped[i] ^= 1;
  }
}

}  // namespace tracecompact
