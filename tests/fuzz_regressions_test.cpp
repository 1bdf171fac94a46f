// Inputs the fuzzers once found troublesome: each must end in output or a
// tracecompact::Error, never a crash (the asan preset runs this too).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/json_compare.h"
#include "tracecompact/tracecompact.h"

TEST_CASE("fuzzer regressions end in output or a clean error", "[fuzz]") {
  const auto dir =
      std::filesystem::path(TRACECOMPACT_FIXTURES).parent_path() / "fuzz" / "regressions";
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    ++seen;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::string output;
    INFO(entry.path().filename().string());
    try {
      tracecompact::compact_buffer(bytes, output);
    } catch (const tracecompact::Error&) {
    }
  }
  CHECK(seen >= 1);
}
