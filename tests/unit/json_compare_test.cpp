// The suite's JSON comparison reads both sides as the contract's trace_diff.py
// does (Python's json): numbers as correctly rounded doubles, a repeated key's
// last value, key order free, array order significant.
#include <catch2/catch.hpp>

#include "support/json_compare.h"

using testsupport::first_difference;

TEST_CASE("numbers compare as the doubles Python reads", "[compare]") {
  CHECK_FALSE(first_difference(R"({"a":1})", R"({"a":1.0})").has_value());
  CHECK_FALSE(first_difference(R"({"d":1e-07})", R"({"d":999999999999999955e-25})").has_value());
  CHECK_FALSE(first_difference(R"({"d":9.9999999999999995e-08})", R"({"d":1e-07})").has_value());
  CHECK(first_difference(R"({"d":0.1})", R"({"d":0.10000000000000002})").has_value());
  CHECK(first_difference(R"({"d":1})", R"({"d":"1"})").has_value());
}

TEST_CASE("a repeated key counts with its last value", "[compare]") {
  CHECK_FALSE(first_difference(R"({"k":1,"k":2})", R"({"k":2})").has_value());
  CHECK(first_difference(R"({"k":1,"k":2})", R"({"k":1})").has_value());
  CHECK_FALSE(first_difference(R"({"k":1})", R"({"k":"x","k":1})").has_value());
}

TEST_CASE("key order is free, array order is not, ignored paths are skipped", "[compare]") {
  CHECK_FALSE(first_difference(R"({"a":1,"b":[1,2]})", R"({"b":[1,2],"a":1})").has_value());
  CHECK(first_difference(R"({"b":[1,2]})", R"({"b":[2,1]})").has_value());
  CHECK(first_difference(R"({"a":1})", R"({"a":1,"b":2})").has_value());
  CHECK_FALSE(
      first_difference(R"({"a":1,"s":{"x":1}})", R"({"a":1,"s":{"x":2}})", {"s.x"}).has_value());
}
