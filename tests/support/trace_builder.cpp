#include "support/trace_builder.h"

#include <stdexcept>

#include "tracecompact/tracecompact.h"

namespace testsupport {

Compacted compact(const std::string& trace_text) {
  Compacted result;
  std::string output;
  const std::string summary = tracecompact::compact_buffer(trace_text, output);
  result.output.Parse(output.c_str());
  result.summary.Parse(summary.c_str());
  if (result.output.HasParseError() || result.summary.HasParseError())
    throw std::runtime_error("compaction wrote invalid JSON");
  return result;
}

}  // namespace testsupport
