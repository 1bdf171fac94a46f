// libFuzzer target: the whole single-trace compaction of an in-memory trace.
// Any input must end in an output or a tracecompact::Error, never a crash, a
// sanitizer report or another exception type.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tracecompact/tracecompact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string trace(reinterpret_cast<const char*>(data), size);
  std::string output;
  try {
    tracecompact::compact_buffer(trace, output);
  } catch (const tracecompact::Error&) {
  }
  return 0;
}
