// Every case of fixtures/golden (copied from shared/golden, produced by the
// reference compactor) must come out the same JSON, with --verify on. The
// cases of fixtures/real (real profiler traces; see its README) have the same
// layout, their expected output gzipped.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "tracecompact/tracecompact.h"

namespace fs = std::filesystem;
using testsupport::first_difference;
using testsupport::read_file;

namespace {

struct GoldenCase {
  std::string name;
  fs::path dir;
  bool merge;
  std::string input;
};

std::vector<GoldenCase> cases_in(const char* folder) {
  std::vector<GoldenCase> cases;
  for (const auto& entry : fs::directory_iterator(fs::path(TRACECOMPACT_FIXTURES) / folder)) {
    if (!entry.is_directory()) continue;
    const std::string text = read_file((entry.path() / "case.json").string());
    const bool merge = text.find("\"merge\"") != std::string::npos;
    const auto input_at = text.find("\"input\"");
    const auto open = text.find('"', text.find(':', input_at) + 1);
    const auto close = text.find('"', open + 1);
    cases.push_back({entry.path().filename().string(), entry.path(), merge,
                     text.substr(open + 1, close - open - 1)});
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.name < b.name; });
  return cases;
}

std::vector<GoldenCase> golden_cases() {
  return cases_in("golden");
}

// expected.json, or expected.json.gz where the output is too large to keep plain.
std::string expected_path(const GoldenCase& c) {
  const fs::path plain = c.dir / "expected.json";
  return fs::exists(plain) ? plain.string() : (c.dir / "expected.json.gz").string();
}

std::string run_case(const GoldenCase& c, const std::string& output, unsigned threads = 0) {
  tracecompact::Options options;
  options.input = (c.dir / c.input).string();
  options.output = output;
  options.merge_pp_ranks = c.merge;
  options.overwrite = true;
  options.verify = true;
  options.threads = threads;
  return tracecompact::run(options).summary_json;
}

void check_case_matches_expected(const GoldenCase& c, testsupport::TempDir& dir) {
  const std::string output = dir.path(c.name + ".json");
  const std::string summary = run_case(c, output);
  const auto trace_diff = first_difference(read_file(expected_path(c)), read_file(output),
                                           {"cuda_graph_stream_compaction.source"});
  INFO("trace: " << trace_diff.value_or("equal"));
  CHECK_FALSE(trace_diff.has_value());
  const auto summary_diff = first_difference(read_file((c.dir / "summary.json").string()), summary,
                                             {"input", "output", "verified"});
  INFO("summary: " << summary_diff.value_or("equal"));
  CHECK_FALSE(summary_diff.has_value());
  CHECK(summary.find("\"verified\": true") != std::string::npos);
}

// Each case of the folder (at least `at_least`) in a section of its own.
void check_cases_in(const char* folder, size_t at_least) {
  const auto cases = cases_in(folder);
  REQUIRE(cases.size() >= at_least);
  testsupport::TempDir dir;
  for (const auto& c : cases) {
    SECTION(c.name) {
      check_case_matches_expected(c, dir);
    }
  }
}

}  // namespace

TEST_CASE("golden cases match the reference output and summary", "[golden]") {
  check_cases_in("golden", 15);
}

TEST_CASE("real profiler traces match the independent reference's output", "[golden][real]") {
  check_cases_in("real", 3);
}

TEST_CASE("random traces match the reference's output", "[golden][random]") {
  check_cases_in("random", 7);
}

TEST_CASE("output is byte-identical for any thread count", "[golden]") {
  testsupport::TempDir dir;
  auto cases = golden_cases();
  for (auto& c : cases_in("real")) cases.push_back(std::move(c));
  for (auto& c : cases_in("random")) cases.push_back(std::move(c));
  for (const auto& c : cases) {
    SECTION(c.name) {
      run_case(c, dir.path("one.json"), 1);
      run_case(c, dir.path("four.json"), 4);
      CHECK(read_file(dir.path("one.json")) == read_file(dir.path("four.json")));
    }
  }
}

TEST_CASE("gzip output decompresses to the same trace", "[golden][gzip]") {
  testsupport::TempDir dir;
  for (const auto& c : golden_cases()) {
    if (c.name != "syn_single_gz") continue;
    run_case(c, dir.path("plain.json"));
    run_case(c, dir.path("packed.json.gz"));
    const std::string packed_bytes = [&] {
      std::ifstream in(dir.path("packed.json.gz"), std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    REQUIRE(packed_bytes.size() > 2);
    CHECK(static_cast<unsigned char>(packed_bytes[0]) == 0x1f);
    CHECK(read_file(dir.path("plain.json")) == read_file(dir.path("packed.json.gz")));
  }
}
