// Splits a Chrome-JSON trace into its parts without building a DOM: the raw
// text of each top-level value, and each element of "traceEvents" one at a
// time. Reads the source in bounded chunks; an element is handed out as a view
// into the chunk buffer (reused), so memory is bounded by the largest event.
//
// The tokenizer checks the top-level grammar itself and finds value boundaries
// by tracking strings and bracket depth (like Perfetto's JSON tokenizer); the
// contents of each value are validated by the parser that reads them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "source/byte_source.h"
#include "util/io_bytes.h"

namespace tracecompact {

class TraceTokenizer {
 public:
  enum class Kind { kTopLevelValue, kEventsBegin, kEvent, kEnd };
  struct Item {
    Kind kind = Kind::kEnd;
    std::string_view key;   // top-level key (kTopLevelValue, kEventsBegin)
    std::string_view text;  // raw JSON text of the value or event
    uint64_t index = 0;     // event index
    uint64_t offset = 0;    // byte offset of the value in the decompressed input
  };

  explicit TraceTokenizer(ByteSource& source, size_t chunk_size = size_t{4} << 20);

  // Where a tokenizer takes over inside traceEvents: `offset` is just past
  // event `events_seen - 1` (or, with none seen, just past the array's '[').
  struct ResumePoint {
    uint64_t offset = 0;
    uint64_t events_seen = 0;
  };
  // Goes on from `resume`, as if it had read everything before: `source`
  // starts at resume.offset.
  TraceTokenizer(ByteSource& source, size_t chunk_size, ResumePoint resume);

  // The next part; views stay valid until the following call.
  Item next();
  uint64_t bytes_consumed() const { return base_offset_ + position_; }
  uint64_t events_seen() const { return event_count_; }

 private:
  enum class State { kStart, kObjectKey, kAfterMember, kEvents, kAfterEvent, kEnd };

  // Readable bytes past the data, so that SIMD scans may load whole blocks.
  static constexpr size_t kSlack = 64;
  size_t capacity() const { return buffer_.size() - kSlack; }
  bool fill(size_t keep_from);  // reads more, keeping bytes from `keep_from`
  bool skip_whitespace();       // false at end of input
  char peek() const { return buffer_[position_]; }
  std::string_view scan_value(size_t& start);  // a whole value; start may move on refill
  size_t scan_string_end(size_t from, size_t& start);
  std::string read_key();
  [[noreturn]] void fail_at(const std::string& message) const;
  [[noreturn]] void fail_truncated(const std::string& inside) const;

  ByteSource& source_;
  IoBytes buffer_;
  size_t position_ = 0;
  size_t end_ = 0;
  uint64_t base_offset_ = 0;  // input offset of buffer_[0]
  bool eof_ = false;
  State state_ = State::kStart;
  uint64_t event_count_ = 0;
  std::string key_;
  bool seen_events_ = false;
};

}  // namespace tracecompact
