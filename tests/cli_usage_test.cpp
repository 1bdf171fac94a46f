// The CLI surface of spec 12 on good input: stdin/stdout, gzip by content,
// multi-member gzip, default output names.
#include <catch2/catch.hpp>

#include <filesystem>

#include "support/cli_runner.h"
#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "support/trace_builder.h"

using namespace testsupport;
namespace fs = std::filesystem;

namespace {

std::string example() {
  return std::string(TRACECOMPACT_FIXTURES) + "/example/rank4_trace.json";
}

std::string reference_output(const TempDir& dir) {
  const CliOutcome result = run_cli({example(), "-o", dir.path("reference.json"), "--verify"});
  REQUIRE(result.exit_code == 0);
  return read_file(dir.path("reference.json"));
}

}  // namespace

TEST_CASE("stdin to stdout writes the trace on stdout and the summary on stderr", "[cli]") {
  TempDir dir;
  CliIo io;
  io.stdin_path = example();
  const CliOutcome result = run_cli({"-", "-o", "-"}, io);
  INFO(result.describe());
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.find("\"measured_slices\"") != std::string::npos);
  CHECK_FALSE(
      first_difference(reference_output(dir), result.out, {"cuda_graph_stream_compaction.source"})
          .has_value());
}

TEST_CASE("gzip on stdout and stdin input defaults to stdout", "[cli]") {
  TempDir dir;
  CliIo io;
  io.stdin_path = example();
  io.stdout_path = dir.path("out.json.gz");
  const CliOutcome result = run_cli({"-", "--gzip"}, io);
  INFO(result.describe());
  REQUIRE(result.exit_code == 0);
  const std::string bytes = read_bytes(dir.path("out.json.gz"));
  REQUIRE(bytes.size() > 2);
  CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);
  CHECK(read_file(dir.path("out.json.gz")) == reference_output(dir));
}

TEST_CASE("gzip input is recognised by content and read whole when multi-member", "[cli]") {
  TempDir dir;
  const std::string plain = read_bytes(example());
  const size_t half = plain.size() / 2;
  // Two members, and a name that does not say gzip.
  write_bytes(dir.path("trace.json"),
              gzip_member(plain.substr(0, half)) + gzip_member(plain.substr(half)));
  const CliOutcome result =
      run_cli({dir.path("trace.json"), "-o", dir.path("out.json"), "--verify"});
  INFO(result.describe());
  REQUIRE(result.exit_code == 0);
  CHECK(read_file(dir.path("out.json")) == reference_output(dir));
}

TEST_CASE("an output written over its own input is verified before it replaces it", "[cli]") {
  // Plain JSON under a .gz name, compacted onto that name: the output is gzip.
  // --verify reads the finished output before it is moved into place, so the
  // input it compares with is still the original (it once read the new gzip
  // bytes as the plain input they had replaced, failed, and removed the file).
  TempDir dir;
  const std::string trace = dir.path("trace.json.gz");
  write_bytes(trace, read_bytes(example()));
  const CliOutcome result = run_cli({trace, "-o", trace, "--overwrite", "--verify"});
  INFO(result.describe());
  REQUIRE(result.exit_code == 0);
  CHECK(result.out.find("\"verified\": true") != std::string::npos);
  const std::string bytes = read_bytes(trace);
  REQUIRE(bytes.size() > 2);
  CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);
  CHECK(read_file(trace) == reference_output(dir));
  CHECK(entries_of(dir.root()).size() == 2);  // the trace and the reference: no temporary file
}

TEST_CASE("a symbolic link as output stays a link and the file it names gets the trace", "[cli]") {
  // Renaming over the link would have replaced it (and -o /dev/stdout, with
  // stdout redirected to a file, would have replaced /dev/stdout).
  TempDir dir;
  fs::create_directory(dir.path("elsewhere"));
  const std::string target = dir.path("elsewhere/target.json");
  write_bytes(target, "ORIG");
  fs::create_symlink(target, dir.path("link.json"));
  const CliOutcome result =
      run_cli({example(), "-o", dir.path("link.json"), "--overwrite", "--verify"});
  INFO(result.describe());
  REQUIRE(result.exit_code == 0);
  CHECK(fs::is_symlink(dir.path("link.json")));
  CHECK(read_file(target) == reference_output(dir));
  CHECK(entries_of(dir.path("elsewhere")).size() == 1);  // no temporary file left
}

TEST_CASE("default output names follow the input name", "[cli]") {
  TempDir dir;
  const std::string plain = read_bytes(example());
  write_bytes(dir.path("a.json"), plain);
  write_bytes(dir.path("b.json.gz"), gzip_member(plain));
  write_bytes(dir.path("c.trace"), plain);
  for (const char* name : {"a.json", "b.json.gz", "c.trace"})
    REQUIRE(run_cli({dir.path(name), "--verify"}).exit_code == 0);
  CHECK(fs::exists(dir.path("a_compacted.json")));
  CHECK(fs::exists(dir.path("b_compacted.json.gz")));
  CHECK(fs::exists(dir.path("c.trace_compacted.json.gz")));
  const std::string gz = read_bytes(dir.path("b_compacted.json.gz"));
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(read_file(dir.path("a_compacted.json")) == read_file(dir.path("b_compacted.json.gz")));
}

TEST_CASE("gzip output is the same bytes for any thread count", "[cli][gzip]") {
  // Several MB of output: thread counts split it into writes differently.
  TempDir dir;
  const auto events =
      pp_rank_events(20000, 6, [](int step) { return "PP:1F" + std::to_string(step % 4); });
  write_bytes(dir.path("trace.json"), trace(events));
  std::string first;
  for (const char* threads : {"1", "2", "4"}) {
    const std::string out = dir.path(std::string("out") + threads + ".json.gz");
    const CliOutcome result = run_cli({dir.path("trace.json"), "-o", out, "--threads", threads});
    INFO(result.describe());
    REQUIRE(result.exit_code == 0);
    const std::string bytes = read_bytes(out);
    REQUIRE(bytes.size() > (size_t{1} << 16));
    if (first.empty()) first = bytes;
    INFO("threads " << threads);
    CHECK((bytes == first));  // not printed: binary
  }
}
