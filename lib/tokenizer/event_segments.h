// Pass 2 reads the events array as segments: stretches of the input that pass 1
// found to start at an event (TraceIndex::segment_starts). A plain input's
// segments are read at their offsets by the worker that renders them; gzip's
// are read in order by one thread (SegmentReader). Either way the worker finds
// the event boundaries inside, so that the boundary scan runs on every worker
// instead of on the one thread that hands out the segments.
//
// Pass 1 has checked the grammar of these bytes. Pass 2 checks only that they
// still hold the same events (a '{' where each starts, separators between, the
// counts and lengths pass 1 saw), and reports anything else as the input having
// changed while it was read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "index/trace_index.h"
#include "json/whitespace.h"
#include "source/byte_source.h"
#include "tokenizer/structure_scanner.h"
#include "util/io_bytes.h"

namespace tracecompact {

// One segment read raw, followed by readable padding (spaces) for the scanner
// and simdjson.
struct EventSegment {
  IoBytes bytes;
  size_t size = 0;
  uint64_t offset = 0;       // of bytes[0] in the input
  uint64_t first_index = 0;  // of its first event
  uint64_t event_count = 0;

  bool empty() const { return event_count == 0; }
  void clear() { size = 0, event_count = 0; }
  std::string_view text() const { return {bytes.data(), size}; }
};

// Where pass 1's segment `k` lies (offset, size, first event, event count),
// its bytes not read; false when there is no segment `k`.
bool locate_segment(const TraceIndex& index, size_t k, EventSegment& into);

// Reads a located segment's bytes (from any thread); an input that ends
// sooner is reported as changed.
void read_segment_at(const RandomAccessInput& input, EventSegment& segment,
                     const std::string& input_name);

// Reports an input that is no longer as long as pass 1 read it as changed.
void check_input_length(const RandomAccessInput& input, const TraceIndex& index);

class SegmentReader {
 public:
  // Reads `index`'s events array from `source`, which starts at the input's beginning.
  SegmentReader(ByteSource& source, const TraceIndex& index);

  // Reads the next segment into `into`; false after the last one, once the
  // rest of the input has been read and found as long as pass 1 saw it.
  bool next(EventSegment& into);

 private:
  void read_exactly(char* destination, uint64_t length);
  void skip(uint64_t length);
  [[noreturn]] void fail_changed() const;

  ByteSource& source_;
  const TraceIndex& index_;
  size_t next_segment_ = 0;
  uint64_t position_ = 0;  // bytes read so far
};

// Calls visit(text, event_index, offset) for each event of `segment`, in
// order; throws (an I/O error: the input changed) if the segment does not hold
// exactly its events. With `lengths` (pass 1's, for the first events), an
// event with one ends there if it ends with '}' (else it is scanned for).
template <typename Visit>
void for_each_event(const EventSegment& segment, const std::string& input_name,
                    const ChunkedVector<uint16_t>* lengths, Visit visit);

[[noreturn]] void fail_segment_changed(const std::string& input_name);

template <typename Visit>
void for_each_event(const EventSegment& segment, const std::string& input_name,
                    const ChunkedVector<uint16_t>* lengths, Visit visit) {
  const char* data = segment.bytes.data();
  const size_t size = segment.size;
  const uint64_t with_length = lengths ? lengths->size() : 0;
  size_t at = 0;
  for (uint64_t k = 0; k < segment.event_count; ++k) {
    if (k > 0) {  // separators: whitespace, one ',', whitespace
      while (at < size && is_json_whitespace(data[at])) ++at;
      if (at == size || data[at] != ',') fail_segment_changed(input_name);
      ++at;
      while (at < size && is_json_whitespace(data[at])) ++at;
    }
    if (at == size || data[at] != '{') fail_segment_changed(input_name);
    const uint64_t event_index = segment.first_index + k;
    const size_t length =
        event_index < with_length ? (*lengths)[event_index] : TraceIndex::kLongEvent;
    size_t end = at + length;
    if (length == TraceIndex::kLongEvent || end > size || data[end - 1] != '}') {
      ScanState state;
      end = scan_to_value_end(data, at, size, state);
      if (state.depth != 0) fail_segment_changed(input_name);
    }
    visit(std::string_view(data + at, end - at), event_index, segment.offset + at);
    at = end;
  }
  // What follows the last event up to the next segment: its separator.
  while (at < size && is_json_whitespace(data[at])) ++at;
  if (at < size && data[at] == ',') ++at;
  while (at < size && is_json_whitespace(data[at])) ++at;
  if (at != size) fail_segment_changed(input_name);
}

}  // namespace tracecompact
