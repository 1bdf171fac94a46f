// Memory must not grow with the parts of a trace that are passed through: a
// trace padded with many CPU events peaks near the same RSS as a small one.
// (bench/ measures the real figures; this is the test-sized proof.)
#include <catch2/catch.hpp>

#include <fstream>

#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "support/trace_builder.h"
#include "util/sanitizers.h"

using namespace testsupport;

namespace {

// `cpu_events` pass-through CPU ops with Kineto-like args, around a fixed GPU part.
void write_trace(const std::string& path, size_t cpu_events) {
  std::ofstream out(path, std::ios::binary);
  out << "{\"traceEvents\":[";
  for (int k = 0; k < 2000; ++k)
    out << kernel(0, 7 + k % 50, std::to_string(k * 10), "5", "gemm") << ",";
  const std::string args =
      "\"args\":{\"External id\":12345,\"Record function id\":0,\"Concrete Inputs\":[\"\",\"\"],"
      "\"Input Dims\":[[4096,4096],[4096,4096]],\"Input "
      "type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}";
  for (size_t i = 0; i < cpu_events; ++i)
    out << "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":" << i
        << ".5,\"dur\":1.25," << args << "},";
  out << kernel(0, 7, "99999999", "1") << "]}";
}

long peak_rss_kb(const std::string& input, const TempDir& dir) {
  const CliOutcome result = run_cli({input, "-o", dir.path("out.json"), "--overwrite"});
  INFO(result.describe());
  REQUIRE(result.exit_code == 0);
  return result.peak_rss_kb;
}

}  // namespace

TEST_CASE("peak memory stays flat when pass-through events grow 10-fold", "[memory]") {
  if (tracecompact::kSanitizerAllocator) {
    // Sanitizers shadow and quarantine memory: RSS means nothing there.
    WARN("skipped under a sanitizer");
    return;
  }
  TempDir dir;
  // Both large enough to fill every fixed-size buffer (batch rings, the tokenizer
  // chunk, the output blocks), whose sizes do not depend on the trace beyond that:
  // the write-behind queue and the direct sink's buffers follow a plain input's
  // size up to 32 MiB (WriteBehindSink::depth_for, DirectFileSink::buffer_size_for).
  write_trace(dir.path("small.json"), 120000);   // ~36 MB
  write_trace(dir.path("large.json"), 1200000);  // ~360 MB
  const long small = peak_rss_kb(dir.path("small.json"), dir);
  const long large = peak_rss_kb(dir.path("large.json"), dir);
  INFO("small " << small << " KB, large " << large << " KB");
  // Pass-through events cost one bit each in the index (here 60 KB): allow 8 MB.
  CHECK(large < small + 8 * 1024);
}
