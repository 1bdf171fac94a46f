#include "tokenizer/event_segments.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include "tracecompact/error.h"

namespace tracecompact {
namespace {

// Readable bytes after a segment: the scanner loads whole 64-byte blocks and
// simdjson wants its padding after an event.
constexpr size_t kPadding = std::max<size_t>(64, simdjson::SIMDJSON_PADDING);

}  // namespace

void fail_segment_changed(const std::string& input_name) {
  fail_io(input_name + " changed while it was being read");
}

SegmentReader::SegmentReader(ByteSource& source, const TraceIndex& index)
    : source_(source), index_(index) {}

void SegmentReader::fail_changed() const {
  fail_segment_changed(index_.display_name);
}

void SegmentReader::read_exactly(char* destination, uint64_t length) {
  while (length > 0) {
    const size_t got = source_.read(destination, length);
    if (got == 0) fail_changed();  // shorter than pass 1 read it
    destination += got;
    length -= got;
    position_ += got;
  }
}

void SegmentReader::skip(uint64_t length) {
  char scratch[64 << 10];
  while (length > 0) {
    const size_t got = source_.read(scratch, std::min<uint64_t>(length, sizeof scratch));
    if (got == 0) fail_changed();
    length -= got;
    position_ += got;
  }
}

bool SegmentReader::next(EventSegment& into) {
  const std::vector<EventStart>& starts = index_.segment_starts;
  if (next_segment_ >= starts.size()) {
    // The rest of the input (the end of the top-level object) only has to be
    // as long as before: its grammar was checked by pass 1.
    if (next_segment_ == starts.size()) {
      skip(index_.input_bytes - position_);
      char extra;
      if (source_.read(&extra, 1) != 0) fail_changed();
      ++next_segment_;
    }
    return false;
  }
  const EventStart& start = starts[next_segment_];
  const bool last = next_segment_ + 1 == starts.size();
  const uint64_t end = last ? index_.events_end : starts[next_segment_ + 1].offset;
  const uint64_t end_index = last ? index_.event_count : starts[next_segment_ + 1].index;
  skip(start.offset - position_);  // the top-level values before traceEvents
  const size_t size = static_cast<size_t>(end - start.offset);
  if (into.bytes.size() < size + kPadding) into.bytes.resize(size + kPadding);
  read_exactly(into.bytes.data(), size);
  std::memset(into.bytes.data() + size, ' ', kPadding);
  into.size = size;
  into.offset = start.offset;
  into.first_index = start.index;
  into.event_count = end_index - start.index;
  ++next_segment_;
  return true;
}

}  // namespace tracecompact
