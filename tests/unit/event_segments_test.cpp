// Pass 2 reads the events array in the segments pass 1 noted and finds the
// events inside each on a worker: the same events as the tokenizer finds, and
// an input that no longer holds them is reported as changed, never misread.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "index/index_pass.h"
#include "source/byte_source.h"
#include "source/trace_input.h"
#include "support/trace_builder.h"
#include "tokenizer/event_segments.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"

using namespace testsupport;

namespace tracecompact {
namespace {

struct FoundEvent {
  std::string text;
  uint64_t index;
  uint64_t offset;
  bool operator==(const FoundEvent& other) const {
    return text == other.text && index == other.index && offset == other.offset;
  }
};

std::vector<FoundEvent> tokenizer_events(const std::string& text) {
  MemorySource source(text);
  TraceTokenizer tokenizer(source, 4096);
  std::vector<FoundEvent> events;
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    if (item.kind == TraceTokenizer::Kind::kEvent)
      events.push_back({std::string(item.text), item.index, item.offset});
  }
  return events;
}

// How pass 2 reads a segment's bytes: in order (gzip), or at its offset (plain).
enum class Reading { kInOrder, kAtOffsets };

// The events of `text` read by segments as `index` (pass 1 of maybe another text) says.
std::vector<FoundEvent> segment_events(const std::string& text, const TraceIndex& index,
                                       Reading reading = Reading::kInOrder) {
  std::vector<FoundEvent> events;
  auto collect = [&](const EventSegment& segment) {
    // A merge's pass 1 keeps every event's length: the events end there.
    const auto* lengths = index.event_lengths.empty() ? nullptr : &index.event_lengths;
    for_each_event(segment, index.display_name, lengths,
                   [&](std::string_view event, uint64_t event_index, uint64_t offset) {
                     events.push_back({std::string(event), event_index, offset});
                   });
  };
  EventSegment segment;
  if (reading == Reading::kInOrder) {
    MemorySource source(text);
    SegmentReader reader(source, index);
    while (reader.next(segment)) collect(segment);
  } else {
    const RandomAccessMemory input(text);
    for (size_t k = 0; locate_segment(index, k, segment); ++k) {
      read_segment_at(input, segment, index.display_name);
      collect(segment);
    }
    check_input_length(input, index);
  }
  return events;
}

// A trace of `count` events of varied spellings: brackets and quotes inside
// strings, escapes, nested args, whitespace and newlines between events; a
// top-level value on each side of traceEvents.
std::string varied_trace(int count) {
  std::string text = "{\"before\": {\"a\": [1, {\"b\": \"]}\"}]},\n \"traceEvents\" : [\n";
  for (int i = 0; i < count; ++i) {
    if (i) text += i % 3 ? ",\n  " : " ,";
    if (i % 4 == 0)
      text += kernel(0, 7 + i % 3, std::to_string(i), "1", "k\\\"{[" + std::to_string(i));
    else if (i % 4 == 1)
      text += annotation(0, 7, std::to_string(i), "2", "PP:0F" + std::to_string(i % 5),
                         "{\"x\": {\"y\": [\"}\", \"\\\\\"]}}");
    else
      text += "{\"name\": \"cpu \\\\\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": " +
              std::to_string(i) + ", \"dur\": 1, \"args\": {\"n\": \"" +
              std::string(static_cast<size_t>(i % 300), 'x') + "\"}}";
  }
  return text + "\n ],\n \"after\": [true, null]}\n";
}

}  // namespace

TEST_CASE("segments hold exactly the events the tokenizer finds") {
  const PerEventRecords records = GENERATE(PerEventRecords::kNone, PerEventRecords::kForMerge);
  INFO((records == PerEventRecords::kNone ? "events scanned for" : "events at pass 1's lengths"));
  for (int count : {0, 1, 7, 20000}) {
    INFO("events " << count);
    const std::string text = varied_trace(count);
    const TraceInput input = TraceInput::from_memory(text);
    if (count == 0) {
      // No GPU slice: pass 1 refuses the trace; the reader still reads it whole.
      TraceIndex empty;
      empty.input_bytes = text.size();
      CHECK(segment_events(text, empty).empty());
      CHECK(segment_events(text, empty, Reading::kAtOffsets).empty());
      continue;
    }
    const TraceIndex index = build_index(input, 0, nullptr, records);
    CHECK(index.event_lengths.size() ==
          (records == PerEventRecords::kForMerge ? index.event_count : 0));
    if (count == 20000) CHECK(index.segment_starts.size() > 4);  // several segments
    CHECK(segment_events(text, index) == tokenizer_events(text));
    CHECK(segment_events(text, index, Reading::kAtOffsets) == tokenizer_events(text));
  }
}

TEST_CASE("segments start at events about every segment's length") {
  const std::string text = varied_trace(20000);
  const TraceIndex index = build_index(TraceInput::from_memory(text));
  const std::vector<FoundEvent> events = tokenizer_events(text);
  REQUIRE_FALSE(index.segment_starts.empty());
  CHECK(index.segment_starts.front().index == 0);
  CHECK(index.segment_starts.front().offset == events.front().offset);
  for (size_t i = 0; i < index.segment_starts.size(); ++i) {
    const EventStart& start = index.segment_starts[i];
    CHECK(events[start.index].offset == start.offset);
    if (i > 0) {
      const uint64_t gap = start.offset - index.segment_starts[i - 1].offset;
      CHECK(gap >= TraceIndex::kSegmentBytes);
      CHECK(gap < TraceIndex::kSegmentBytes + 1000);  // no event is longer
    }
  }
  CHECK(index.events_end == events.back().offset + events.back().text.size());
}

TEST_CASE("an input that no longer holds pass 1's events is reported as changed") {
  const std::string text = varied_trace(20000);
  const PerEventRecords records = GENERATE(PerEventRecords::kNone, PerEventRecords::kForMerge);
  const TraceIndex index = build_index(TraceInput::from_memory(text), 0, nullptr, records);
  const Reading reading = GENERATE(Reading::kInOrder, Reading::kAtOffsets);
  INFO((reading == Reading::kInOrder ? "read in order" : "read at offsets"));
  INFO((records == PerEventRecords::kNone ? "events scanned for" : "events at pass 1's lengths"));
  auto error_of = [&](const std::string& changed) -> std::string {
    try {
      segment_events(changed, index, reading);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::kIo);
      return e.what();
    }
    return "no error";
  };
  const std::string changed = "changed while it was being read";
  SECTION("shorter") {
    CHECK_THAT(error_of(text.substr(0, text.size() - 1)), Catch::Contains(changed));
    CHECK_THAT(error_of(text.substr(0, text.size() / 2)), Catch::Contains(changed));
  }
  SECTION("longer") {
    CHECK_THAT(error_of(text + " "), Catch::Contains(changed));
  }
  SECTION("a segment's first event moved by a byte") {
    // An event before the segment lost a byte, the segment's first event gained
    // one: the length is the same, the segment no longer starts at an event.
    const uint64_t start = index.segment_starts[2].offset;
    std::string moved = text;
    REQUIRE(moved[start] == '{');
    moved.insert(start + 1, " ");
    const size_t x = moved.rfind("xx", start);
    REQUIRE(x != std::string::npos);
    moved.erase(x, 1);
    CHECK_THAT(error_of(moved), Catch::Contains(changed));
  }
  SECTION("the same bytes read the same") {
    CHECK(error_of(text) == "no error");
  }
}

}  // namespace tracecompact
