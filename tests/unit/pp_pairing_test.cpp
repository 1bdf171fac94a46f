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

TEST_CASE("lazy pairing ties distances that round alike, as the reference's doubles do", "[pp]") {
  // Far from a source, neighbouring mids can round to the same distance (at
  // 3.4e15 a double's step is 0.5): those destinations tie, taken by index.
  std::mt19937_64 random(777);
  for (int round = 0; round < 3000; ++round) {
    const size_t sources = 1 + random() % 6, destinations = 1 + random() % 40;
    std::vector<double> s(sources), d(destinations);
    const bool far_sources = random() % 2;
    for (auto& v : s)
      v = far_sources ? 3.4243909910378e15 + static_cast<double>(random() % 64) * 0.5
                      : static_cast<double>(random() % 4000) * 0.125;
    for (auto& v : d) v = 3.4243909910378e15 + static_cast<double>(random() % 64) * 0.5;
    INFO("round " << round);
    CHECK(pair_nearest_midpoints_lazy(s, d) == pair_nearest_midpoints_exhaustive(s, d));
  }
  // The case that showed it: distances 1e20 and more from tiny mids all round alike.
  const std::vector<double> s = {1e20, 1e20 + 65536};
  const std::vector<double> d = {3, 1, 2, 0.5, 7};
  CHECK(pair_nearest_midpoints_lazy(s, d) == pair_nearest_midpoints_exhaustive(s, d));
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
