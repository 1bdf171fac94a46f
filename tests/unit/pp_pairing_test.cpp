// The lazy pairing must take exactly the pairs, in exactly the order, of the
// reference's exhaustive candidate sort — ties included.
#include <catch2/catch.hpp>

#include <random>

#include "plan/pp_pairing.h"

using namespace tracecompact;

TEST_CASE("lazy and exhaustive nearest-midpoint pairing agree on random inputs with ties", "[pp]") {
  std::mt19937_64 random(12345);
  for (int round = 0; round < 3000; ++round) {
    const size_t sources = random() % 9, destinations = random() % 9;
    const int spread = 1 + static_cast<int>(random() % 12);  // small spreads: many equal mids
    std::vector<double> s(sources), d(destinations);
    for (auto& v : s) v = static_cast<double>(random() % spread) * 0.5;
    for (auto& v : d) v = static_cast<double>(random() % spread) * 0.5;
    INFO("round " << round);
    CHECK(pair_nearest_midpoints_lazy(s, d) == pair_nearest_midpoints_exhaustive(s, d));
  }
}

TEST_CASE("pairing 10000 repeated blocks stays fast", "[pp]") {
  std::vector<double> s(10000), d(10000);
  for (size_t i = 0; i < s.size(); ++i) {
    s[i] = static_cast<double>(i) * 10;
    d[i] = static_cast<double>(i) * 10 + 3;
  }
  const auto pairs = pair_nearest_midpoints(s, d);
  REQUIRE(pairs.size() == 10000);
  CHECK(pairs.front() == std::make_pair(size_t{0}, size_t{0}));
}
