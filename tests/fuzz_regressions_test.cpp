// Inputs the fuzzers once found troublesome: each must end in output or a
// tracecompact::Error, never a crash (the asan preset runs this too), and pass
// 1 must end alike on one thread and on workers reading stretches (what
// fuzz_stretches compares: one of them once made the two report differently).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "index/index_pass.h"
#include "support/json_compare.h"
#include "tracecompact/tracecompact.h"

namespace {

// How pass 1 ended: the fault's message, or what it counted.
std::string pass1_outcome(const std::string& bytes, unsigned workers) {
  try {
    const tracecompact::TraceIndex index =
        tracecompact::build_index(tracecompact::TraceInput::from_memory(bytes), workers);
    return "read " + std::to_string(index.event_count) + " events, " +
           std::to_string(index.slices.size()) + " slices, " +
           std::to_string(index.annotations.size()) + " annotations";
  } catch (const tracecompact::Error& error) {
    return error.what();
  }
}

}  // namespace

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
    CHECK(pass1_outcome(bytes, 0) == pass1_outcome(bytes, 2));
  }
  CHECK(seen >= 1);
}
