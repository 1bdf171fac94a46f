#include <catch2/catch.hpp>

#include "util/chunked_vector.h"

TEST_CASE("chunked vector keeps every element across growing and full chunks", "[util]") {
  tracecompact::ChunkedVector<uint64_t> values;
  const size_t n = 1200000;  // past the growing chunks into full 2 MiB ones
  for (size_t i = 0; i < n; ++i) values.push_back(i * 3);
  REQUIRE(values.size() == n);
  bool all = true;
  for (size_t i = 0; i < n; ++i) all = all && values[i] == i * 3;
  CHECK(all);
  size_t k = 0;
  for (uint64_t v : values) all = all && v == 3 * k++;
  CHECK(all);
  CHECK(k == n);
}
