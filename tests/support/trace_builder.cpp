#include "support/trace_builder.h"

#include <stdexcept>

#include "sink/byte_sink.h"
#include "source/trace_input.h"
#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "tracecompact/tracecompact.h"
#include "verify/verifier.h"

namespace testsupport {

std::vector<std::string> pp_rank_events(int steps, int streams,
                                        const std::function<std::string(int)>& pp_name) {
  std::vector<std::string> events;
  for (int i = 0; i < steps; ++i) {
    const std::string ts = std::to_string(1000 + i * 10) + (i % 3 ? ".25" : "");
    const int stream = 7 + i % streams;
    events.push_back(kernel(0, stream, ts, std::to_string(i % 7)));
    events.push_back(flow(0, stream, ts, i));
    events.push_back(
        "{\"name\":\"aten::mm\",\"cat\":\"cpu_op\",\"ph\":\"X\",\"pid\":4242,"
        "\"tid\":4242,\"ts\":" +
        ts + ",\"dur\":3,\"args\":{\"External id\":" + std::to_string(i) + "}}");
    if (i % 4 == 0) events.push_back(annotation(0, stream, ts, "30", pp_name(i)));
  }
  return events;
}

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
