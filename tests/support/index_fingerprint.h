// What pass 1 found, as text: enough to tell two indexes apart where the plan
// and pass 2 would see a difference, or the error it ended with. Pass 1 on one
// thread and on workers reading stretches must give the same (fuzz_stretches,
// and the replay of its regressions in the suite).
#pragma once

#include <string>

#include "index/index_pass.h"
#include "tracecompact/error.h"

namespace testsupport {

inline std::string index_fingerprint(const std::string& bytes, unsigned workers) {
  try {
    const tracecompact::TraceIndex index =
        tracecompact::build_index(tracecompact::TraceInput::from_memory(bytes), workers);
    std::string out = std::to_string(index.event_count) + " " + std::to_string(index.input_bytes) +
                      " " + std::to_string(index.events_end) + " |";
    for (size_t i = 0; i < index.slices.size(); ++i)
      out += " " + std::to_string(index.slices[i].ts) + "/" + std::to_string(index.slices[i].dur) +
             "/" + std::to_string(index.slices[i].stream);
    out += " |";
    for (size_t i = 0; i < index.annotations.size(); ++i)
      out += " " + std::to_string(index.annotations[i].identity);
    out += " |";
    for (const auto& start : index.segment_starts)
      out += " " + std::to_string(start.offset) + "@" + std::to_string(start.index);
    for (const auto& value : index.top_level) out += " " + value.key + "=" + value.text;
    return out;
  } catch (const tracecompact::Error& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace testsupport
