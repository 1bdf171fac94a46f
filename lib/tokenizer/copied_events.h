// Events copied out of the tokenizer's buffer, back to back, so that another
// thread can read them after the tokenizer has moved on. simdjson's padding
// follows the last one (every event is followed by at least that many
// readable bytes, as the parsers and the field scanner need).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/io_bytes.h"

namespace tracecompact {

class CopiedEvents {
 public:
  struct Event {
    size_t at;
    size_t length;
    uint64_t index;   // event index in traceEvents
    uint64_t offset;  // byte offset in the (decompressed) input
  };

  // False when the batch is full (an event larger than a batch still fits alone).
  bool add(std::string_view event, uint64_t index, uint64_t offset);
  void clear();
  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }
  const Event& operator[](size_t i) const { return events_[i]; }
  std::string_view text_of(const Event& event) const {
    return std::string_view(text_.data() + event.at, event.length);
  }

 private:
  IoBytes text_;
  size_t used_ = 0;
  std::vector<Event> events_;
};

}  // namespace tracecompact
