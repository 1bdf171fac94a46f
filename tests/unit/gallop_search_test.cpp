#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "util/gallop_search.h"

using tracecompact::gallop_partition_point;

namespace {

// Sorted values with long runs of equal ones, as slice starts often have.
std::vector<int> sorted_with_ties(std::mt19937& random, size_t size) {
  std::vector<int> values(size);
  std::uniform_int_distribution<int> value(0, static_cast<int>(size / 3) + 1);
  for (int& v : values) v = value(random);
  std::sort(values.begin(), values.end());
  return values;
}

}  // namespace

TEST_CASE("gallop_partition_point finds std::partition_point's answer from any hint", "[gallop]") {
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    const auto values = sorted_with_ties(random, random() % 40);
    const size_t n = values.size();
    std::uniform_int_distribution<size_t> position(0, n);
    const size_t begin = position(random);
    const size_t end = std::uniform_int_distribution<size_t>(begin, n)(random);
    for (int target = -1; target <= static_cast<int>(n / 3) + 2; ++target) {
      for (const bool strict : {false, true}) {
        auto is_past = [&](size_t p) { return strict ? target < values[p] : values[p] >= target; };
        const size_t expected = static_cast<size_t>(
            std::partition_point(values.begin() + begin, values.begin() + end,
                                 [&](int v) { return strict ? !(target < v) : v < target; }) -
            values.begin());
        // Every hint in the range, and ones outside it, which are clamped.
        for (size_t hint = 0; hint <= n + 2; ++hint) {
          INFO("round " << round << " target " << target << " hint " << hint);
          REQUIRE(gallop_partition_point(begin, end, hint, is_past) == expected);
        }
      }
    }
  }
}

TEST_CASE("gallop_partition_point probes near its hint when the answer is near", "[gallop]") {
  std::vector<int> values(1 << 20);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i);
  size_t probes = 0;
  auto is_past = [&](size_t p) {
    ++probes;
    return values[p] >= 500001;
  };
  REQUIRE(gallop_partition_point(0, values.size(), 500000, is_past) == 500001);
  // A binary search over the whole range takes 20; two steps out and back do it.
  REQUIRE(probes <= 4);
}
