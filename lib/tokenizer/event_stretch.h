// The events of one stretch of a plain input's traceEvents array, found without
// reading what comes before the stretch: how pass 1's workers share out the
// array with no thread reading ahead of them (each reads its own stretch, and
// parses its events where they were read).
//
// A stretch's first event is where one is known to start, or guessed: the
// first '{' in the stretch that follows "}," (whitespace aside), as events are
// separated. A guess can be wrong (that text inside a string, or objects in an
// array inside an event), so the caller keeps a stretch only if its first event
// is where the stretch before it saw its next event start: from a true event
// start the events that follow are found exactly as the tokenizer finds them.
// Anything but well-formed events one after another stops a stretch as
// irregular: the tokenizer takes over there, and judges it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "source/byte_source.h"
#include "util/io_bytes.h"

namespace tracecompact {

class EventStretchReader {
 public:
  static constexpr uint64_t kNone = UINT64_MAX;
  // Readable bytes after every event handed out: simdjson's padding, and the
  // block scans' slack.
  static constexpr size_t kPadding = 64;

  enum class Stop {
    kNextEvent,  // the next event starts at or after the stretch's end, at stop_offset
    kArrayEnd,   // the array's ']' is at stop_offset
    kIrregular,  // something else follows the last event handed out (or no first event)
  };

  // Starts on the events that start in [begin, end) of `input`, which holds
  // `input_size` bytes: from the first event at or after `known_first`
  // (whitespace skipped; a ']' there ends the array), or from a guessed one
  // when `known_first` is kNone.
  void start(const RandomAccessInput& input, uint64_t input_size, uint64_t begin, uint64_t end,
             uint64_t known_first);
  // The next event of the stretch and its offset; false once the stretch stops.
  bool next(std::string_view& text, uint64_t& offset);
  // The caller could not take the event last handed out: the stretch stops there.
  void stop_irregular();
  // A guessed stretch that stopped before its end (at a ']' or something
  // irregular) has most likely started inside an event, in an array of
  // objects: guesses again past where it stopped and starts over (the caller
  // drops the events it took). False when there is nothing to guess again:
  // the stretch then stands as it stopped.
  bool guess_again();

  // Where the first event starts (kNone: no guess found, or a guessed stretch
  // ran into an event it could not close within reach: the end of the input,
  // or far past the stretch).
  uint64_t first_event() const { return first_event_; }
  Stop stop() const { return stop_; }
  uint64_t stop_offset() const { return stop_offset_; }

 private:
  static constexpr size_t kLookBack = 64;            // bytes before a stretch, for the guess
  static constexpr size_t kReadPast = 64 << 10;      // read past the end: the last event
  static constexpr uint64_t kGuessReach = 8u << 20;  // a guessed stretch's farthest read past `end`
  static constexpr int kMostGuesses = 16;            // per stretch

  bool in_buffer(uint64_t offset) const { return offset < buffer_offset_ + filled_; }
  char at(uint64_t offset) const { return buffer_[static_cast<size_t>(offset - buffer_offset_)]; }
  // Reads more, keeping the bytes from `keep_from` on; false at the end of the input.
  bool read_more(uint64_t keep_from);
  void pad();  // the padding after the data
  // Skips whitespace from `offset`; false at the end of the input.
  bool skip_whitespace(uint64_t& offset, uint64_t keep_from);
  uint64_t guess_first_event(uint64_t begin, uint64_t end) const;
  // The end of the value that starts at `offset` ('{'), or kNone.
  uint64_t event_end(uint64_t offset);
  void finish(Stop stop, uint64_t offset);

  const RandomAccessInput* input_ = nullptr;
  uint64_t input_size_ = 0;
  uint64_t end_ = 0;
  bool guessed_ = false;
  int guesses_ = 0;
  IoBytes buffer_;
  uint64_t buffer_offset_ = 0;  // input offset of buffer_[0]
  size_t filled_ = 0;
  uint64_t position_ = 0;  // where the next event (or the ']') is looked for
  uint64_t first_event_ = kNone;
  Stop stop_ = Stop::kIrregular;
  uint64_t stop_offset_ = 0;
  bool stopped_ = false;
};

}  // namespace tracecompact
