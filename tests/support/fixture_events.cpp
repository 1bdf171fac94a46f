#include "support/fixture_events.h"

#include <filesystem>

#include "source/byte_source.h"
#include "support/json_compare.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"

namespace testsupport {

std::vector<std::string> events_of(const std::string& trace) {
  using tracecompact::TraceTokenizer;
  std::vector<std::string> events;
  tracecompact::MemorySource source(trace);
  TraceTokenizer tokenizer(source, 4096);
  try {
    for (;;) {
      const auto item = tokenizer.next();
      if (item.kind == TraceTokenizer::Kind::kEnd) break;
      if (item.kind == TraceTokenizer::Kind::kEvent) events.emplace_back(item.text);
    }
  } catch (const tracecompact::Error&) {
    // a broken trace: the events before the fault
  }
  return events;
}

std::vector<std::string> fixture_events(const std::string& directory) {
  std::vector<std::string> events;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    const bool trace = name.ends_with(".json") || name.ends_with(".json.gz");
    if (!entry.is_regular_file() || !trace) continue;
    std::string text;
    try {
      text = read_file(entry.path().string());  // gzip-aware
    } catch (const std::exception&) {
      continue;  // a broken gzip stream of fixtures/bad: no events to take
    }
    for (std::string& event : events_of(text)) events.push_back(std::move(event));
  }
  return events;
}

}  // namespace testsupport
