// The tokenizer must hand out the same parts whatever the chunk size, so that
// events straddling chunk boundaries are found whole.
#include <catch2/catch.hpp>

#include "source/byte_source.h"
#include "support/json_compare.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"

using namespace tracecompact;

namespace {

std::vector<std::string> parts(const std::string& text, size_t chunk) {
  MemorySource source(text);
  TraceTokenizer tokenizer(source, chunk);
  std::vector<std::string> out;
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    out.push_back(std::string(item.key) + "=" + std::string(item.text));
  }
  return out;
}

}  // namespace

TEST_CASE("events and top-level values are the same for every chunk size", "[tokenizer]") {
  const std::string text = testsupport::read_file(std::string(TRACECOMPACT_FIXTURES) +
                                                  "/golden/unit_03_merge/ranks/rank0_trace.json");
  const auto reference = parts(text, 1 << 20);
  REQUIRE(reference.size() > 10);
  for (size_t chunk : {1, 2, 3, 7, 64, 333}) CHECK(parts(text, chunk) == reference);
}

TEST_CASE("strings with escaped quotes and brackets do not end an event", "[tokenizer]") {
  const std::string text =
      R"({"traceEvents":[{"name":"a\"}]\\","x":"{["},{"name":"b"}],"k":"v\\"})";
  const auto got = parts(text, 5);
  REQUIRE(got.size() == 4);
  CHECK(got[1] == R"(={"name":"a\"}]\\","x":"{["})");
  CHECK(got[3] == R"(k="v\\")");
}

TEST_CASE("structural errors name what and where", "[tokenizer]") {
  auto error_of = [](const std::string& text) {
    try {
      parts(text, 4);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("") == "input is empty: expected a JSON trace");
  CHECK(error_of("[]") == "top-level JSON value must be an object at byte offset 0");
  CHECK(error_of(R"({"traceEvents":{}})") == "traceEvents must be a list");
  CHECK(error_of(R"({"traceEvents":[1]})").find("event 0 is not a JSON object") == 0);
  CHECK(error_of(R"({"traceEvents":[{}]} x)").find("unexpected data after the end") == 0);
  CHECK(error_of(R"({"traceEvents":[{"a":"b)").find("input ends unexpectedly inside event 0") == 0);
  CHECK(error_of(R"({"traceEvents":[{},]})").find("event 1 is not a JSON object") == 0);
}
