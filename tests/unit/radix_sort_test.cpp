#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "util/radix_sort.h"

using tracecompact::radix_sort_by_double;

namespace {

struct Record {
  double key;
  double tie;
  uint32_t index;
};

bool full_less(const Record& a, const Record& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.tie != b.tie) return a.tie < b.tie;
  return a.index < b.index;
}

void sort_and_compare(std::vector<Record> records) {
  std::vector<Record> expected = records;
  std::sort(expected.begin(), expected.end(), full_less);
  radix_sort_by_double(
      records.data(), records.data() + records.size(), [](const Record& r) { return r.key; },
      [](const Record& a, const Record& b) {
        if (a.tie != b.tie) return a.tie < b.tie;
        return a.index < b.index;
      });
  REQUIRE(records.size() == expected.size());
  for (size_t i = 0; i < records.size(); ++i) {
    INFO("position " << i);
    REQUIRE(records[i].index == expected[i].index);
  }
}

// Keys drawn from `pick`, with few distinct tie values so that equal keys meet
// equal ties and the index decides.
template <typename Pick>
std::vector<Record> records_of(std::mt19937_64& random, size_t n, Pick pick) {
  std::vector<Record> records(n);
  for (uint32_t i = 0; i < n; ++i)
    records[i] = {pick(random), static_cast<double>(random() % 3), i};
  return records;
}

}  // namespace

TEST_CASE("radix_sort_by_double orders as the comparison sort does", "[radix]") {
  std::mt19937_64 random(11);
  SECTION("profiler-like times: large, close, with a fraction") {
    for (const size_t n : {0, 1, 2, 63, 64, 65, 1000, 200000}) {
      sort_and_compare(records_of(random, n, [](std::mt19937_64& r) {
        return 1.7e12 + static_cast<double>(r() % 5000000) / 1000.0;
      }));
    }
  }
  SECTION("many equal keys") {
    sort_and_compare(records_of(random, 100000,
                                [](std::mt19937_64& r) { return static_cast<double>(r() % 7); }));
  }
  SECTION("signs, zeros of both signs, tiny and huge magnitudes") {
    const double special[] = {0.0,
                              -0.0,
                              1.0,
                              -1.0,
                              std::numeric_limits<double>::denorm_min(),
                              -std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::max(),
                              std::numeric_limits<double>::lowest(),
                              std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              1e-300,
                              -1e300,
                              123456789.125};
    sort_and_compare(records_of(random, 50000, [&](std::mt19937_64& r) {
      return r() % 2 ? special[r() % std::size(special)]
                     : std::ldexp(static_cast<double>(r() % 1000) - 500.0,
                                  static_cast<int>(r() % 200) - 100);
    }));
  }
  SECTION("already sorted and reversed") {
    std::vector<Record> ascending(100000);
    for (uint32_t i = 0; i < ascending.size(); ++i) ascending[i] = {i * 0.5, 0, i};
    sort_and_compare(ascending);
    std::reverse(ascending.begin(), ascending.end());
    sort_and_compare(ascending);
  }
}
