#include "support/trace_builder.h"

#include <stdexcept>

#include "sink/byte_sink.h"
#include "source/trace_input.h"
#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "tracecompact/tracecompact.h"
#include "verify/verifier.h"

namespace testsupport {

std::string gzip_member(const std::string& bytes) {
  std::string packed;
  tracecompact::StringSink sink(packed);
  tracecompact::GzipSink gzip(sink, 1);
  gzip.write(bytes.data(), bytes.size());
  gzip.finish();
  return packed;
}

Compacted compact(const std::string& trace_text) {
  Compacted result;
  std::string output;
  const std::string summary = tracecompact::compact_buffer(trace_text, output);
  result.output.Parse(output.c_str());
  result.summary.Parse(summary.c_str());
  if (result.output.HasParseError() || result.summary.HasParseError())
    throw std::runtime_error("compaction wrote invalid JSON");
  // Every output of the suite also passes --verify's checks.
  TempDir dir;
  write_file(dir.path("out.json"), output);
  const auto input = tracecompact::TraceInput::from_memory(trace_text);
  tracecompact::verify_single_output(input, dir.path("out.json"));
  return result;
}

}  // namespace testsupport
