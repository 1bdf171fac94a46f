// Inputs the fuzzers once found troublesome: each must end in output or a
// tracecompact::Error, never a crash (the asan preset runs this too), and pass
// 1 must end alike on one thread and on workers reading stretches (what
// fuzz_stretches compares: one of them once made the two report differently).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/index_fingerprint.h"
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
    CHECK(testsupport::index_fingerprint(bytes, 0) == testsupport::index_fingerprint(bytes, 2));
  }
  CHECK(seen >= 1);
}
