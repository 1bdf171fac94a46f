// libFuzzer target: the chunked tokenizer on arbitrary bytes, with a small
// chunk size so that values straddle refills. Must never crash; errors are
// tracecompact::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "source/byte_source.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (size_t chunk : {size_t{7}, size_t{4096}}) {
    tracecompact::MemorySource source(bytes);
    tracecompact::TraceTokenizer tokenizer(source, chunk);
    try {
      while (tokenizer.next().kind != tracecompact::TraceTokenizer::Kind::kEnd) {
      }
    } catch (const tracecompact::Error&) {
    }
  }
  return 0;
}
