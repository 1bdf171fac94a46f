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

bool locate_segment(const TraceIndex& index, size_t k, EventSegment& into) {
  const std::vector<EventStart>& starts = index.segment_starts;
  if (k >= starts.size()) return false;
  const EventStart& start = starts[k];
  const bool last = k + 1 == starts.size();
  const uint64_t end = last ? index.events_end : starts[k + 1].offset;
  const uint64_t end_index = last ? index.event_count : starts[k + 1].index;
  into.size = static_cast<size_t>(end - start.offset);
  into.offset = start.offset;
  into.first_index = start.index;
  into.event_count = end_index - start.index;
  return true;
}

namespace {

// Room for a segment's bytes and the padding after them, which is filled. New
// storage replaces the old without copying it or doubling it, in 512 KiB when
// that holds the segment (most do), else in whole pages.
char* prepare_bytes(EventSegment& segment) {
  constexpr size_t kUsual = size_t{512} << 10, kPage = 4096;
  const size_t needed = segment.size + kPadding;
  if (segment.bytes.size() < needed)
    IoBytes(std::max(kUsual, (needed + kPage - 1) / kPage * kPage)).swap(segment.bytes);
  std::memset(segment.bytes.data() + segment.size, ' ', kPadding);
  return segment.bytes.data();
}

}  // namespace

void read_segment_at(const RandomAccessInput& input, EventSegment& segment,
                     const std::string& input_name) {
  char* bytes = prepare_bytes(segment);
  if (input.read_at(segment.offset, bytes, segment.size) != segment.size)
    fail_segment_changed(input_name);
}

void check_input_length(const RandomAccessInput& input, const TraceIndex& index) {
  char last[2];
  const bool as_long = index.input_bytes == 0 ? input.read_at(0, last, 1) == 0
                                              : input.read_at(index.input_bytes - 1, last, 2) == 1;
  if (!as_long) fail_segment_changed(index.display_name);
}

bool SegmentReader::next(EventSegment& into) {
  if (!locate_segment(index_, next_segment_, into)) {
    // The rest of the input (the end of the top-level object) only has to be
    // as long as before: its grammar was checked by pass 1.
    if (next_segment_ == index_.segment_starts.size()) {
      skip(index_.input_bytes - position_);
      char extra;
      if (source_.read(&extra, 1) != 0) fail_changed();
      ++next_segment_;
    }
    return false;
  }
  skip(into.offset - position_);  // the top-level values before traceEvents
  read_exactly(prepare_bytes(into), into.size);
  ++next_segment_;
  return true;
}

}  // namespace tracecompact
