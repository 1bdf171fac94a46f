// Canonical digests (json/canonical_digest.h) tell values apart exactly as
// their canonical texts (spec 0) do: equal digests for equal texts, different
// digests for different texts. Checked on hand-picked spellings and on random
// values drawn from small alphabets (so that many pairs share a text), through
// both event readers, against json::append_canonical's text.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "json/event_parser.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

// The canonical text of a JSON value, as json::append_canonical writes it.
std::string canonical_text(const std::string& value) {
  const std::string wrapped = "[" + value + "]";
  simdjson::padded_string padded(wrapped);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document = parser.iterate(padded);
  simdjson::ondemand::array array = document.get_array();
  std::string out;
  for (auto element : array) {
    simdjson::ondemand::value v = element.value();
    REQUIRE(json::append_canonical(v, out, 0) == simdjson::SUCCESS);
  }
  return out;
}

// An annotation carrying `value` in its args: its identity digest is the
// value's (the rest is the same for every value).
std::string annotation_with(const std::string& value) {
  return R"({"ph": "X", "cat": "gpu_user_annotation", "name": "n", "pid": 1, "tid": 2, )"
         R"("ts": 3, "dur": 4, "args": {"v": )" +
         value + "}}";
}

Hash128 identity_of(const std::string& event, EventParser::Reader reader) {
  EventParser parser(reader);
  parser.parse(event, {0, 0});
  return parser.annotation_identity();
}

struct Digested {
  std::string value;
  std::string text;  // canonical
  Hash128 digest;
};

Digested digest_value(const std::string& value) {
  INFO(value);
  const std::string event = annotation_with(value);
  const Hash128 quick = identity_of(event, EventParser::Reader::kQuick);
  const Hash128 on_demand = identity_of(event, EventParser::Reader::kOnDemand);
  CHECK(quick == on_demand);
  return {value, canonical_text(value), quick};
}

// Every pair: same digest exactly when same canonical text.
void check_pairs(const std::vector<Digested>& values) {
  size_t mismatches = 0, equal_texts = 0;
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t j = i + 1; j < values.size(); ++j) {
      const bool same_text = values[i].text == values[j].text;
      equal_texts += same_text;
      if (same_text != (values[i].digest == values[j].digest)) {
        ++mismatches;
        UNSCOPED_INFO(values[i].value << " vs " << values[j].value);
      }
    }
  CHECK(mismatches == 0);
  CHECK(equal_texts > 0);  // the pairs that must meet are there
}

TEST_CASE("canonical digests follow canonical texts on hand-picked spellings", "[json]") {
  const std::vector<std::string> spellings = {
      "1",
      "1.0",
      "1.00",
      "1e0",
      "1E+0",
      "10",
      "1e1",
      "10.0",
      "-0",
      "0",
      "-0.0",
      "0.0",
      "0e5",
      "9223372036854775807",
      "9223372036854775808",
      "18446744073709551615",
      "18446744073709551616",
      "-9223372036854775808",
      "-9223372036854775809",
      "123456789012345678901234567890",
      "0.1",
      "1e-7",
      "1.7976931348623157e308",
      "5e-324",
      "\"a\"",
      "\"\\u0061\"",
      "\"\"",
      "\"a\\\"b\"",
      "\"\\\\\"",
      "\"\\u00e9\"",
      "\"\xc3\xa9\"",
      "\"\\n\"",
      "\"\\u000a\"",
      "\"\\/\"",
      "\"/\"",
      "\"1\"",
      "true",
      "false",
      "null",
      "[]",
      "{}",
      "[1,2]",
      "[2,1]",
      "[1, 2]",
      "[[]]",
      "[{}]",
      "{\"a\":1,\"b\":2}",
      "{\"b\":2,\"a\":1}",
      "{\"a\":1,\"a\":2}",
      "{\"a\":2}",
      "{\"a\":2,\"a\":1}",
      "{\"a\":1}",
      "{\"\\u0061\":1}",
      "{\"a\":{\"b\":[1,{\"c\":null}]}}",
      "{\"a\":{\"b\":[1.0,{\"c\":null}]}}",
      "{\"a\":{\"b\":[1,{\"c\":null}]},\"a\":{\"b\":[1,{\"c\":null}]}}",
      "{\"ab\":1}",
      "{\"a\":1,\"b\":1}",
      "{\"abcdefghijklmnopq\":1}",
      "{\"abcdefghijklmnop\":1}",
      "{\"abcdefghijklmnop\\u0000\":1}",
      "{\"\":0}",
      "{\"\":0.0}"};
  std::vector<Digested> values;
  for (const auto& spelling : spellings) values.push_back(digest_value(spelling));
  check_pairs(values);
}

// A random value over small alphabets: keys that repeat and collide after
// unescaping, numbers that are one double in several spellings, and nesting.
std::string random_value(std::mt19937& rng, int depth) {
  auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  static const std::vector<std::string> kScalars = {"1",
                                                    "1.0",
                                                    "1e0",
                                                    "-0.0",
                                                    "0",
                                                    "0.0",
                                                    "2",
                                                    "2.0",
                                                    "9223372036854775808",
                                                    "18446744073709551616",
                                                    "\"x\"",
                                                    "\"\\u0078\"",
                                                    "\"y\"",
                                                    "\"\"",
                                                    "true",
                                                    "false",
                                                    "null"};
  static const std::vector<std::string> kKeys = {"\"a\"", "\"b\"", "\"\\u0061\"", "\"\""};
  const int kind = depth >= 3 ? 0 : std::uniform_int_distribution<int>(0, 3)(rng);
  if (kind <= 1) return pick(kScalars);
  const int count = std::uniform_int_distribution<int>(0, 3)(rng);
  std::string out = kind == 2 ? "[" : "{";
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ",";
    if (kind == 3) out += pick(kKeys) + ":";
    out += random_value(rng, depth + 1);
  }
  return out + (kind == 2 ? "]" : "}");
}

TEST_CASE("canonical digests follow canonical texts on random values", "[json]") {
  std::mt19937 rng(20261207);
  std::vector<Digested> values;
  for (int i = 0; i < 600; ++i) values.push_back(digest_value(random_value(rng, 0)));
  check_pairs(values);
}

TEST_CASE("canonical digests keep the last of a repeated key in large objects too", "[json]") {
  // Past the pairwise comparison (32 members): the sorted path. `members`
  // members k0, k1, ... and then `tail`.
  auto object = [](int members, const std::string& tail) {
    std::string out = "{";
    for (int k = 0; k < members; ++k)
      out += "\"k" + std::to_string(k) + "\":" + std::to_string(k) + ",";
    return out + tail + "}";
  };
  const std::vector<Digested> values = {
      digest_value(object(40, "\"k5\":99")),   // k5 overridden
      digest_value(object(40, "\"k5\":5")),    // k5 repeated with its own value
      digest_value(object(39, "\"k39\":39")),  // the same 40 members, none repeated
      digest_value(object(40, "\"k40\":40")), digest_value(object(40, "\"k0\":0"))};
  CHECK(values[1].text == values[2].text);
  CHECK(values[0].text != values[2].text);
  check_pairs(values);
}

TEST_CASE("a slice's signature leaves out pid, tid, ts and args.stream only", "[json]") {
  auto slice = [](const std::string& pid, const std::string& ts, const std::string& dur,
                  const std::string& stream) {
    return R"({"ph": "X", "cat": "kernel", "name": "k", "pid": )" + pid + R"(, "tid": )" + stream +
           R"(, "ts": )" + ts + R"(, "dur": )" + dur + R"(, "args": {"stream": )" + stream +
           R"(, "correlation": 5}})";
  };
  auto signature = [](const std::string& event, EventParser::Reader reader) {
    EventParser parser(reader);
    parser.parse(event, {0, 0});
    return parser.slice_signature();
  };
  for (const auto reader : {EventParser::Reader::kQuick, EventParser::Reader::kOnDemand}) {
    const Hash128 base = signature(slice("0", "10.5", "2.0", "7"), reader);
    CHECK(signature(slice("3", "99.25", "2.0", "12"), reader) == base);
    CHECK(signature(slice("0", "10.5", "2.5", "7"), reader) != base);
    CHECK(signature(slice("0", "10.5", "2", "7"), reader) != base);  // 2 and 2.0 are two texts
  }
}

}  // namespace
}  // namespace tracecompact
